package protocheck

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/schema"
)

const tsPath = "editors/vscode/src/protocol.ts"

// updateVariantFields are the fields of each session/update variant, by
// schema.Update's json names (tool_call and tool_call_update carry a
// ToolCall's fields). The test fails when one is not a field of
// schema.Update, so the table follows renames.
var updateVariantFields = map[string][]string{
	schema.UpdateUserMessageChunk:  {"content"},
	schema.UpdateAgentMessageChunk: {"content"},
	schema.UpdateAgentThoughtChunk: {"content"},
	schema.UpdatePlan:              {"entries"},
	schema.UpdateAvailableCommands: {"availableCommands"},
	schema.UpdateCurrentMode:       {"currentModeId"},
	schema.UpdateUsage:             {"used", "size", "cost"},
	schema.UpdateConfigOption:      {"configOptions"},
}

// TestTypeScript: protocol.ts has every method, enum value and field of
// the Go schema.
func TestTypeScript(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(moduleRoot(t), tsPath))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range checkTS(t, string(src)) {
		t.Error(p)
	}
}

// TestTypeScriptMutations: the check finds what a copy of protocol.ts
// lost: a field, an enum value, a method.
func TestTypeScriptMutations(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(moduleRoot(t), tsPath))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, old, new, want string
	}{
		{"a tool call's field", "  toolCallId: string;\n", "", "toolCall lacks field toolCallId"},
		{"a nested field", "retryInMs?: number", "", "retryInMs"},
		{"an enum value", " | 'switch_mode'", "", `"switch_mode"`},
		{"an update variant", "  | { sessionUpdate: 'plan'; entries: PlanEntry[] }\n", "", `"plan"`},
		{"a method", "  sessionFork: 'session/fork',\n", "", "session/fork"},
		{"a typed constant", "export const AgentStatusNotification", "const AgentStatusNotification", "agent/status"},
		{"a variant's field", "usage_update'; used: number; size: number;", "usage_update'; used: number;", "size"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(string(src), tt.old) {
				t.Fatalf("protocol.ts has no %q to remove", tt.old)
			}
			mutated := strings.Replace(string(src), tt.old, tt.new, 1)
			problems := checkTS(t, mutated)
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tt.want) }) {
				t.Errorf("without %q, the check did not report %s; it reported %q", tt.old, tt.want, problems)
			}
		})
	}
}

// checkTS lists what protocol.ts (src) lacks.
func checkTS(t *testing.T, src string) []string {
	t.Helper()
	f, err := parseTS(src)
	if err != nil {
		t.Fatal(err)
	}
	c := &tsChecker{f: f}
	for _, u := range f.unknown {
		c.problem("%s", u)
	}

	// Methods: every one but LSP's own is in Methods, with a typed
	// constant whose types hold the Go ones.
	names := map[string]bool{}
	for _, name := range f.methods {
		names[name] = true
	}
	for _, m := range schema.EditorMethods {
		if m.LSP {
			continue
		}
		if !names[m.Name] {
			c.problem("Methods lacks %s", m.Name)
			continue
		}
		call, ok := f.calls[m.Name]
		if !ok {
			c.problem("no request or notification constant sends %s", m.Name)
			continue
		}
		if call.notification != m.Notification {
			c.problem("%s: %s is declared as notification=%v, schema says %v", m.Name, call.constName, call.notification, m.Notification)
		}
		if m.Params != nil {
			c.check(reflect.TypeOf(m.Params), call.params, call.constName+" params")
		}
		if m.Result != nil && call.result != nil {
			c.check(reflect.TypeOf(m.Result), call.result, call.constName+" result")
		}
	}
	// What the LSP door announces in experimental.agent.
	c.check(reflect.TypeOf(schema.InitializeResult{}), &tsType{kind: "ref", name: "AgentInitializeInfo"}, "AgentInitializeInfo")

	// Enums.
	groups := constGroups(t)
	for _, g := range enumGroups {
		decl, ok := f.decls[g.ts]
		if !ok {
			c.problem("no type %s (for schema's %s...)", g.ts, g.first)
			continue
		}
		var have []string
		if g.field == "" {
			have = c.literals(decl)
		} else {
			for _, o := range c.shapes(decl) {
				if ft, ok := o.fields[g.field]; ok {
					have = append(have, c.literals(ft)...)
				}
			}
		}
		for _, v := range groups[g.first] {
			if !slices.Contains(have, v) {
				c.problem("%s lacks %q (schema's %s group)", g.ts+fieldSuffix(g.field), v, g.first)
			}
		}
	}

	// The fields of each session/update variant.
	if decl, ok := f.decls["SessionUpdate"]; ok {
		// An update's own fields: where a tool call's share a name
		// (content), the update's own type comes first.
		wire := map[string][]reflect.Type{}
		for _, wf := range wireFields(reflect.TypeOf(schema.Update{})) {
			wire[wf.name] = wf.types[:1]
		}
		variants := map[string][]string{}
		for k, v := range updateVariantFields {
			variants[k] = v
		}
		for _, wf := range wireFields(reflect.TypeOf(schema.ToolCall{})) {
			variants[schema.UpdateToolCall] = append(variants[schema.UpdateToolCall], wf.name)
			variants[schema.UpdateToolCallUpdate] = append(variants[schema.UpdateToolCallUpdate], wf.name)
		}
		for _, v := range groups["UpdateUserMessageChunk"] {
			fields, ok := variants[v]
			if !ok {
				c.problem("the test's updateVariantFields lacks schema's update variant %q", v)
				continue
			}
			var member []*tsType
			for _, o := range c.shapes(decl) {
				if ft, ok := o.fields["sessionUpdate"]; ok && slices.Contains(c.literals(ft), v) {
					member = append(member, o)
				}
			}
			if len(member) == 0 {
				continue // reported with the enum
			}
			// A member that is `{sessionUpdate: X} & ToolCall` has its
			// fields in several shapes: the variant's shape is their
			// intersection's, found again from the union's members.
			for _, u := range decl.elems {
				if lits := c.variantOf(u); slices.Contains(lits, v) {
					member = c.shapes(u)
				}
			}
			for _, name := range fields {
				types, ok := wire[name]
				if v == schema.UpdateToolCall || v == schema.UpdateToolCallUpdate {
					for _, wf := range wireFields(reflect.TypeOf(schema.ToolCall{})) {
						if wf.name == name {
							types, ok = wf.types, true
						}
					}
				}
				if !ok {
					c.problem("updateVariantFields[%q] names %q, which schema.Update lacks", v, name)
					continue
				}
				var fts []*tsType
				for _, o := range member {
					if ft, ok := o.fields[name]; ok {
						fts = append(fts, ft)
					}
				}
				if len(fts) == 0 {
					c.problem("SessionUpdate %q lacks field %s", v, name)
					continue
				}
				c.checkAny(types, fts, fmt.Sprintf("SessionUpdate %q.%s", v, name))
			}
		}
	}
	sort.Strings(c.problems)
	return c.problems
}

func fieldSuffix(field string) string {
	if field == "" {
		return ""
	}
	return "." + field
}

type tsChecker struct {
	f        *tsFile
	problems []string
	seen     map[string]bool
}

func (c *tsChecker) problem(format string, args ...any) {
	p := fmt.Sprintf("protocol.ts: "+format, args...)
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if !c.seen[p] {
		c.seen[p] = true
		c.problems = append(c.problems, p)
	}
}

// resolve follows references to declarations; a reference to anything
// else (unknown, object, Record<...>) stays a reference.
func (c *tsChecker) resolve(t *tsType, depth int) *tsType {
	for t != nil && t.kind == "ref" && depth < 20 {
		d, ok := c.f.decls[t.name]
		if !ok {
			return t
		}
		t, depth = d, depth+1
	}
	return t
}

// shapes are the object types t may be: through references, unions and
// intersections.
func (c *tsChecker) shapes(t *tsType) []*tsType {
	var out []*tsType
	var walk func(t *tsType, depth int)
	walk = func(t *tsType, depth int) {
		t = c.resolve(t, depth)
		if t == nil || depth > 20 {
			return
		}
		switch t.kind {
		case "object":
			out = append(out, t)
		case "union", "inter":
			for _, e := range t.elems {
				walk(e, depth+1)
			}
		}
	}
	walk(t, 0)
	return out
}

// arrayElems are the element types of the array types t may be.
func (c *tsChecker) arrayElems(t *tsType) []*tsType {
	var out []*tsType
	var walk func(t *tsType, depth int)
	walk = func(t *tsType, depth int) {
		t = c.resolve(t, depth)
		if t == nil || depth > 20 {
			return
		}
		switch t.kind {
		case "array":
			out = append(out, t.elems[0])
		case "union", "inter":
			for _, e := range t.elems {
				walk(e, depth+1)
			}
		}
	}
	walk(t, 0)
	return out
}

// literals are the string literals t may be.
func (c *tsChecker) literals(t *tsType) []string {
	var out []string
	var walk func(t *tsType, depth int)
	walk = func(t *tsType, depth int) {
		t = c.resolve(t, depth)
		if t == nil || depth > 20 {
			return
		}
		switch t.kind {
		case "lit":
			out = append(out, t.name)
		case "union", "inter":
			for _, e := range t.elems {
				walk(e, depth+1)
			}
		}
	}
	walk(t, 0)
	return out
}

// variantOf is the sessionUpdate literals of one member of a union.
func (c *tsChecker) variantOf(t *tsType) []string {
	var out []string
	for _, o := range c.shapes(t) {
		if ft, ok := o.fields["sessionUpdate"]; ok {
			out = append(out, c.literals(ft)...)
		}
	}
	return out
}

// opaque reports whether a TS type says nothing about its fields
// (unknown, any, object, a Record), so there is nothing to check in it.
func (c *tsChecker) opaque(ts []*tsType) bool {
	for _, t := range ts {
		t = c.resolve(t, 0)
		if t.kind == "ref" {
			switch t.name {
			case "unknown", "any", "object", "Record":
				return true
			}
		}
	}
	return false
}

// check reports the fields of gt (and of the types of its fields) that
// the TS type ts lacks.
func (c *tsChecker) check(gt reflect.Type, ts *tsType, path string) {
	c.checkAny([]reflect.Type{gt}, []*tsType{ts}, path)
}

// checkAny checks Go types (one field's) against the TS types of the
// same field.
func (c *tsChecker) checkAny(gts []reflect.Type, ts []*tsType, path string) {
	if c.opaque(ts) {
		return
	}
	// A field of several Go types (flattened structs sharing a name)
	// needs each in the TS type only where TS has that kind of type.
	matched := 0
	defer func() {
		if len(gts) > 1 && matched == 0 {
			c.problem("%s has none of the Go types %v", path, gts)
		}
	}()
	for _, gt := range gts {
		for gt.Kind() == reflect.Pointer {
			gt = gt.Elem()
		}
		switch gt.Kind() {
		default:
			matched++
		case reflect.Slice, reflect.Array:
			var elems []*tsType
			for _, t := range ts {
				elems = append(elems, c.arrayElems(t)...)
			}
			if len(elems) == 0 {
				if len(gts) == 1 && (gt.Elem().Kind() == reflect.Struct || gt.Elem().Kind() == reflect.Pointer) {
					c.problem("%s is no array type (Go: []%s)", path, gt.Elem())
				}
				continue
			}
			matched++
			c.checkAny([]reflect.Type{gt.Elem()}, elems, path+"[]")
		case reflect.Struct:
			var objs []*tsType
			for _, t := range ts {
				objs = append(objs, c.shapes(t)...)
			}
			if len(objs) == 0 {
				if len(gts) == 1 {
					c.problem("%s is no object type (Go: %s)", path, gt)
				}
				continue
			}
			matched++
			for _, wf := range wireFields(gt) {
				var fts []*tsType
				for _, o := range objs {
					if ft, ok := o.fields[wf.name]; ok {
						fts = append(fts, ft)
					}
				}
				if len(fts) == 0 {
					c.problem("%s lacks field %s (Go: %s)", path, wf.name, wf.goName)
					continue
				}
				c.checkAny(wf.types, fts, path+"."+wf.name)
			}
		}
	}
}
