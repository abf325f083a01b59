package protocheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// moduleRoot is the directory of the module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// enumGroup is a group of string constants of package schema, named by
// its first constant, and where the editors keep its values.
type enumGroup struct {
	first string // the group's first constant in schema
	lua   string // the table of methods_gen.lua
	// ts says where protocol.ts lists the values: a type whose string
	// literals they are, or, with field set, the literals of that field
	// of the type's object shapes (a discriminated union).
	ts, field string
}

// enumGroups are the enums the editors read. Every group of string
// constants in schema is one of them (TestEnumGroupsComplete), so a new
// group cannot be left out.
var enumGroups = []enumGroup{
	{first: "UpdateUserMessageChunk", lua: "update", ts: "SessionUpdate", field: "sessionUpdate"},
	{first: "StopEndTurn", lua: "stop_reason", ts: "StopReason"},
	{first: "StatusPending", lua: "tool_status", ts: "ToolStatus"},
	{first: "KindRead", lua: "tool_kind", ts: "ToolKind"},
	{first: "AllowOnce", lua: "permission_kind", ts: "PermissionOptionKind"},
	{first: "BlockText", lua: "content_block", ts: "ContentBlock", field: "type"},
	{first: "ToolContentBlock", lua: "tool_content", ts: "ToolCallContent", field: "type"},
	{first: "StatusRetry", lua: "status_kind", ts: "AgentStatusParams", field: "kind"},
	{first: "RestoreCode", lua: "rewind_restore", ts: "RewindRestore"},
	{first: "RewindWrite", lua: "rewind_action", ts: "RewindAction"},
	{first: "ElicitationForm", lua: "elicitation_mode", ts: "ElicitationMode"},
	{first: "ElicitationAccept", lua: "elicitation_action", ts: "ElicitationAction"},
}

// constGroups reads the groups of string constants declared in
// package schema's source: values by the group's first constant.
func constGroups(t *testing.T) map[string][]string {
	t.Helper()
	dir := filepath.Join(moduleRoot(t), "schema")
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string][]string{}
	fset := token.NewFileSet()
	for _, path := range files {
		if filepath.Ext(path) != ".go" || len(path) > 8 && path[len(path)-8:] == "_test.go" {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			var first string
			var values []string
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING || !name.IsExported() {
						continue
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					if first == "" {
						first = name.Name
					}
					values = append(values, v)
				}
			}
			if first != "" {
				groups[first] = values
			}
		}
	}
	return groups
}
