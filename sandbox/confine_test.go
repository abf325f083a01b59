package sandbox

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/settings"
)

// confiner returns a Confiner over roots that uses bubblewrap.
func confiner(t *testing.T, roots ...string) *Confiner {
	t.Helper()
	requireBwrap(t)
	c, warning := NewConfiner(roots)
	if !c.Available() || warning != "" {
		t.Fatalf("bubblewrap works but the confiner does not: %q", warning)
	}
	return c
}

// runConfined runs script confined in dir and returns its output.
func runConfined(t *testing.T, c *Confiner, o Options, dir, script string) (string, error) {
	t.Helper()
	argv, release, err := c.Wrap([]string{"bash", "-c", script}, o)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConfinedStopsHarm runs commands that a wrong classifier let through
// and checks that none of them writes, connects or reads what it must not.
func TestConfinedStopsHarm(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"README.md": "hello\n", ".env": "TOKEN=ws-secret\n", "sub/.env": "TOKEN=sub-secret\n", "secrets/key": "private-secret\n"})
	outside := outsideDir(t)
	writeFiles(t, outside, map[string]string{"canary": "outside-secret\n"})
	home := t.TempDir()
	writeFiles(t, home, map[string]string{"home-canary": "home-secret\n"})
	t.Setenv("HOME", home)
	t.Setenv("AGENT_LSP_TEST_API_KEY", "sk-leaked-key")

	var accepted atomic.Int32
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			conn.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	hostTmp := filepath.Join(os.TempDir(), fmt.Sprintf("agent-lsp-confined-%d", time.Now().UnixNano()))
	t.Cleanup(func() { os.Remove(hostTmp) })

	c := confiner(t, ws)
	deny := Options{Deny: []string{filepath.ToSlash(ws) + "/**/.env", escapeForTest(ws) + "/secrets/**"}}
	cases := []struct {
		name, script string
		forbidden    string // output that must not appear
	}{
		{"write the workspace", "echo pwned > new.txt; echo pwned >> README.md", ""},
		{"write the host's /tmp", "echo pwned > " + hostTmp, ""},
		{"connect to a loopback listener", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo CONNECTED", port), "CONNECTED"},
		{"read outside the workspace", "cat " + filepath.Join(outside, "canary"), "outside-secret"},
		{"list the home directory", "ls -la " + home + "; cat ~/home-canary", "home-secret"},
		{"read a denied file", "cat .env sub/.env secrets/key; grep -r TOKEN .", "-secret"},
		{"read the environment", "env; cat /proc/*/environ; ps axeww", "sk-leaked-key"},
		{"read the environment by pid", "for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ; done", "sk-leaked-key"},
		{"read the password hashes", "cat /etc/shadow", "root:"},
		// bwrap started by root keeps root's capabilities unless told
		// otherwise: a remount makes the workspace writable.
		{"remount the workspace writable", "mount -o remount,rw,bind " + ws + "; echo pwned > new.txt", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := runConfined(t, c, deny, ws, tc.script)
			if tc.forbidden != "" && strings.Contains(out, tc.forbidden) {
				t.Errorf("the confined command saw %q:\n%s", tc.forbidden, out)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); err == nil {
		t.Error("a confined command created a file in the workspace")
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "README.md")); string(data) != "hello\n" {
		t.Errorf("a confined command changed README.md: %q", data)
	}
	if _, err := os.Stat(hostTmp); err == nil {
		t.Error("a confined command wrote the host's /tmp")
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("a confined command reached the host's loopback listener (%d connections)", n)
	}

	// A denied file that appears later is hidden once the confiner
	// knows the workspace may have changed.
	writeFiles(t, ws, map[string]string{"later/.env": "TOKEN=later-secret\n"})
	c.Invalidate()
	if out, _ := runConfined(t, c, deny, ws, "cat later/.env"); strings.Contains(out, "later-secret") {
		t.Errorf("a denied file created after the last scan was readable:\n%s", out)
	}

	// What a read-only command needs still works.
	out, err := runConfined(t, c, deny, ws, "cat README.md && ls /usr/bin >/dev/null && echo tmp > /tmp/x && cat /tmp/x && pwd")
	if err != nil || !strings.Contains(out, "hello") || !strings.Contains(out, "tmp\n"+ws) {
		t.Errorf("an honest read-only command failed: %v\n%s", err, out)
	}
}

// TestNoCapabilities: a command in any of the sandboxes holds no
// capability, even when the sidecar runs as root (bwrap then keeps them
// by default): with CAP_SYS_ADMIN it could remount read-only paths
// writable, with CAP_SYS_TIME set the host's clock.
func TestNoCapabilities(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	c := confiner(t, ws)
	sb := usable(t, settings0(), ws)
	runners := map[string]func(script string) (string, error){
		"confined":           func(s string) (string, error) { return runConfined(t, c, Options{}, ws, s) },
		"confined writable":  func(s string) (string, error) { return runConfined(t, c, Options{Writable: true}, ws, s) },
		"rule":               func(s string) (string, error) { return runConfined(t, c, Options{Rule: true}, ws, s) },
		"configured sandbox": func(s string) (string, error) { return run(t, sb, ws, s) },
	}
	for name, runScript := range runners {
		t.Run(name, func(t *testing.T) {
			out, err := runScript("grep -E '^Cap(Prm|Eff|Amb):' /proc/self/status")
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if _, v, _ := strings.Cut(line, ":"); strings.Trim(strings.TrimSpace(v), "0") != "" {
					t.Errorf("the command holds capabilities: %s", line)
				}
			}
		})
	}
}

// escapeForTest escapes doublestar's pattern characters in a literal
// path, as the permission package does.
func escapeForTest(p string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`, `{`, `\{`, `}`, `\}`, `\`, `\\`)
	return r.Replace(filepath.ToSlash(p))
}

// TestProtectedPaths checks, in both sandboxes where the workspace is
// writable, that the files whose content runs code or grants permissions
// stay read-only, cannot be created where missing, and that nothing is
// left behind on the host.
func TestProtectedPaths(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{".git/config": "[core]\n\trepositoryformatversion = 0\n", ".vscode/settings.json": "{}\n"})
	c := confiner(t, ws)
	sb := usable(t, settings0(), ws)
	runners := map[string]func(script string) (string, error){
		"confined writable": func(script string) (string, error) {
			return runConfined(t, c, Options{Writable: true}, ws, script)
		},
		"configured sandbox": func(script string) (string, error) { return run(t, sb, ws, script) },
	}
	attacks := map[string]string{
		"create .claude":           "mkdir -p .claude && echo '{\"permissions\":{\"allow\":[\"Bash\"]}}' > .claude/settings.local.json",
		"create .mcp.json":         "echo '{\"mcpServers\":{\"x\":{\"command\":\"sh\"}}}' > .mcp.json",
		"create a hook":            "mkdir -p .git/hooks && echo 'touch /tmp/pwned' > .git/hooks/pre-commit",
		"change .git/config":       "printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> .git/config",
		"replace .git/config":      "rm -f .git/config; echo '[core]' > .git/config.new && mv .git/config.new .git/config",
		"change .vscode":           "echo '{\"x\":1}' > .vscode/settings.json; echo > .vscode/tasks.json",
		"remove .claude and retry": "rm -rf .claude; mkdir .claude; echo '{}' > .claude/settings.json",
		// The protected paths under .git are mount points, but .git is
		// their parent: renamed, it takes them along.
		"rename .git":           "mv .git .git-old; mkdir -p .git/hooks; printf '[core]\\n\\tfsmonitor = touch pwned\\n' > .git/config; echo x > .git/hooks/pre-commit",
		"remove .git":           "rm -rf .git; mkdir .git; echo '[core]' > .git/config",
		"remount .git/config":   "mount -o remount,rw,bind \"$PWD/.git/config\"; printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> .git/config",
		"write config.worktree": "printf '[core]\\n\\tfsmonitor = touch pwned\\n' > .git/config.worktree",
		"plant commondir":       "mkdir -p evil && printf '[core]\\n\\tfsmonitor = touch pwned\\n' > evil/config && echo ../evil > .git/commondir",
	}
	for rname, runScript := range runners {
		for aname, script := range attacks {
			t.Run(rname+"/"+aname, func(t *testing.T) {
				out, _ := runScript(script)
				for _, p := range []string{".claude", ".mcp.json", ".git/hooks", ".vscode/tasks.json", ".git/commondir", ".git-old", ".git/config.worktree"} {
					if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
						t.Errorf("%s exists on the host after the command:\n%s", p, out)
					}
				}
				if data, _ := os.ReadFile(filepath.Join(ws, ".git/config")); string(data) != "[core]\n\trepositoryformatversion = 0\n" {
					t.Errorf(".git/config changed: %q\n%s", data, out)
				}
				if data, _ := os.ReadFile(filepath.Join(ws, ".vscode/settings.json")); string(data) != "{}\n" {
					t.Errorf(".vscode/settings.json changed: %q\n%s", data, out)
				}
			})
		}
		t.Run(rname+"/the rest is writable", func(t *testing.T) {
			if out, err := runScript("mkdir -p src && echo ok > src/f && echo ok > top.txt && rm top.txt"); err != nil {
				t.Errorf("writing the workspace failed: %v\n%s", err, out)
			}
			if data, _ := os.ReadFile(filepath.Join(ws, "src/f")); string(data) != "ok\n" {
				t.Errorf("src/f = %q", data)
			}
		})
	}
}

// TestProtectedNestedGitDirs: a submodule's repository under
// .git/modules and a linked worktree's folder under .git/worktrees hold
// config that git reads (a superproject's git status runs git in its
// submodules): they stay read-only in the writable sandboxes, and cannot
// be renamed away from their read-only mounts.
func TestProtectedNestedGitDirs(t *testing.T) {
	ws := t.TempDir()
	const cfg = "[core]\n\trepositoryformatversion = 0\n"
	writeFiles(t, ws, map[string]string{
		".git/config": cfg, ".git/HEAD": "ref: refs/heads/main\n",
		".git/modules/sub/config": cfg, ".git/modules/sub/HEAD": "ref: refs/heads/main\n",
		".git/modules/sub/modules/deep/config": cfg, ".git/modules/sub/modules/deep/HEAD": "ref: refs/heads/main\n",
		".git/worktrees/wt/commondir": "../..\n", ".git/worktrees/wt/gitdir": "/somewhere/.git\n", ".git/worktrees/wt/HEAD": "ref: refs/heads/x\n",
	})
	c := confiner(t, ws)
	sb := usable(t, settings0(), ws)
	runners := map[string]func(script string) (string, error){
		"confined writable":  func(s string) (string, error) { return runConfined(t, c, Options{Writable: true}, ws, s) },
		"configured sandbox": func(s string) (string, error) { return run(t, sb, ws, s) },
	}
	const evil = "printf '[core]\\n\\tfsmonitor = touch pwned\\n'"
	attacks := map[string]string{
		"submodule config":     evil + " >> .git/modules/sub/config; " + evil + " >> .git/modules/sub/modules/deep/config",
		"submodule hook":       "mkdir -p .git/modules/sub/hooks && echo x > .git/modules/sub/hooks/pre-commit",
		"rename the submodule": "mv .git/modules/sub .git/modules/old; mkdir -p .git/modules/sub && " + evil + " > .git/modules/sub/config",
		"rename modules":       "mv .git/modules .git/old-modules; mkdir -p .git/modules/sub && " + evil + " > .git/modules/sub/config",
		"submodule commondir":  "echo ../../evil > .git/modules/sub/commondir",
		"worktree config":      evil + " > .git/worktrees/wt/config.worktree",
		"worktree commondir":   "echo ../../../evil > .git/worktrees/wt/commondir",
	}
	for rname, runScript := range runners {
		for aname, script := range attacks {
			t.Run(rname+"/"+aname, func(t *testing.T) {
				out, _ := runScript(script)
				for _, p := range []string{".git/modules/sub/config", ".git/modules/sub/modules/deep/config"} {
					if data, _ := os.ReadFile(filepath.Join(ws, p)); string(data) != cfg {
						t.Errorf("%s changed: %q\n%s", p, data, out)
					}
				}
				for _, p := range []string{".git/modules/sub/hooks", ".git/modules/old", ".git/old-modules", ".git/modules/sub/commondir", ".git/worktrees/wt/config.worktree"} {
					if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
						t.Errorf("%s exists on the host after the command:\n%s", p, out)
					}
				}
				if data, _ := os.ReadFile(filepath.Join(ws, ".git/worktrees/wt/commondir")); string(data) != "../..\n" {
					t.Errorf("the worktree's commondir changed: %q\n%s", data, out)
				}
			})
		}
	}
}

// TestGitHardening gives a repository a .git/config that names a program
// everywhere git would run one, and runs read-only git commands confined:
// none of the programs may run. The same commands run unconfined first,
// to show that each canary would fire.
func TestGitHardening(t *testing.T) {
	requireBwrap(t)
	ws := t.TempDir()
	hostGit := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = ws
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + ws, "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	hostGit("init", "-q", ".")
	writeFiles(t, ws, map[string]string{"a.txt": "one\n", "b.bin": "bin one\n", ".gitattributes": "*.txt filter=evil\n*.bin diff=evil\n"})
	hostGit("add", ".")
	hostGit("commit", "-qm", "first")
	writeFiles(t, ws, map[string]string{"a.txt": "two\n", "b.bin": "bin two\n"})
	// A signed-looking commit makes log --show-signature call gpg.program.
	tree := strings.TrimSpace(mustOutput(t, ws, "git rev-parse HEAD^{tree}"))
	parent := strings.TrimSpace(mustOutput(t, ws, "git rev-parse HEAD"))
	signed := "tree " + tree + "\nparent " + parent + "\nauthor t <t@t> 1 +0000\ncommitter t <t@t> 1 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n =abcd\n -----END PGP SIGNATURE-----\n\nsigned\n"
	obj := filepath.Join(t.TempDir(), "commit")
	if err := os.WriteFile(obj, []byte(signed), 0o644); err != nil {
		t.Fatal(err)
	}
	hostGit("update-ref", "refs/heads/signed", strings.TrimSpace(mustOutput(t, ws, "git hash-object -t commit -w "+obj)))

	writeFiles(t, ws, map[string]string{"tools/canary": "#!/bin/sh\necho CANARY-$1 >&2\ntouch " + ws + "/canary-$1\nexit 0\n"})
	if err := os.Chmod(filepath.Join(ws, "tools/canary"), 0o755); err != nil {
		t.Fatal(err)
	}
	// gpg.program is run as a path, not through the shell: its own script.
	writeFiles(t, ws, map[string]string{"tools/gpg": "#!/bin/sh\nexec " + filepath.Join(ws, "tools/canary") + " gpg\n"})
	if err := os.Chmod(filepath.Join(ws, "tools/gpg"), 0o755); err != nil {
		t.Fatal(err)
	}
	canary := func(name string) string {
		if name == "gpg" {
			return filepath.Join(ws, "tools/gpg")
		}
		return filepath.Join(ws, "tools/canary") + " " + name
	}
	base := "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
	phases := []struct {
		config string
		fire   []string // canaries the control run must fire
	}{{
		config: base + "\tfsmonitor = " + canary("fsmonitor") + "\n\tpager = " + canary("pager") + "\n\thooksPath = hooks\n" +
			"[diff]\n\texternal = " + canary("external") + "\n" +
			"[diff \"evil\"]\n\ttextconv = " + canary("textconv") + "\n" +
			"[filter \"evil\"]\n\tclean = " + canary("clean") + "\n\tsmudge = " + canary("smudge") + "\n" +
			"[gpg]\n\tprogram = " + canary("gpg") + "\n[log]\n\tshowSignature = true\n" +
			"[pager]\n\tlog = " + canary("pagerlog") + "\n",
		fire: []string{"fsmonitor", "external", "clean", "gpg"},
	}, {
		// A filter process dies on the canary, and git with it: alone.
		config: base + "[filter \"evil\"]\n\tprocess = " + canary("process") + "\n" + "[diff \"evil\"]\n\ttextconv = " + canary("textconv") + "\n",
		fire:   []string{"process", "textconv"},
	}, {
		// The programs come from a committed file the config includes.
		config: base + "[include]\n\tpath = ../evil.cfg\n",
		fire:   []string{"fsmonitor", "clean"},
	}}
	writeFiles(t, ws, map[string]string{"evil.cfg": "[core]\n\tfsmonitor = " + canary("fsmonitor") + "\n[filter \"evil\"]\n\tclean = " + canary("clean") + "\n"})
	commands := []string{
		"git status", "git diff", "git diff HEAD", "git log -p -1", "git show HEAD", "git log --show-signature -1 signed",
		"git -p log -1", "git cat-file --filters HEAD:a.txt", "git log -1 --format=%GG signed", "git diff HEAD -- b.bin",
	}
	script := strings.Join(commands, "; ") + "; true"
	c := confiner(t, ws)
	noBwrap, _ := newConfiner([]string{ws}, "", "test")
	clearCanaries := func() []string {
		matches, _ := filepath.Glob(filepath.Join(ws, "canary-*"))
		for _, m := range matches {
			os.Remove(m)
		}
		return matches
	}
	for i, phase := range phases {
		writeFiles(t, ws, map[string]string{".git/config": phase.config})
		// Control: unconfined, the canaries fire.
		// (Pagers only run on a terminal: core.pager and pager.* are
		// in the config for completeness, GIT_PAGER=cat settles them.)
		ctl := exec.Command("bash", "-c", script)
		ctl.Dir = ws
		ctl.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + ws, "GIT_CONFIG_NOSYSTEM=1", "TERM=dumb"}
		out, _ := ctl.CombinedOutput()
		for _, name := range phase.fire {
			if _, err := os.Stat(filepath.Join(ws, "canary-"+name)); err != nil {
				t.Errorf("phase %d control: the %s canary did not fire unconfined, so the test proves nothing:\n%s", i, name, out)
			}
		}
		clearCanaries()

		for _, o := range []Options{{}, {Writable: true}} {
			out, _ := runConfined(t, c, o, ws, script)
			if strings.Contains(out, "CANARY") {
				t.Errorf("phase %d writable=%v: a repository-chosen program ran:\n%s", i, o.Writable, out)
			}
			if matches := clearCanaries(); len(matches) > 0 {
				t.Errorf("phase %d writable=%v: canary files appeared: %v", i, o.Writable, matches)
			}
			if !strings.Contains(out, "signed") || !strings.Contains(out, "-one") || !strings.Contains(out, "+bin two") {
				t.Errorf("phase %d writable=%v: the git commands did not work:\n%s", i, o.Writable, out)
			}
		}

		// The sidecar's own git status is hardened the same way, with
		// bubblewrap or without.
		var nilC *Confiner
		for j, c := range []*Confiner{c, noBwrap, nilC} {
			gout, err := c.Git(t.Context(), ws, "status", "--short", "--branch")
			if ee, ok := err.(*exec.ExitError); ok {
				err = fmt.Errorf("%w: %s", err, ee.Stderr)
			}
			if err != nil || strings.Contains(string(gout), "CANARY") || !strings.Contains(string(gout), "a.txt") {
				t.Errorf("phase %d Git %d: %v\n%s", i, j, err, gout)
			}
			if matches := clearCanaries(); len(matches) > 0 {
				t.Errorf("phase %d Git %d: canary files appeared: %v", i, j, matches)
			}
		}
	}
}

func mustOutput(t *testing.T, dir, script string) string {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	return string(out)
}

// TestKillReachesEveryProcess starts commands that leave their process
// group or session (setsid, set -m, GNU timeout), kills the command's
// process group as the Bash tool does, and checks that nothing is left.
func TestKillReachesEveryProcess(t *testing.T) {
	ws := t.TempDir()
	c := confiner(t, ws)
	marker := fmt.Sprintf("%d", 100000+time.Now().UnixNano()%800000)
	script := fmt.Sprintf("setsid sleep %[1]s.1 & set -m; sleep %[1]s.2 & timeout 1000 sleep %[1]s.3 & (setsid bash -c 'sleep %[1]s.4' &) ; echo started; wait", marker)
	wrappers := map[string]func() []string{
		"confined": func() []string {
			argv, _, err := c.Wrap([]string{"bash", "-c", script}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			return argv
		},
		"contained": func() []string { return c.Contain([]string{"bash", "-c", script}) },
	}
	for name, wrap := range wrappers {
		t.Run(name, func(t *testing.T) {
			argv := wrap()
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = ws
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(stdout).ReadString('\n')
			if line != "started\n" {
				t.Fatalf("command output %q", line)
			}
			if n := countProcs(marker); n < 4 {
				t.Fatalf("%d marked processes running, want 4: the test cannot see them", n)
			}
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			go io.Copy(io.Discard, stdout)
			_ = cmd.Wait()
			// Killing the namespace's first process kills the rest at
			// once; give the kernel a moment to reap them.
			deadline := time.Now().Add(5 * time.Second)
			for countProcs(marker) > 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if pids := markedProcs(marker); len(pids) > 0 {
				t.Errorf("%d processes outlived the kill", len(pids))
				for _, pid := range pids { // the test's own, by id
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
}

func countProcs(marker string) int { return len(markedProcs(marker)) }

// markedProcs returns the live processes whose command line holds marker.
func markedProcs(marker string) []int {
	var pids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		cmdline, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join(d, "stat"))
		if strings.Contains(string(stat), ") Z ") {
			continue // a zombie is dead
		}
		if strings.Contains(strings.ReplaceAll(string(cmdline), "\x00", " "), "sleep "+marker) {
			var pid int
			fmt.Sscan(filepath.Base(d), &pid)
			pids = append(pids, pid)
		}
	}
	return pids
}

func settings0() settings.Sandbox { return settings.Sandbox{} }

// TestNestedRepository checks that the config of a repository nested in
// the workspace (or a bare one) is replaced as the root's is.
func TestNestedRepository(t *testing.T) {
	requireBwrap(t)
	ws := t.TempDir()
	for _, dir := range []string{"nested", "bare.git"} {
		args := []string{"init", "-q", dir}
		if dir == "bare.git" {
			args = []string{"init", "-q", "--bare", dir}
		}
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
	}
	writeFiles(t, ws, map[string]string{"nested/a.txt": "a\n", "nested/.gitattributes": "*.txt filter=evil\n"})
	evil := "\tfsmonitor = touch " + ws + "/canary-fsmonitor\n[filter \"evil\"]\n\tclean = touch " + ws + "/canary-clean\n\tprocess = touch " + ws + "/canary-process\n"
	for _, cfg := range []string{"nested/.git/config", "bare.git/config"} {
		f, err := os.OpenFile(filepath.Join(ws, cfg), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("[core]\n" + evil)
		f.Close()
	}
	c := confiner(t, ws)
	out, _ := runConfined(t, c, Options{Writable: true}, ws, "cd nested && git add a.txt && git status; cd ../bare.git && git --git-dir=. log; git log; true")
	if matches, _ := filepath.Glob(filepath.Join(ws, "canary-*")); len(matches) > 0 {
		t.Errorf("a nested repository's programs ran: %v\n%s", matches, out)
	}
	if !strings.Contains(out, "new file:   a.txt") {
		t.Errorf("git in the nested repository did not work:\n%s", out)
	}
}

// TestConfinerWithoutBwrap checks what is left without bubblewrap: a
// warning for the user, and an environment built from the allowlist.
func TestConfinerWithoutBwrap(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("AGENT_LSP_TEST_API_KEY", "sk-leaked-key")
	c, warning := newConfiner([]string{ws}, "", "bubblewrap (bwrap) is not installed")
	if c.Available() || !strings.Contains(warning, "only a short list") || !strings.Contains(warning, "apt-get install bubblewrap") {
		t.Errorf("Available %v, warning %q", c.Available(), warning)
	}
	argv, release, err := c.Wrap([]string{"bash", "-c", "env"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = ws
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "sk-leaked-key") || !strings.Contains(string(out), "GIT_CONFIG_KEY_0=core.fsmonitor") {
		t.Errorf("env without bubblewrap: %v\n%s", err, out)
	}
	if got := c.Contain([]string{"true"}); len(got) != 1 {
		t.Errorf("Contain without bubblewrap = %q", got)
	}
}

// TestDeniedFileInGit checks that a file a Read deny rule covers cannot be
// read through git's objects when the repository holds it.
func TestDeniedFileInGit(t *testing.T) {
	requireBwrap(t)
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{".env": "TOKEN=git-secret\n", "a.txt": "a\n"})
	out := mustOutput(t, ws, "git init -q . && git add a.txt && git -c user.name=a -c user.email=b commit -qm one && git rev-parse HEAD:a.txt")
	deny := []string{filepath.ToSlash(ws) + "/**/.env"}
	c := confiner(t, ws)
	if c.HidesGit(deny) {
		t.Fatal("HidesGit with no denied file in the repository")
	}
	if got, _ := runConfined(t, c, Options{Deny: deny}, ws, "git cat-file -p "+strings.TrimSpace(out)); got != "a\n" {
		t.Errorf("git without a denied file in it: %q", got)
	}

	mustOutput(t, ws, "git add -f .env && git -c user.name=a -c user.email=b commit -qm two")
	c.Invalidate()
	if !c.HidesGit(deny) {
		t.Fatal("HidesGit is false with .env committed")
	}
	script := "git show HEAD:.env; git log -p; git cat-file --batch-all-objects --batch; find .git/objects -type f -exec cat {} + | python3 -c 'import sys,zlib; print(zlib.decompress(sys.stdin.buffer.read()))'"
	if got, _ := runConfined(t, c, Options{Deny: deny}, ws, script); strings.Contains(got, "git-secret") {
		t.Errorf("the denied file was read through git's objects:\n%s", got)
	}
}

// TestSubmoduleWithoutDeniedFile: a submodule's git directory under
// .git/modules is judged by its own work tree, so a deny rule that matches
// nothing in it leaves git usable.
func TestSubmoduleWithoutDeniedFile(t *testing.T) {
	requireBwrap(t)
	base := t.TempDir()
	lib, ws := filepath.Join(base, "lib"), filepath.Join(base, "ws")
	writeFiles(t, lib, map[string]string{"lib.go": "package lib\n"})
	writeFiles(t, ws, map[string]string{"main.go": "package main\n", ".env": "TOKEN=x\n"})
	mustOutput(t, lib, "git init -q . && git add . && git -c user.name=a -c user.email=b commit -qm lib")
	mustOutput(t, ws, "git init -q . && git add main.go && git -c protocol.file.allow=always submodule --quiet add "+lib+" lib && git -c user.name=a -c user.email=b commit -qm ws")
	if _, err := os.Stat(filepath.Join(ws, ".git/modules/lib/config")); err != nil {
		t.Fatalf("no submodule git directory: %v", err)
	}
	c := confiner(t, ws)
	if deny := []string{filepath.ToSlash(ws) + "/**/.env"}; c.HidesGit(deny) {
		t.Error("HidesGit with no denied file in any repository")
	}
}

// TestProtectedGitDirElsewhere: a repository's git directory need not be
// .git. A .git file saying "gitdir: realgit" puts config and hooks in
// realgit/, and .git/commondir moves where git reads its config from.
// Both stayed writable in the sandboxes where the workspace is, so a
// command could plant a hook for the user's next approved git commit.
func TestProtectedGitDirElsewhere(t *testing.T) {
	const config = "[core]\n\trepositoryformatversion = 0\n"
	for _, l := range []struct {
		name    string
		files   map[string]string
		attacks []string
		absent  []string // must not exist on the host after an attack
		link    string   // when set, .git is a link to this folder
	}{
		{"gitdir file",
			map[string]string{".git": "gitdir: realgit\n", "realgit/HEAD": "ref: refs/heads/main\n", "realgit/config": config, "realgit/objects/.keep": "", "realgit/refs/.keep": ""},
			[]string{
				"mkdir -p realgit/hooks && echo 'touch /tmp/pwned' > realgit/hooks/pre-commit",
				"printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> realgit/config",
				"rm -f realgit/config; echo '[core]' > realgit/config",
				"mkdir -p realgit/info && echo '* diff=x' > realgit/info/attributes",
				"echo ../evil > realgit/commondir",
				"echo 'gitdir: evil' > .git",
				"rm -f .git; echo 'gitdir: evil' > .git",
			},
			[]string{"realgit/hooks", "realgit/info", "realgit/commondir"}, ""},
		{"git link",
			map[string]string{"realgit/HEAD": "ref: refs/heads/main\n", "realgit/config": config},
			[]string{
				"mkdir -p .git/hooks && echo 'touch /tmp/pwned' > .git/hooks/pre-commit",
				"printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> realgit/config",
			},
			[]string{"realgit/hooks"}, "realgit"},
		{"gitdir file outside",
			map[string]string{".git": "gitdir: /nonexistent/elsewhere\n"},
			[]string{"echo 'gitdir: evil' > .git", "rm -f .git; echo 'gitdir: evil' > .git"},
			nil, ""},
		{"commondir",
			map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/config": config},
			[]string{
				"mkdir -p evil && printf '[core]\\n\\tpager = touch pwned\\n' > evil/config && echo ../evil > .git/commondir",
				"rm -f .git/commondir; echo ../evil > .git/commondir",
			},
			[]string{".git/commondir"}, ""},
	} {
		ws := t.TempDir()
		writeFiles(t, ws, l.files)
		if l.link != "" {
			if err := os.Symlink(l.link, filepath.Join(ws, ".git")); err != nil {
				t.Fatal(err)
			}
		}
		c := confiner(t, ws)
		sb := usable(t, settings0(), ws)
		if l.link != "" {
			// A .git link could itself be replaced: the writable
			// sandboxes refuse to run (and the gate asks instead).
			if argv, _, err := c.Wrap([]string{"true"}, Options{Writable: true}); err == nil {
				t.Errorf("%s: the confined writable sandbox runs with a .git link: %q", l.name, argv)
			}
			if argv, _, err := sb.Wrap([]string{"true"}); err == nil {
				t.Errorf("%s: the configured sandbox runs with a .git link: %q", l.name, argv)
			}
			if got := LinkedProtectedPath([]string{ws}); got != filepath.Join(ws, ".git") {
				t.Errorf("%s: LinkedProtectedPath = %q, want the .git link", l.name, got)
			}
			continue
		}
		runners := map[string]func(script string) (string, error){
			"confined writable":  func(script string) (string, error) { return runConfined(t, c, Options{Writable: true}, ws, script) },
			"configured sandbox": func(script string) (string, error) { return run(t, sb, ws, script) },
		}
		for rname, runScript := range runners {
			for i, script := range l.attacks {
				t.Run(fmt.Sprintf("%s/%s/%d", l.name, rname, i), func(t *testing.T) {
					out, _ := runScript(script)
					for _, p := range l.absent {
						if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
							t.Errorf("%s exists on the host after %q:\n%s", p, script, out)
						}
					}
					for p, want := range map[string]string{"realgit/config": config, ".git/config": config, ".git": l.files[".git"]} {
						if fi, err := os.Lstat(filepath.Join(ws, p)); err != nil || !fi.Mode().IsRegular() {
							continue
						}
						if data, err := os.ReadFile(filepath.Join(ws, p)); err == nil && string(data) != want {
							t.Errorf("%s changed by %q: %q\n%s", p, script, data, out)
						}
					}
				})
			}
		}
	}
}

// TestEditDenyReadOnly: what the Edit deny rules cover (Options.ReadOnly)
// stays read-only in the writable profiles, whoever writes it: a
// redirect, a script the command runs, a rename, a removal. The rest of
// the workspace stays writable.
func TestEditDenyReadOnly(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		".env": "KEY=1\n", "secrets/key.pem": "pem\n", "config/prod.yaml": "prod\n",
		"build.sh": "echo pwned > secrets/key.pem; echo pwned > .env\n",
	})
	c := confiner(t, ws)
	ro := []string{filepath.ToSlash(ws) + "/.env", filepath.ToSlash(ws) + "/secrets", filepath.ToSlash(ws) + "/config/*.yaml"}
	want := map[string]string{".env": "KEY=1\n", "secrets/key.pem": "pem\n", "config/prod.yaml": "prod\n"}
	attacks := map[string]string{
		"redirect":        "echo pwned > .env",
		"a script":        "sh build.sh",
		"a file in a dir": "echo pwned > secrets/key.pem; echo new > secrets/new",
		"a glob's match":  "echo pwned > config/prod.yaml",
		"rename over":     "echo pwned > x && mv -f x .env",
		"remove":          "rm -rf secrets .env config/prod.yaml",
		"rename the dir":  "mv secrets s2 && mkdir secrets && echo pwned > secrets/key.pem",
		"sed -i":          "sed -i s/pem/pwned/ secrets/key.pem",
	}
	for _, o := range []Options{{Writable: true, ReadOnly: ro}, {Rule: true, ReadOnly: ro}} {
		name := "workspace"
		if o.Rule {
			name = "rule"
		}
		for aname, script := range attacks {
			t.Run(name+"/"+aname, func(t *testing.T) {
				out, _ := runConfined(t, c, o, ws, script)
				for p, content := range want {
					if data, err := os.ReadFile(filepath.Join(ws, p)); err != nil || string(data) != content {
						t.Errorf("%s = %q (%v) after %q, want it unchanged\n%s", p, data, err, script, out)
					}
				}
				for _, p := range []string{"secrets/new", "s2"} {
					if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
						t.Errorf("%s exists after %q\n%s", p, script, out)
					}
				}
				os.Remove(filepath.Join(ws, "x"))
			})
		}
		t.Run(name+"/the rest is writable", func(t *testing.T) {
			if out, err := runConfined(t, c, o, ws, "echo ok > config/dev.json && echo ok > top.txt && rm top.txt"); err != nil {
				t.Errorf("writing the workspace failed: %v\n%s", err, out)
			}
		})
	}
	// Without the patterns, the same script writes: the test sees a write.
	if out, err := runConfined(t, c, Options{Writable: true}, ws, "echo changed > config/prod.yaml"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "config/prod.yaml")); string(data) != "changed\n" {
		t.Errorf("without ReadOnly, config/prod.yaml = %q, want it written", data)
	}
}

// TestHardLinksHidden: files, not names. A workspace name that is a hard
// link to a file outside the workspace, or to a file a Read deny rule
// covers, is hidden in every profile like the file itself; a link among
// the workspace's own names, and a package manager's link into
// node_modules, stay readable.
func TestHardLinksHidden(t *testing.T) {
	base := t.TempDir()
	ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	writeFiles(t, ws, map[string]string{".env": "DENIED\n", "a.txt": "SHARED\n"})
	writeFiles(t, outside, map[string]string{"secret.txt": "OUTSIDE\n", "store/pkg.js": "PACKAGE\n"})
	for _, l := range [][2]string{
		{filepath.Join(outside, "secret.txt"), filepath.Join(ws, "notes.txt")},
		{filepath.Join(ws, ".env"), filepath.Join(ws, "copy.txt")},
		{filepath.Join(ws, "a.txt"), filepath.Join(ws, "b.txt")},
	} {
		if err := os.Link(l[0], l[1]); err != nil {
			t.Skipf("hard links: %v", err)
		}
	}
	if err := os.MkdirAll(filepath.Join(ws, "node_modules/pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(outside, "store/pkg.js"), filepath.Join(ws, "node_modules/pkg/index.js")); err != nil {
		t.Fatal(err)
	}
	c := confiner(t, ws)
	deny := []string{filepath.ToSlash(ws) + "/.env"}
	for _, o := range []Options{{Deny: deny}, {Writable: true, Deny: deny}, {Rule: true, Deny: deny}} {
		out, err := runConfined(t, c, o, ws, "for f in notes.txt copy.txt b.txt node_modules/pkg/index.js; do cat $f; done 2>&1; exit 0")
		if err != nil {
			t.Fatalf("%+v: %v\n%s", o, err, out)
		}
		if strings.Contains(out, "OUTSIDE") || strings.Contains(out, "DENIED") {
			t.Errorf("%+v: a hard link showed the file it names: %q", o, out)
		}
		if !strings.Contains(out, "SHARED") || !strings.Contains(out, "PACKAGE") {
			t.Errorf("%+v: the workspace's own link or node_modules' was hidden: %q", o, out)
		}
	}
}
