package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/pathres"
)

// systemDirs are the host folders every sandbox sees, read-only:
// programs, libraries and the system's configuration. A symlink among
// them (merged /usr) is recreated as a symlink. /nix/store holds the
// programs of Nix users.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/etc", "/nix/store"}

// etcSecrets are files and folders under /etc that no sandbox shows:
// password hashes, host keys, private keys, credentials.
var etcSecrets = []string{
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers", "/etc/sudoers.d",
	"/etc/ssh", "/etc/ssl/private", "/etc/security/opasswd", "/etc/wireguard", "/etc/NetworkManager/system-connections",
	"/etc/letsencrypt", "/etc/docker", "/etc/machine-id", "/etc/krb5.keytab", "/etc/git-credentials",
	"/etc/claude-code", "/etc/pki/tls/private", "/etc/ipsec.secrets", "/etc/ppp/chap-secrets", "/etc/ppp/pap-secrets",
}

// toolchainVars are the environment variables that say where toolchains
// keep their programs and caches. They are paths, not secrets: the
// confined sandbox passes them on, so that a toolchain looks where its
// folder was granted.
var toolchainVars = []string{
	"GOROOT", "GOPATH", "GOMODCACHE", "GOCACHE", "GOENV",
	"CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN",
	"NVM_DIR", "VOLTA_HOME", "PNPM_HOME", "npm_config_cache", "NPM_CONFIG_CACHE", "YARN_CACHE_FOLDER",
	"PIP_CACHE_DIR", "UV_CACHE_DIR", "UV_PYTHON_INSTALL_DIR", "PYENV_ROOT",
	"GRADLE_USER_HOME", "JAVA_HOME", "SDKMAN_DIR", "MAVEN_HOME",
}

// toolchainFolders returns the folders that toolchains keep their
// programs and caches in, granted read-only to every sandbox (the
// settings' sandbox.filesystem.allowWrite makes one writable): Go
// (GOROOT, GOPATH, GOMODCACHE, GOCACHE, as `go env` says), cargo and
// rustup (CARGO_HOME, RUSTUP_HOME), Node (NVM_DIR, VOLTA_HOME, the npm,
// pnpm and yarn caches and stores), Python (the pip and uv caches, uv's
// Pythons, PYENV_ROOT), Java (Maven's local repository, Gradle's caches
// and wrapper, SDKMAN_DIR), each where its variable moves it, and the
// folders of PATH outside the system's (~/.local/bin, ~/bin, ...). What
// holds credentials in them (cargo's credentials, Maven's settings.xml,
// gradle.properties) is left out: only the subfolders that hold none
// are granted, or the credential files are masked (toolchainSecrets).
// Only folders that exist are returned, symlinks resolved.
func toolchainFolders(home string) []string {
	env := func(name, def string) string {
		if v := os.Getenv(name); filepath.IsAbs(v) {
			return filepath.Clean(v)
		}
		if def == "" || home == "" {
			return ""
		}
		return filepath.Join(home, def)
	}
	xdg := func(name, def, sub string) string {
		if v := os.Getenv(name); filepath.IsAbs(v) {
			return filepath.Join(v, sub)
		}
		if home == "" {
			return ""
		}
		return filepath.Join(home, def, sub)
	}
	cache := func(sub string) string { return xdg("XDG_CACHE_HOME", ".cache", sub) }
	data := func(sub string) string { return xdg("XDG_DATA_HOME", ".local/share", sub) }
	gradle := env("GRADLE_USER_HOME", ".gradle")
	npmCache := env("npm_config_cache", "")
	if npmCache == "" {
		npmCache = env("NPM_CONFIG_CACHE", ".npm")
	}
	dirs := goFolders(home)
	dirs = append(dirs,
		env("CARGO_HOME", ".cargo"), env("RUSTUP_HOME", ".rustup"),
		env("NVM_DIR", ".nvm"), env("VOLTA_HOME", ".volta"), env("PNPM_HOME", ""), data("pnpm"), cache("pnpm"),
		npmCache, env("YARN_CACHE_FOLDER", ""), cache("yarn"), filepath.Join(home, ".yarn", "berry", "cache"),
		env("PIP_CACHE_DIR", ""), cache("pip"), env("UV_CACHE_DIR", ""), cache("uv"), env("UV_PYTHON_INSTALL_DIR", ""), data("uv"),
		env("PYENV_ROOT", ".pyenv"),
		filepath.Join(home, ".m2", "repository"), filepath.Join(gradle, "caches"), filepath.Join(gradle, "wrapper"),
		env("SDKMAN_DIR", ".sdkman"),
	)
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if !filepath.IsAbs(d) || slices.ContainsFunc(notGrantable, func(r string) bool { return within(r, filepath.Clean(d)) }) {
			continue // a private or system folder already, or the kernel's
		}
		dirs = append(dirs, filepath.Clean(d))
	}
	var out []string
	for _, d := range dirs {
		if d == "" || !filepath.IsAbs(d) || d == "/" || (home != "" && within(d, home)) ||
			slices.ContainsFunc(notGrantable[1:], func(r string) bool { return within(r, d) }) {
			continue // never the home itself, or what holds it
		}
		real, err := pathres.Resolve("/", d)
		if err != nil || real == "/" || (home != "" && within(real, home)) ||
			slices.ContainsFunc(notGrantable[1:], func(r string) bool { return within(r, real) }) {
			continue
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() || slices.Contains(out, real) {
			continue
		}
		out = append(out, real)
	}
	return out
}

// notGrantable are folders whose insides PATH may name but that are
// never granted: the private /tmp (first: a toolchain folder may be
// there), the kernel's and daemons' (sockets, processes) and the
// system's (visible already).
var notGrantable = append([]string{"/tmp", "/run", "/var/run", "/proc", "/sys", "/dev"}, systemDirs...)

// toolchainSecrets are credential files inside granted toolchain
// folders, masked in every sandbox.
var toolchainSecrets = []string{"credentials", "credentials.toml"}

// goFolders returns where Go keeps its programs and caches: GOROOT
// (the folder above the bin holding the go on PATH), the GOPATH entries,
// GOMODCACHE and GOCACHE, from the environment, else from Go's
// environment file (go env -w writes it), else their defaults. It does
// not run go, which would write its telemetry under the home.
func goFolders(home string) []string {
	fileVars := goEnvFile(home)
	get := func(name string) string {
		if v := os.Getenv(name); v != "" {
			return v
		}
		return fileVars[name]
	}
	var dirs []string
	if goroot := get("GOROOT"); goroot != "" {
		dirs = append(dirs, goroot)
	} else if bin, err := exec.LookPath("go"); err == nil {
		if real, err := filepath.EvalSymlinks(bin); err == nil {
			dirs = append(dirs, filepath.Dir(filepath.Dir(real)))
		}
	}
	gopath := filepath.SplitList(get("GOPATH"))
	if len(gopath) == 0 && home != "" {
		gopath = []string{filepath.Join(home, "go")}
	}
	dirs = append(dirs, gopath...)
	if v := get("GOMODCACHE"); v != "" {
		dirs = append(dirs, v)
	} else if len(gopath) > 0 {
		dirs = append(dirs, filepath.Join(gopath[0], "pkg", "mod"))
	}
	switch v := get("GOCACHE"); {
	case v != "" && v != "off":
		dirs = append(dirs, v)
	case v == "" && filepath.IsAbs(os.Getenv("XDG_CACHE_HOME")):
		dirs = append(dirs, filepath.Join(os.Getenv("XDG_CACHE_HOME"), "go-build"))
	case v == "" && home != "":
		dirs = append(dirs, filepath.Join(home, ".cache", "go-build"))
	}
	return dirs
}

// goEnvFile returns the variables of Go's environment file (GOENV, or
// go/env in the user's config folder), which `go env -w` writes.
func goEnvFile(home string) map[string]string {
	path := os.Getenv("GOENV")
	if path == "" {
		cfg := os.Getenv("XDG_CONFIG_HOME")
		if !filepath.IsAbs(cfg) {
			if home == "" {
				return nil
			}
			cfg = filepath.Join(home, ".config")
		}
		path = filepath.Join(cfg, "go", "env")
	}
	if path == "off" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) > 1<<16 {
		return nil
	}
	vars := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			vars[k] = v
		}
	}
	return vars
}

// userHome returns the user's home directory, symlinks resolved, or ""
// when there is none (or it is "/").
func userHome() string {
	h, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(h) {
		return ""
	}
	real, err := pathres.Resolve("/", h)
	if err != nil || real == "/" {
		return ""
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return ""
	}
	return real
}
