package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/testenv"
)

// TestEditorExamples checks the example configurations under editors/ that
// docs/editors.md tells users to copy: the JSON parses, each agent server
// starts this binary's `acp` door, and the Lua parses.
func TestEditorExamples(t *testing.T) {
	help, err := exec.Command(binary, "help").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"../../editors/zed/settings.json", "../../editors/jetbrains/acp.json"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var cfg struct {
			AgentServers map[string]struct {
				Command string            `json:"command"`
				Args    []string          `json:"args"`
				Env     map[string]string `json:"env"`
			} `json:"agent_servers"`
		}
		if err := json.Unmarshal(data, &cfg); err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		srv, ok := cfg.AgentServers["agent-lsp"]
		if !ok {
			t.Errorf("%s: no agent_servers.agent-lsp", file)
			continue
		}
		if srv.Command != "agent-lsp" || len(srv.Args) == 0 {
			t.Errorf("%s: command %q args %q; want agent-lsp acp", file, srv.Command, srv.Args)
			continue
		}
		if !strings.Contains(string(help), "agent-lsp "+srv.Args[0]+" ") {
			t.Errorf("%s: agent-lsp has no %q command:\n%s", file, srv.Args[0], help)
		}
	}

	lua := "../../editors/codecompanion/config.lua"
	src, err := os.ReadFile(lua)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "{ 'agent-lsp', 'acp' }") {
		t.Errorf("%s does not start agent-lsp acp", lua)
	}
	nvim := nvimForTests(t)
	abs, _ := filepath.Abs(lua)
	script := filepath.Join(t.TempDir(), "parse.lua")
	os.WriteFile(script, []byte("local f, err = loadfile(arg[1])\nif not f then io.stderr:write(err .. '\\n') os.exit(1) end\n"), 0o644)
	out, err := exec.Command(nvim, "--clean", "--headless", "-l", script, abs).CombinedOutput()
	if err != nil {
		t.Errorf("%s does not parse: %v\n%s", lua, err, out)
	}
}

// nvimForTests is Neovim (the one scripts/install-nvim.sh installs, else
// nvim on PATH). Without one the test ends through testenv.Missing:
// skipped, or failed when AGENT_LSP_REQUIRE_EDITORS is set (make test
// sets it).
func nvimForTests(t *testing.T) string {
	t.Helper()
	if p := filepath.Join(testenv.CacheDir(), "bin", "nvim"); isFile(p) {
		return p
	}
	return testenv.NeedTool(t, "nvim")
}

// isFile reports whether p names an existing file.
func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}
