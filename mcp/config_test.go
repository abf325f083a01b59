package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
)

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
}

func TestParse(t *testing.T) {
	data := `{
	  "mcpServers": {
	    "files": {"command": "${HOME}/bin/files", "args": ["--root", "${ROOT:-.}"], "env": {"KEY": "${KEY}"}, "timeout": 5},
	    "issues": {"type": "http", "url": "${BASE:-https://example.com}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
	    "events": {"type": "sse", "url": "https://example.com/sse"},
	    "bare": {"url": "https://example.com/bare"},
	    "alias": {"type": "streamable-http", "url": "https://example.com/alias"},
	    "secret": {"command": "x", "env": {"A": "${UNSET_ONE}", "B": "${UNSET_TWO}"}},
	    "nocmd": {"args": ["x"]},
	    "ws": {"type": "ws", "url": "wss://example.com"},
	    "nourl": {"type": "http"},
	    "bad": {"command": 3}
	  },
	  "other": true
	}`
	got, errs := Parse([]byte(data), ScopeProject, env(map[string]string{"HOME": "/home/u", "KEY": "k", "TOKEN": "t"}))
	want := []Server{
		{Name: "alias", Scope: ScopeProject, Type: TypeHTTP, URL: "https://example.com/alias"},
		{Name: "bare", Scope: ScopeProject, Type: TypeHTTP, URL: "https://example.com/bare"},
		{Name: "events", Scope: ScopeProject, Type: TypeSSE, URL: "https://example.com/sse"},
		{Name: "files", Scope: ScopeProject, Type: TypeStdio, Command: "/home/u/bin/files", Args: []string{"--root", "."}, Env: map[string]string{"KEY": "k"}},
		{Name: "issues", Scope: ScopeProject, Type: TypeHTTP, URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer t"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("servers:\n got %+v\nwant %+v", got, want)
	}
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	for _, want := range []string{
		`MCP server "bad": json: cannot unmarshal`,
		`MCP server "nocmd": stdio server without a command`,
		`MCP server "nourl": http server without a url`,
		`MCP server "secret": environment variable UNSET_ONE, UNSET_TWO is not set and has no default`,
		`MCP server "ws": unsupported type "ws"`,
	} {
		found := false
		for _, m := range msgs {
			found = found || strings.HasPrefix(m, want)
		}
		if !found {
			t.Errorf("no error %q in %q", want, msgs)
		}
	}
	if len(errs) != 5 {
		t.Errorf("%d errors, want 5: %q", len(errs), msgs)
	}

	if _, errs := Parse([]byte(`{"mcpServers": [`), ScopeProject, nil); len(errs) != 1 || !strings.Contains(errs[0].Error(), "not a valid MCP configuration") {
		t.Errorf("invalid JSON: %v", errs)
	}
}

func TestFromSchema(t *testing.T) {
	got, err := fromSchema(schema.MCPServer{
		Name: "db", Command: "db-mcp", Args: []string{"-v"},
		Env: []schema.EnvVariable{{Name: "DSN", Value: "postgres://"}},
	})
	want := Server{Name: "db", Scope: ScopeSession, Type: TypeStdio, Command: "db-mcp", Args: []string{"-v"}, Env: map[string]string{"DSN": "postgres://"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("stdio: %+v, %v", got, err)
	}
	got, err = fromSchema(schema.MCPServer{Type: "http", Name: "api", URL: "http://x/mcp", Headers: []schema.HTTPHeader{{Name: "X-Key", Value: "1"}}})
	want = Server{Name: "api", Scope: ScopeSession, Type: TypeHTTP, URL: "http://x/mcp", Headers: map[string]string{"X-Key": "1"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("http: %+v, %v", got, err)
	}
	if _, err := fromSchema(schema.MCPServer{Name: "x"}); err == nil || !strings.Contains(err.Error(), "without a command") {
		t.Errorf("no command: %v", err)
	}
}

func TestCollect(t *testing.T) {
	dir := t.TempDir()
	project := `{"mcpServers": {
	  "approved": {"command": "a"},
	  "all": {"command": "b"},
	  "refused": {"command": "c"},
	  "shadowed": {"command": "from-project"},
	  "broken": {"type": "ws"}
	}}`
	if err := os.WriteFile(filepath.Join(dir, ProjectFile), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}
	st := &settings.Settings{
		EnabledMcpjsonServers:  []string{"approved"},
		DisabledMcpjsonServers: []string{"refused"},
		MCPServers: map[string]json.RawMessage{
			"shadowed": json.RawMessage(`{"command": "from-settings"}`),
			"editor":   json.RawMessage(`{"command": "from-settings"}`),
			"mine":     json.RawMessage(`{"type": "http", "url": "${URL}"}`),
		},
	}
	src := Sources{
		Workspace: dir,
		Settings:  st,
		Session:   []schema.MCPServer{{Name: "editor", Command: "from-editor"}},
		LookupEnv: env(map[string]string{"URL": "http://localhost/mcp"}),
	}
	servers, errs := Collect(src)
	type row struct {
		name, cmd, url string
		scope          Scope
		needs, off     bool
	}
	var got []row
	for _, s := range servers {
		got = append(got, row{s.Name, s.Command, s.URL, s.Scope, s.NeedsApproval, s.Disabled})
	}
	want := []row{
		{"all", "b", "", ScopeProject, true, false},
		{"approved", "a", "", ScopeProject, false, false},
		{"editor", "from-editor", "", ScopeSession, false, false},
		{"mine", "", "http://localhost/mcp", ScopeSettings, false, false},
		{"refused", "c", "", ScopeProject, false, true},
		{"shadowed", "from-settings", "", ScopeSettings, false, false},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Collect:\n got %+v\nwant %+v", got, want)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), filepath.Join(dir, ProjectFile)+`: MCP server "broken": unsupported type`) {
		t.Errorf("errors = %v", errs)
	}

	// enableAllProjectMcpServers approves every project server but the
	// refused ones.
	st.EnableAllProjectMcpServers = true
	servers, _ = Collect(src)
	for _, s := range servers {
		if s.NeedsApproval {
			t.Errorf("%s needs approval with enableAllProjectMcpServers", s.Name)
		}
		if s.Name == "refused" && !s.Disabled {
			t.Error("refused is not disabled with enableAllProjectMcpServers")
		}
	}

	// Without settings nothing from the project is approved; without a
	// .mcp.json there is nothing from it.
	servers, errs = Collect(Sources{Workspace: dir})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `MCP server "broken"`) {
		t.Errorf("without settings: errors = %v, want the broken server's alone", errs)
	}
	for _, s := range servers {
		if !s.NeedsApproval {
			t.Errorf("%s approved without settings", s.Name)
		}
	}
	if servers, errs = Collect(Sources{Workspace: t.TempDir()}); len(servers) != 0 || len(errs) != 0 {
		t.Errorf("empty workspace: %v, %v", servers, errs)
	}
}

func TestToolName(t *testing.T) {
	for _, c := range []struct{ server, tool, want string }{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"my server", "get.file/v2", "mcp__my_server__get_file_v2"},
		{"ünï", "tool-1", "mcp___n___tool-1"},
	} {
		if got := ToolName(c.server, c.tool); got != c.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
	}
	long := ToolName("a-server-with-a-long-name", "and_a_tool_with_an_even_longer_name_than_that")
	other := ToolName("a-server-with-a-long-name", "and_a_tool_with_an_even_longer_name_than_this")
	if len(long) != 64 || long == other || !strings.HasPrefix(long, "mcp__a-server-with-a-long-name__and_a_tool") {
		t.Errorf("long names: %q, %q", long, other)
	}
	if !strings.HasPrefix(ToolName("my server", "x"), serverPrefix("my server")) {
		t.Error("serverPrefix does not prefix ToolName")
	}
}
