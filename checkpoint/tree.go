package checkpoint

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Modes of the entries of a snapshot, as git writes them.
const (
	modeFile    = 0o100644
	modeExec    = 0o100755
	modeSymlink = 0o120000
	modeTree    = 0o40000
)

// entry is one file of a snapshot: its git mode and its blob.
type entry struct {
	mode uint32
	id   oid
}

// treeEntry is one entry of a tree object.
type treeEntry struct {
	name string
	entry
}

func (e treeEntry) isTree() bool { return e.mode == modeTree }

// sortKey is the name git sorts a tree entry by: a tree's with a slash.
func (e treeEntry) sortKey() string {
	if e.isTree() {
		return e.name + "/"
	}
	return e.name
}

// writeTree stores the trees of files (slash-separated paths relative to
// the folder) and returns the root's id.
func (s *objects) writeTree(files map[string]entry) (oid, error) {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return s.writeDir(files, paths, "")
}

// writeDir writes the tree of the sorted paths, all under prefix.
func (s *objects) writeDir(files map[string]entry, paths []string, prefix string) (oid, error) {
	var ents []treeEntry
	for i := 0; i < len(paths); {
		rest := paths[i][len(prefix):]
		slash := strings.IndexByte(rest, '/')
		if slash < 0 {
			ents = append(ents, treeEntry{name: rest, entry: files[paths[i]]})
			i++
			continue
		}
		name := rest[:slash]
		sub := prefix + name + "/"
		j := i
		for j < len(paths) && strings.HasPrefix(paths[j], sub) {
			j++
		}
		id, err := s.writeDir(files, paths[i:j], sub)
		if err != nil {
			return oid{}, err
		}
		ents = append(ents, treeEntry{name: name, entry: entry{mode: modeTree, id: id}})
		i = j
	}
	sort.Slice(ents, func(a, b int) bool { return ents[a].sortKey() < ents[b].sortKey() })
	var buf bytes.Buffer
	for _, e := range ents {
		buf.WriteString(strconv.FormatUint(uint64(e.mode), 8))
		buf.WriteByte(' ')
		buf.WriteString(e.name)
		buf.WriteByte(0)
		buf.Write(e.id[:])
	}
	return s.write("tree", buf.Bytes())
}

// readTree returns the entries of a tree object.
func (s *objects) readTree(id oid) ([]treeEntry, error) {
	data, err := s.readType(id, "tree")
	if err != nil {
		return nil, err
	}
	var ents []treeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+1+len(oid{}) {
			return nil, fmt.Errorf("tree %s is damaged", id)
		}
		mode, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, fmt.Errorf("tree %s is damaged: %w", id, err)
		}
		var e treeEntry
		e.name, e.mode = string(data[sp+1:nul]), uint32(mode)
		copy(e.id[:], data[nul+1:])
		ents = append(ents, e)
		data = data[nul+1+len(oid{}):]
	}
	return ents, nil
}

// diffTrees calls fn for each file that differs between the trees a and
// b (nil where a tree does not have it), skipping subtrees that are the
// same.
func (s *objects) diffTrees(a, b oid, fn func(path string, ea, eb *entry)) error {
	return s.diffDir(a, b, "", fn)
}

func (s *objects) diffDir(a, b oid, prefix string, fn func(path string, ea, eb *entry)) error {
	if a == b {
		return nil
	}
	ents := func(id oid) (map[string]treeEntry, error) {
		m := make(map[string]treeEntry)
		if id == (oid{}) {
			return m, nil
		}
		list, err := s.readTree(id)
		for _, e := range list {
			m[e.name] = e
		}
		return m, err
	}
	ma, err := ents(a)
	if err != nil {
		return err
	}
	mb, err := ents(b)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(ma)+len(mb))
	for n := range ma {
		names = append(names, n)
	}
	for n := range mb {
		if _, ok := ma[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		ea, inA := ma[n]
		eb, inB := mb[n]
		if inA && inB && ea.entry == eb.entry {
			continue
		}
		var subA, subB oid
		var fa, fb *entry
		if inA {
			if ea.isTree() {
				subA = ea.id
			} else {
				fa = &ea.entry
			}
		}
		if inB {
			if eb.isTree() {
				subB = eb.id
			} else {
				fb = &eb.entry
			}
		}
		if fa != nil || fb != nil {
			fn(prefix+n, fa, fb)
		}
		if subA != (oid{}) || subB != (oid{}) {
			if err := s.diffDir(subA, subB, prefix+n+"/", fn); err != nil {
				return err
			}
		}
	}
	return nil
}
