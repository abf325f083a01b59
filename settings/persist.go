package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
