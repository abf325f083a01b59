package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// gitConfig returns the configuration every git command run without a
// question gets (diff.external is missing: an empty value breaks every
// diff, and the sanitised copies of the repositories' configs drop it), through GIT_CONFIG_COUNT/GIT_CONFIG_KEY_n/
// GIT_CONFIG_VALUE_n (git 2.31+), which beats every config file: it
// turns off what a repository's .git/config can make git run. Drivers
// named in the repository (diff.<name>.textconv, filter.<name>.*) cannot
// be named here; the confining sandbox replaces .git/config with a
// sanitised copy for them.
func gitConfig() [][2]string {
	return [][2]string{
		{"core.fsmonitor", "false"},
		{"core.pager", "cat"},
		{"core.hooksPath", "/dev/null"},
		{"core.sshCommand", "false"},
		{"core.askPass", ""},
		{"core.editor", "false"},
		{"core.alternateRefsCommand", ""},
		{"core.untrackedCache", "false"},
		{"credential.helper", ""},
		{"protocol.allow", "never"},
		{"protocol.ext.allow", "never"},
		{"protocol.file.allow", "never"},
		{"gpg.program", "false"},
		{"gpg.openpgp.program", "false"},
		{"gpg.ssh.program", "false"},
		{"gpg.x509.program", "false"},
		{"log.showSignature", "false"},
		{"uploadpack.packObjectsHook", ""},
		{"sequence.editor", "false"},
		{"safe.bareRepository", "explicit"},
		{"fetch.negotiationAlgorithm", "noop"},
		{"submodule.recurse", "false"},
	}
}

// gitEnv returns the environment that carries gitConfig and extra, plus
// the variables that keep git from paging, prompting or fetching.
func gitEnv(extra ...[2]string) []string {
	all := append(gitConfig(), extra...)
	env := []string{
		"GIT_CONFIG_COUNT=" + strconv.Itoa(len(all)),
		"GIT_PAGER=cat",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_NO_LAZY_FETCH=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
	}
	for i, kv := range all {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, kv[1]))
	}
	return env
}

// gitKeepRE are the repository config keys the sanitised copy keeps:
// what git needs to read the repository, and nothing that names a
// program, a file to include or a driver.
var gitKeepRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(` +
		`core\.(repositoryformatversion|bare|filemode|symlinks|ignorecase|precomposeunicode|logallrefupdates|autocrlf|eol|safecrlf|sparsecheckout|sparsecheckoutcone|splitindex|checkstat|trustctime|abbrev|quotepath|commentchar|compression|bigfilethreshold)` +
		`|extensions\.[a-z0-9]+` +
		`|index\.(version|sparse)` +
		`|init\.defaultbranch|user\.(name|email)|status\.showuntrackedfiles|diff\.(renames|algorithm)` +
		`|remote\.[^\n]+\.(url|fetch|pushurl|promisor|partialclonefilter)` +
		`|branch\.[^\n]+\.(remote|merge|rebase)` +
		`|submodule\.[^\n]+\.(url|active)` +
		`)$`)
})

// gitCache holds the sanitised copies made so far, by the source file's
// identity.
var gitCache = struct {
	mu    sync.Mutex
	files map[string]string // "path size mtime" -> sanitised copy; guarded by mu
}{files: map[string]string{}}

// sanitizedGitConfig returns a file holding the keys of the repository
// config at path that name no program (see gitKeepRE). The copies live in
// a private directory under the system's temporary directory and are
// named by their content, so they are shared and never go stale.
func sanitizedGitConfig(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	key := fmt.Sprintf("%s %d %d", path, fi.Size(), fi.ModTime().UnixNano())
	gitCache.mu.Lock()
	cached, ok := gitCache.files[key]
	gitCache.mu.Unlock()
	if ok {
		if _, err := os.Stat(cached); err == nil {
			return cached, nil
		}
	}
	out, err := gitList(path, false)
	if err != nil {
		return "", err
	}
	data := renderGitConfig(out)
	sum := sha256.Sum256(data)
	dir, err := privateTempDir()
	if err != nil {
		return "", err
	}
	copyPath := filepath.Join(dir, "gitconfig-"+hex.EncodeToString(sum[:12]))
	if _, err := os.Stat(copyPath); err != nil {
		tmp, err := os.CreateTemp(dir, "gitconfig-*.tmp")
		if err != nil {
			return "", err
		}
		_, werr := tmp.Write(data)
		if cerr := tmp.Close(); werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = os.Rename(tmp.Name(), copyPath)
		}
		if werr != nil {
			os.Remove(tmp.Name())
			return "", fmt.Errorf("writing a sanitised copy of %s: %w", path, werr)
		}
	}
	gitCache.mu.Lock()
	gitCache.files[key] = copyPath
	gitCache.mu.Unlock()
	return copyPath, nil
}

// gitDriverRE matches the config keys of drivers that run programs.
var gitDriverRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(filter|diff|merge)\.(.+)\.(clean|smudge|process|textconv|command|driver)$`)
})

// driverOverrides returns config that turns off the programs that the
// repository config at path names through drivers (filter.<name>.*,
// diff.<name>.textconv and .command, merge.<name>.driver), and
// diff.external: an empty value runs nothing. Where no sanitised copy can
// replace the file (no bubblewrap), these go in the environment instead;
// a diff through an emptied driver then fails instead of running it.
func driverOverrides(path string) [][2]string {
	out, err := gitList(path, true) // what includes name counts too
	if err != nil {
		return nil
	}
	var kv [][2]string
	for _, entry := range bytes.Split(out, []byte{0}) {
		k, _, _ := strings.Cut(string(entry), "\n")
		if gitDriverRE().MatchString(k) || k == "diff.external" {
			kv = append(kv, [2]string{k, ""})
		}
	}
	return kv
}

// gitList returns `git config --list -z` of the config file at path,
// with the files it includes or without. git config --file only parses
// files: it runs nothing they name.
func gitList(path string, includes bool) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	inc := "--no-includes"
	if includes {
		inc = "--includes"
	}
	cmd := exec.CommandContext(ctx, "git", "config", "--file", path, inc, "--list", "-z")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=/nonexistent"}
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return out, nil
}

// renderGitConfig writes the kept entries of `git config --list -z`
// output as a config file.
func renderGitConfig(list []byte) []byte {
	var b bytes.Buffer
	for _, entry := range bytes.Split(list, []byte{0}) {
		if len(entry) == 0 {
			continue
		}
		k, v, hasValue := strings.Cut(string(entry), "\n")
		if !gitKeepRE().MatchString(k) {
			continue
		}
		first, last := strings.IndexByte(k, '.'), strings.LastIndexByte(k, '.')
		section, name := k[:first], k[last+1:]
		if first == last {
			fmt.Fprintf(&b, "[%s]\n", section)
		} else {
			fmt.Fprintf(&b, "[%s %s]\n", section, quoteGit(k[first+1:last]))
		}
		if hasValue {
			fmt.Fprintf(&b, "\t%s = %s\n", name, quoteGit(v))
		} else {
			fmt.Fprintf(&b, "\t%s\n", name)
		}
	}
	return b.Bytes()
}

// quoteGit quotes s as a git config value or subsection name.
func quoteGit(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}

var tempDir = struct {
	once sync.Once
	dir  string
	err  error
}{}

// privateTempDir returns a directory only this user can use, for the
// sanitised git configs.
func privateTempDir() (string, error) {
	tempDir.once.Do(func() {
		d := filepath.Join(os.TempDir(), fmt.Sprintf("agent-lsp-sandbox-%d", os.Getuid()))
		if err := os.Mkdir(d, 0o700); err != nil && !os.IsExist(err) {
			tempDir.err = err
			return
		}
		fi, err := os.Lstat(d)
		if err != nil {
			tempDir.err = err
			return
		}
		if !fi.IsDir() || fi.Mode().Perm() != 0o700 || !ownedByMe(fi) {
			tempDir.err = fmt.Errorf("%s is not a private directory of this user", d)
			return
		}
		tempDir.dir = d
	})
	return tempDir.dir, tempDir.err
}
