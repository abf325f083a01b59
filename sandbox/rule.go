package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/pathres"
)

// homeSecrets are the files and folders under the user's home that a
// command allowed by a rule does not see, though it sees the rest of the
// home: credentials of ssh, gpg, clouds, registries, package managers and
// git hosts; Claude Code's and agent-lsp's own credentials and session
// transcripts; browser profiles; keyrings and password stores; shell
// histories.
var homeSecrets = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".config/gh", ".config/hub", ".netrc", ".git-credentials",
	".config/git/credentials", ".docker/config.json", ".kube", ".claude.json", ".claude", ".config/claude",
	".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc", ".config/pip/pip.conf", ".gem/credentials", ".cargo/credentials",
	".cargo/credentials.toml", ".m2/settings.xml", ".m2/settings-security.xml", ".gradle/gradle.properties",
	".terraform.d/credentials.tfrc.json", ".vault-token", ".config/op", ".password-store", ".local/share/keyrings",
	".pki", ".mozilla", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware", ".config/microsoft-edge",
	".config/vivaldi", ".config/opera", "snap/firefox", "snap/chromium", ".thunderbird", ".config/agent-lsp",
	".local/share/agent-lsp", ".local/state/agent-lsp", ".config/openai", ".codex", ".bash_history", ".zsh_history",
	".python_history", ".node_repl_history", ".psql_history", ".mysql_history", ".lesshst", ".viminfo", ".config/rclone",
	".s3cfg", ".boto", ".config/doctl", ".oci", ".config/heroku", ".config/netlify", ".config/vercel", ".fly",
	".config/configstore", ".wrangler", ".config/sops", ".config/age",
	// Database, container-registry and other tools' credentials, more
	// histories.
	".pgpass", ".my.cnf", ".mylogin.cnf", ".config/containers/auth.json", ".config/glab-cli",
	".config/github-copilot", ".gemini", ".local/share/fish/fish_history", ".sqlite_history", ".irb_history",
	".rediscli_history", ".docker/contexts",
	// Sockets of container engines and editors under the home: a
	// read-only mount does not stop connect(), and a network namespace
	// does not separate sockets in the filesystem (Docker Desktop's
	// socket is root on the host; an Emacs server evaluates what it is
	// sent).
	".docker/run", ".docker/desktop", ".colima", ".lima", ".rd", ".orbstack",
	".local/share/containers/podman/machine", ".emacs.d/server", ".config/emacs/server",
}

// secretEnvPrefixes and secretEnv are the sidecar's own secrets and
// settings in the environment: its model providers' keys and endpoints
// (ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, OPENAI_API_KEY, ...), Claude
// Code's OAuth token, and agent-lsp's switches. A command allowed by a
// rule gets the rest of the user's environment. (An apiKeyHelper's output
// never is in the environment: the sidecar holds it in memory, which the
// sandbox's PID namespace keeps out of reach.) The agents' sockets go
// too: the sandbox hides /run and /tmp, where they live.
var (
	secretEnvPrefixes = []string{"ANTHROPIC_", "OPENAI_", "CLAUDE_CODE_", "AGENT_LSP_", "GIT_", "AWS_BEARER_TOKEN_"}
	secretEnv         = []string{"SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "BASH_ENV", "ENV"}
)

// ruleEnv is the environment of a command allowed by a rule: the
// sidecar's, without its secrets, with git hardened (the user's global git
// config stays: it is theirs, and it names who commits) and no pager.
func ruleEnv(extra ...[2]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains(secretEnv, k) || slices.ContainsFunc(secretEnvPrefixes, func(p string) bool { return strings.HasPrefix(k, p) }) {
			continue
		}
		switch k {
		case "TMPDIR", "PAGER":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "TMPDIR=/tmp", "PAGER=cat")
	for _, kv := range GitEnv(extra...) {
		if !strings.HasPrefix(kv, "GIT_CONFIG_GLOBAL=") {
			env = append(env, kv)
		}
	}
	return env
}

// ruleHome returns the user's home directory, symlinks resolved, or "".
func ruleHome() string {
	h, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(h) {
		return ""
	}
	if real, err := pathres.Resolve("/", h); err == nil && exists(real) {
		return real
	}
	return ""
}

// secretPaths returns the paths to hide under home: each of homeSecrets
// that exists, and, for one that is a symlink, what it points to.
func secretPaths(home string) []string {
	if home == "" || home == "/" {
		home = "/nonexistent"
	}
	var out []string
	paths := make([]string, 0, len(homeSecrets)+4)
	for _, rel := range homeSecrets {
		paths = append(paths, filepath.Join(home, rel))
	}
	// The same folders where the environment moves them: Claude Code's
	// configuration, agent-lsp's sessions and settings.
	for _, kv := range [][2]string{{"CLAUDE_CONFIG_DIR", ""}, {"XDG_STATE_HOME", "agent-lsp"}, {"XDG_CONFIG_HOME", "agent-lsp"}, {"XDG_DATA_HOME", "agent-lsp"}, {"XDG_CONFIG_HOME", "gh"}, {"XDG_CONFIG_HOME", "gcloud"}} {
		if d := os.Getenv(kv[0]); filepath.IsAbs(d) {
			paths = append(paths, filepath.Join(d, kv[1]))
		}
	}
	for _, p := range paths {
		if !exists(p) {
			continue
		}
		out = append(out, p)
		if real, err := pathres.Resolve("/", p); err == nil && real != p {
			out = append(out, real)
		}
	}
	return out
}

// outsideDeny returns what to hide for the Read deny patterns that can
// match outside the workspace roots, where a command allowed by a rule
// sees the host's files: a literal path itself (its target too, when it
// is a symlink), a pattern's leading literal folder as a whole (more than
// the rule says, never less). A pattern whose leading folder holds the
// home or a workspace root (or is "/") cannot be hidden that way: the
// command must not run.
func (c *Confiner) outsideDeny(patterns []string, home string) ([]string, error) {
	var out []string
	for _, pat := range patterns {
		base, literal := globBase(pat)
		if (literal && c.visible(base)) || (!literal && c.insideRoots(base)) {
			continue // the scan of the roots finds its matches
		}
		if !literal {
			above := base == "/" || (home != "" && within(base, home))
			for _, r := range c.roots {
				above = above || within(base, r)
			}
			if above {
				return nil, fmt.Errorf("sandbox: the Read deny rule pattern %q reaches into folders that a command allowed by a rule sees, and cannot be hidden from it; the command needs approval to run", pat)
			}
		}
		out = append(out, base)
		if real, err := pathres.Resolve("/", base); err == nil && real != base {
			out = append(out, real)
		}
	}
	return out, nil
}

// insideRoots reports whether p is in a root.
func (c *Confiner) insideRoots(p string) bool {
	for _, r := range c.roots {
		if within(r, p) {
			return true
		}
	}
	return false
}

// ruleArgs returns the bwrap arguments, up to the mounts of the
// workspace, of a command allowed by a rule: the host's filesystem
// read-only, a private /tmp, /run hidden (the sockets of agents and
// daemons live there: a read-only mount does not stop connecting to a
// socket), the home readable (even when it is under /tmp), the network
// when o.Network.
func (c *Confiner) ruleArgs(o Options, home string) []string {
	args := append(kernelArgs(c.bwrap), "--new-session", "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try")
	args = append(args, dropCaps()...)
	if !o.Network {
		args = append(args, "--unshare-net")
	}
	args = append(args, "--clearenv")
	args = append(args, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run")
	if fi, err := os.Lstat("/var/run"); err == nil && fi.IsDir() {
		// Older systems keep /var/run as a folder of its own, not a
		// link to /run: its sockets (docker.sock) go too.
		args = append(args, "--tmpfs", "/var/run")
	}
	if o.Network && exists("/run/systemd/resolve") {
		// /etc/resolv.conf often points there.
		args = append(args, "--ro-bind", "/run/systemd/resolve", "/run/systemd/resolve")
	}
	if home != "" && home != "/" {
		if fi, err := os.Stat(home); err == nil && fi.IsDir() {
			args = append(args, "--ro-bind", home, home)
		}
	}
	return args
}
