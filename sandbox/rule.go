package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/pathres"
)

// homeSecrets are the files and folders under the user's home that no
// sandbox shows when a workspace root is the home itself (the workspace
// then shows the home, which is otherwise an empty folder): credentials of ssh, gpg, clouds, registries, package managers and
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
	for _, kv := range gitEnv(extra...) {
		if !strings.HasPrefix(kv, "GIT_CONFIG_GLOBAL=") {
			env = append(env, kv)
		}
	}
	return env
}

// secretPaths returns the paths to hide under home when the home is a
// workspace root: each of homeSecrets that exists, and, for one that is a
// symlink, what it points to.
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
