package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// persistMu serializes read-modify-write cycles of settings files within
// the process.
var persistMu sync.Mutex

// AddLocalRule appends rule to the permissions list ("allow", "deny" or
// "ask") of the project's .claude/settings.local.json, creating the file
// when needed. Every other key, and the order of keys, is kept. A rule
// already in the list is not added twice. A file that is not valid JSON is
// left alone and reported as an error.
func AddLocalRule(project, list, rule string) error {
	switch list {
	case "allow", "deny", "ask":
	default:
		return fmt.Errorf("adding rule %q: unknown permission list %q", rule, list)
	}
	path := LocalPath(project)
	persistMu.Lock()
	defer persistMu.Unlock()

	data, err := ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("adding rule %q to %s: %w", rule, path, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	if !json.Valid(data) {
		return fmt.Errorf("adding rule %q to %s: the file is not valid JSON; fix it first", rule, path)
	}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		return fmt.Errorf("adding rule %q to %s: the file is not a JSON object", rule, path)
	}
	perms := root.Get("permissions")
	if perms.Exists() && !perms.IsObject() {
		return fmt.Errorf("adding rule %q to %s: \"permissions\" is not an object", rule, path)
	}
	existing := perms.Get(list)
	if existing.Exists() && !existing.IsArray() {
		return fmt.Errorf("adding rule %q to %s: \"permissions.%s\" is not an array", rule, path, list)
	}
	for _, r := range existing.Array() {
		if r.String() == rule {
			return nil
		}
	}
	out, err := sjson.SetBytes(data, "permissions."+list+".-1", rule)
	if err != nil {
		return fmt.Errorf("adding rule %q to %s: %w", rule, path, err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, out, "", "  "); err != nil {
		return fmt.Errorf("adding rule %q to %s: %w", rule, path, err)
	}
	pretty.WriteByte('\n')
	return writeAtomic(path, pretty.Bytes())
}

// RemoveLocalRule takes rule out of every permissions list ("allow",
// "deny", "ask") of the project's .claude/settings.local.json, keeping
// every other key. It reports whether the file held the rule; a missing
// file holds none, and a file that is not valid JSON is left alone and
// reported as an error.
func RemoveLocalRule(project, rule string) (bool, error) {
	path := LocalPath(project)
	persistMu.Lock()
	defer persistMu.Unlock()
	data, err := ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("removing rule %q from %s: %w", rule, path, err)
	}
	if !json.Valid(data) || !gjson.ParseBytes(data).IsObject() {
		return false, fmt.Errorf("removing rule %q from %s: the file is not a JSON object; fix it first", rule, path)
	}
	removed := false
	for _, list := range []string{"allow", "deny", "ask"} {
		rules := gjson.GetBytes(data, "permissions."+list)
		if !rules.IsArray() {
			continue
		}
		// From the last match back, so earlier indexes stay valid.
		arr := rules.Array()
		for i := len(arr) - 1; i >= 0; i-- {
			if arr[i].String() != rule {
				continue
			}
			if data, err = sjson.DeleteBytes(data, fmt.Sprintf("permissions.%s.%d", list, i)); err != nil {
				return false, fmt.Errorf("removing rule %q from %s: %w", rule, path, err)
			}
			removed = true
		}
	}
	if !removed {
		return false, nil
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, data, "", "  "); err != nil {
		return false, fmt.Errorf("removing rule %q from %s: %w", rule, path, err)
	}
	pretty.WriteByte('\n')
	return true, writeAtomic(path, pretty.Bytes())
}

// writeAtomic replaces path's content through a temporary file and a
// rename, so readers (and the Watcher) never see half a file.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// AddLocalAllowedDomain appends host to sandbox.network.allowedDomains
// in the project's .claude/settings.local.json (see AddLocalEntry).
func AddLocalAllowedDomain(project, host string) error {
	if host == "" || host == "*" {
		return fmt.Errorf("adding %q to sandbox.network.allowedDomains: name one host", host)
	}
	return AddLocalEntry(project, "sandbox.network.allowedDomains", host)
}

// AddLocalEntry appends value to the list at the dotted key of the
// project's .claude/settings.local.json, creating the file and the
// objects on the way when needed, as AddLocalRule does for rules: every
// other key is kept, a value already listed is not added twice, a file
// that is not valid JSON is left alone. It refuses to write through a
// .claude folder or a file that is a link: a repository chooses those,
// and the user's answer must not land outside the project.
func AddLocalEntry(project, key, value string) error {
	return editLocal(project, key, value, func(data []byte) ([]byte, error) {
		existing := gjson.GetBytes(data, key)
		if existing.Exists() && !existing.IsArray() {
			return nil, fmt.Errorf("%q is not an array", key)
		}
		for _, h := range existing.Array() {
			if h.String() == value {
				return data, nil
			}
		}
		return sjson.SetBytes(data, key+".-1", value)
	})
}

// SetLocalTrue sets the dotted key of the project's
// .claude/settings.local.json to true, as AddLocalEntry edits the file.
func SetLocalTrue(project, key string) error {
	return editLocal(project, key, "true", func(data []byte) ([]byte, error) {
		return sjson.SetBytes(data, key, true)
	})
}

// CheckLocalNotLinked refuses the project's .claude/settings.local.json
// when it, or its .claude folder, is a link: a repository chooses those,
// and what the user saves must not land outside the project.
func CheckLocalNotLinked(project string) error {
	path := LocalPath(project)
	for _, p := range []string{filepath.Dir(path), path} {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a link, which may lead outside the project", p)
		}
	}
	return nil
}

// editLocal applies edit to the project's .claude/settings.local.json
// (what says what is being saved, for errors).
func editLocal(project, key, what string, edit func([]byte) ([]byte, error)) error {
	path := LocalPath(project)
	if err := CheckLocalNotLinked(project); err != nil {
		return fmt.Errorf("not saving %q to %s: %w", what, path, err)
	}
	persistMu.Lock()
	defer persistMu.Unlock()
	data, err := ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("saving %q in %s: %w", what, path, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	if !json.Valid(data) || !gjson.ParseBytes(data).IsObject() {
		return fmt.Errorf("saving %q in %s: the file is not a JSON object; fix it first", what, path)
	}
	parts := strings.Split(key, ".")
	for i := 1; i < len(parts); i++ {
		k := strings.Join(parts[:i], ".")
		if v := gjson.GetBytes(data, k); v.Exists() && !v.IsObject() {
			return fmt.Errorf("saving %q in %s: %q is not an object", what, path, k)
		}
	}
	out, err := edit(data)
	if err != nil {
		return fmt.Errorf("saving %q in %s: %w", what, path, err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, out, "", "  "); err != nil {
		return fmt.Errorf("saving %q in %s: %w", what, path, err)
	}
	pretty.WriteByte('\n')
	return writeAtomic(path, pretty.Bytes())
}
