package langserver

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Operations a Query may ask, named as Claude Code's LSP tool names them.
const (
	OpDefinition      = "goToDefinition"
	OpReferences      = "findReferences"
	OpHover           = "hover"
	OpDocumentSymbol  = "documentSymbol"
	OpWorkspaceSymbol = "workspaceSymbol"
	OpImplementation  = "goToImplementation"
)

// Operations lists the operations in a stable order.
var Operations = []string{OpDefinition, OpReferences, OpHover, OpDocumentSymbol, OpWorkspaceSymbol, OpImplementation}

// Query is one question to a language server about a file.
type Query struct {
	Op string
	// Path is the file's absolute path and Text its current content.
	Path string
	Text []byte
	// Line and Character are 1-based (Character counts UTF-16 units).
	Line, Character int
	// Symbol is the name to look for (workspaceSymbol).
	Symbol string
	// Hidden, when set, reports the files whose content the answer
	// must not show (those a Read deny or ask rule covers): their
	// locations and symbols are left out, and a hover on a symbol
	// defined in one is refused, since hover text quotes the
	// definition (a constant's value, a doc comment).
	Hidden func(path string) bool
}

// Ask syncs q.Text to the server of q.Path under root and asks it q. It
// returns the answer as text for the model, paths relative to root.
func (m *Manager) Ask(ctx context.Context, root string, q Query) (string, error) {
	s, err := m.server(root, q.Path)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	if err := ready(ctx, s); err != nil {
		return "", err
	}
	if _, _, err := s.sync(ctx, q.Path, q.Text); err != nil {
		return "", err
	}
	pos := map[string]any{
		"textDocument": map[string]any{"uri": uri.File(q.Path)},
		"position":     map[string]any{"line": max(q.Line-1, 0), "character": max(q.Character-1, 0)},
	}
	rel := func(p string) string {
		if r, err := filepath.Rel(s.root, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
		return p
	}
	hidden := q.Hidden
	if hidden == nil {
		hidden = func(string) bool { return false }
	}
	var raw json.RawMessage
	switch q.Op {
	case OpDefinition, OpImplementation:
		method, capa := "textDocument/definition", s.caps.Definition
		if q.Op == OpImplementation {
			method, capa = "textDocument/implementation", s.caps.Implementation
		}
		if !offered(capa) {
			return "", fmt.Errorf("%s does not offer %s", s.cfg.Name, q.Op)
		}
		if err := s.call(ctx, method, pos, &raw); err != nil {
			return "", fmt.Errorf("%s: %w", method, err)
		}
		return formatLocations(raw, rel, hidden, "No "+strings.TrimPrefix(q.Op, "goTo")+" found"), nil
	case OpReferences:
		if !offered(s.caps.References) {
			return "", fmt.Errorf("%s does not offer %s", s.cfg.Name, q.Op)
		}
		pos["context"] = map[string]any{"includeDeclaration": true}
		if err := s.call(ctx, "textDocument/references", pos, &raw); err != nil {
			return "", fmt.Errorf("textDocument/references: %w", err)
		}
		return formatLocations(raw, rel, hidden, "No references found"), nil
	case OpHover:
		if !offered(s.caps.Hover) {
			return "", fmt.Errorf("%s does not offer %s", s.cfg.Name, q.Op)
		}
		if q.Hidden != nil {
			// Where the symbol is defined decides whether its hover
			// may be shown; a server that cannot say is not asked.
			if !offered(s.caps.Definition) {
				return "", fmt.Errorf("hover is off here: the permission rules hide some files from the model, and %s cannot tell where a symbol is defined", s.cfg.Name)
			}
			var def json.RawMessage
			if err := s.call(ctx, "textDocument/definition", pos, &def); err != nil {
				return "", fmt.Errorf("textDocument/definition: %w", err)
			}
			for _, p := range locationPaths(def) {
				if hidden(p) {
					return "", fmt.Errorf("the symbol is defined in a file that the permission rules keep from the model: no hover")
				}
			}
		}
		if err := s.call(ctx, "textDocument/hover", pos, &raw); err != nil {
			return "", fmt.Errorf("textDocument/hover: %w", err)
		}
		return formatHover(raw), nil
	case OpDocumentSymbol:
		if !offered(s.caps.DocumentSymbol) {
			return "", fmt.Errorf("%s does not offer %s", s.cfg.Name, q.Op)
		}
		params := map[string]any{"textDocument": map[string]any{"uri": uri.File(q.Path)}}
		if err := s.call(ctx, "textDocument/documentSymbol", params, &raw); err != nil {
			return "", fmt.Errorf("textDocument/documentSymbol: %w", err)
		}
		return formatSymbols(raw, rel, hidden), nil
	case OpWorkspaceSymbol:
		if !offered(s.caps.WorkspaceSym) {
			return "", fmt.Errorf("%s does not offer %s", s.cfg.Name, q.Op)
		}
		if err := s.call(ctx, "workspace/symbol", map[string]any{"query": q.Symbol}, &raw); err != nil {
			return "", fmt.Errorf("workspace/symbol: %w", err)
		}
		return formatSymbols(raw, rel, hidden), nil
	}
	return "", fmt.Errorf("unknown operation %q; use one of %s", q.Op, strings.Join(Operations, ", "))
}

// offered reports whether a capability is announced (true or options).
func offered(capa json.RawMessage) bool {
	c := strings.TrimSpace(string(capa))
	return c != "" && c != "false" && c != "null"
}

// wireLocation is a Location or a LocationLink.
type wireLocation struct {
	URI         uri.URI         `json:"uri"`
	Range       *protocol.Range `json:"range,omitempty"`
	TargetURI   uri.URI         `json:"targetUri"`
	TargetRange *protocol.Range `json:"targetSelectionRange,omitempty"`
}

// locations decodes a Location, a LocationLink or a list of them.
func locations(raw json.RawMessage) []wireLocation {
	var list []wireLocation
	if err := json.Unmarshal(raw, &list); err != nil {
		var one wireLocation
		if json.Unmarshal(raw, &one) == nil && (one.URI != "" || one.TargetURI != "") {
			list = []wireLocation{one}
		}
	}
	return list
}

// locationPaths returns the file paths of the locations in raw.
func locationPaths(raw json.RawMessage) []string {
	var out []string
	for _, l := range locations(raw) {
		u := l.URI
		if u == "" {
			u = l.TargetURI
		}
		if u != "" {
			out = append(out, u.FsPath())
		}
	}
	return out
}

func formatLocations(raw json.RawMessage, rel func(string) string, hidden func(string) bool, none string) string {
	var b strings.Builder
	n := 0
	for _, l := range locations(raw) {
		u, r := l.URI, l.Range
		if u == "" {
			u, r = l.TargetURI, l.TargetRange
		}
		if u == "" || r == nil || hidden(u.FsPath()) {
			continue
		}
		n++
		fmt.Fprintf(&b, "%s:%d:%d\n", rel(u.FsPath()), r.Start.Line+1, r.Start.Character+1)
	}
	if n == 0 {
		return none
	}
	return fmt.Sprintf("%d location(s):\n%s", n, b.String())
}

func formatHover(raw json.RawMessage) string {
	var h struct {
		Contents json.RawMessage `json:"contents"`
	}
	if json.Unmarshal(raw, &h) != nil || len(h.Contents) == 0 || string(h.Contents) == "null" {
		return "No hover information"
	}
	text := markedText(h.Contents)
	if strings.TrimSpace(text) == "" {
		return "No hover information"
	}
	return text
}

// markedText flattens MarkupContent, MarkedString or a list of them.
func markedText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var mc struct {
		Kind     string `json:"kind"`
		Language string `json:"language"`
		Value    string `json:"value"`
	}
	if json.Unmarshal(raw, &mc) == nil && mc.Value != "" {
		if mc.Language != "" {
			return "```" + mc.Language + "\n" + mc.Value + "\n```"
		}
		return mc.Value
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		parts := make([]string, 0, len(list))
		for _, r := range list {
			parts = append(parts, markedText(r))
		}
		return strings.Join(parts, "\n\n")
	}
	return ""
}

// wireSymbol is a DocumentSymbol or a SymbolInformation.
type wireSymbol struct {
	Name     string          `json:"name"`
	Detail   string          `json:"detail,omitempty"`
	Kind     int             `json:"kind"`
	Range    *protocol.Range `json:"selectionRange,omitempty"`
	Children []wireSymbol    `json:"children,omitempty"`
	Location *struct {
		URI   uri.URI         `json:"uri"`
		Range *protocol.Range `json:"range,omitempty"`
	} `json:"location,omitempty"`
	Container string `json:"containerName,omitempty"`
}

func formatSymbols(raw json.RawMessage, rel func(string) string, hidden func(string) bool) string {
	var list []wireSymbol
	_ = json.Unmarshal(raw, &list)
	var b strings.Builder
	n := 0
	var walk func(list []wireSymbol, depth int)
	walk = func(list []wireSymbol, depth int) {
		for _, sym := range list {
			if n >= 500 {
				return
			}
			if sym.Location != nil && hidden(sym.Location.URI.FsPath()) {
				continue
			}
			n++
			b.WriteString(strings.Repeat("  ", depth))
			fmt.Fprintf(&b, "%s %s", symbolKind(sym.Kind), sym.Name)
			if sym.Detail != "" {
				fmt.Fprintf(&b, " %s", sym.Detail)
			}
			switch {
			case sym.Location != nil && sym.Location.Range != nil:
				fmt.Fprintf(&b, " - %s:%d:%d", rel(sym.Location.URI.FsPath()), sym.Location.Range.Start.Line+1, sym.Location.Range.Start.Character+1)
			case sym.Range != nil:
				fmt.Fprintf(&b, " - line %d", sym.Range.Start.Line+1)
			}
			if sym.Container != "" {
				fmt.Fprintf(&b, " (in %s)", sym.Container)
			}
			b.WriteByte('\n')
			walk(sym.Children, depth+1)
		}
	}
	walk(list, 0)
	if n == 0 {
		return "No symbols found"
	}
	return b.String()
}

func symbolKind(k int) string {
	names := []string{"", "File", "Module", "Namespace", "Package", "Class", "Method", "Property", "Field", "Constructor", "Enum", "Interface", "Function", "Variable", "Constant", "String", "Number", "Boolean", "Array", "Object", "Key", "Null", "EnumMember", "Struct", "Event", "Operator", "TypeParameter"}
	if k > 0 && k < len(names) {
		return names[k]
	}
	return "Symbol"
}
