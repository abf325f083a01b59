package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// jnode is a JSON value that keeps its keys' order and, for scalars, its
// exact text, so a document can be changed in one place and written back
// with everything else as it was (a notebook's strings keep their
// escapes, its numbers their digits).
type jnode struct {
	kind byte // '{', '[' or 0 for a scalar
	keys []string
	vals []*jnode
	raw  []byte // a scalar's text
}

// parseJSON parses data, which must be valid JSON, into a tree.
func parseJSON(data []byte) (*jnode, error) {
	if !json.Valid(data) {
		return nil, fmt.Errorf("not valid JSON")
	}
	p := &jparser{data: data}
	return p.value(), nil
}

type jparser struct {
	data []byte
	pos  int
}

func (p *jparser) ws() {
	for p.pos < len(p.data) && strings.IndexByte(" \t\r\n", p.data[p.pos]) >= 0 {
		p.pos++
	}
}

// value parses one value; the input is known to be valid.
func (p *jparser) value() *jnode {
	p.ws()
	switch p.data[p.pos] {
	case '{':
		n := &jnode{kind: '{'}
		p.pos++
		for {
			p.ws()
			if p.data[p.pos] == '}' {
				p.pos++
				return n
			}
			if p.data[p.pos] == ',' {
				p.pos++
				p.ws()
			}
			var key string
			_ = json.Unmarshal(p.str(), &key)
			p.ws()
			p.pos++ // ':'
			n.keys = append(n.keys, key)
			n.vals = append(n.vals, p.value())
		}
	case '[':
		n := &jnode{kind: '['}
		p.pos++
		for {
			p.ws()
			if p.data[p.pos] == ']' {
				p.pos++
				return n
			}
			if p.data[p.pos] == ',' {
				p.pos++
			}
			n.vals = append(n.vals, p.value())
		}
	case '"':
		return &jnode{raw: p.str()}
	}
	start := p.pos
	for p.pos < len(p.data) && strings.IndexByte(",]} \t\r\n", p.data[p.pos]) < 0 {
		p.pos++
	}
	return &jnode{raw: p.data[start:p.pos]}
}

// str returns the text of the string starting at pos, quotes included.
func (p *jparser) str() []byte {
	start := p.pos
	p.pos++
	for p.data[p.pos] != '"' {
		if p.data[p.pos] == '\\' {
			p.pos++
		}
		p.pos++
	}
	p.pos++
	return p.data[start:p.pos]
}

// get returns the value of key in an object, or nil.
func (n *jnode) get(key string) *jnode {
	if n == nil || n.kind != '{' {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// set sets key in an object. A new key goes where it sorts when the
// keys are sorted (as Jupyter writes them), else at the end.
func (n *jnode) set(key string, v *jnode) {
	for i, k := range n.keys {
		if k == key {
			n.vals[i] = v
			return
		}
	}
	at := len(n.keys)
	if slices.IsSorted(n.keys) {
		at, _ = slices.BinarySearch(n.keys, key)
	}
	n.keys = slices.Insert(n.keys, at, key)
	n.vals = slices.Insert(n.vals, at, v)
}

// del removes key from an object.
func (n *jnode) del(key string) {
	for i, k := range n.keys {
		if k == key {
			n.keys = append(n.keys[:i], n.keys[i+1:]...)
			n.vals = append(n.vals[:i], n.vals[i+1:]...)
			return
		}
	}
}

// str returns a string scalar's value ("" for anything else).
func (n *jnode) str() string {
	var s string
	if n != nil && n.kind == 0 {
		_ = json.Unmarshal(n.raw, &s)
	}
	return s
}

// jsonValue builds a node from a Go value (objects with keys in the
// order given by jobj).
func jsonValue(v any) *jnode {
	switch v := v.(type) {
	case *jnode:
		return v
	case jobj:
		n := &jnode{kind: '{'}
		for i := 0; i+1 < len(v); i += 2 {
			n.keys = append(n.keys, v[i].(string))
			n.vals = append(n.vals, jsonValue(v[i+1]))
		}
		return n
	case []string:
		n := &jnode{kind: '['}
		for _, s := range v {
			n.vals = append(n.vals, jsonValue(s))
		}
		return n
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return &jnode{raw: bytes.TrimRight(b.Bytes(), "\n")}
}

// jobj is an ordered object literal: key, value, key, value...
type jobj []any

// write appends n's JSON, indented by indent per level ("" for one line),
// as Python's json.dumps writes it: ", " and ": " separators, empty
// containers as {} and [].
func (n *jnode) write(b *bytes.Buffer, indent string, depth int) {
	nl := func(d int) {
		if indent != "" {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(indent, d))
		}
	}
	sep := ","
	if indent == "" {
		sep = ", "
	}
	switch n.kind {
	case 0:
		b.Write(n.raw)
	case '{', '[':
		open, close := byte('{'), byte('}')
		if n.kind == '[' {
			open, close = '[', ']'
		}
		b.WriteByte(open)
		if len(n.vals) == 0 {
			b.WriteByte(close)
			return
		}
		for i, v := range n.vals {
			if i > 0 {
				b.WriteString(sep)
			}
			nl(depth + 1)
			if n.kind == '{' {
				b.Write(jsonValue(n.keys[i]).raw)
				b.WriteString(": ")
			}
			v.write(b, indent, depth+1)
		}
		nl(depth)
		b.WriteByte(close)
	}
}

// detectIndent returns the indent unit of a JSON document: the white
// space before the first key, or "" for a one-line document.
func detectIndent(data []byte) string {
	i := bytes.IndexByte(data, '\n')
	if i < 0 {
		return ""
	}
	rest := data[i+1:]
	j := 0
	for j < len(rest) && (rest[j] == ' ' || rest[j] == '\t') {
		j++
	}
	if j == 0 {
		return ""
	}
	return string(rest[:j])
}
