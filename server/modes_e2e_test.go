package server_test

import (
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
)

// TestModes switches permission modes with session/set_mode and checks
// what each lets through without asking.
func TestModes(t *testing.T) {
	edit := func(id, from, to string) fake.Turn {
		return fake.Turn{fake.ToolUse(id, "Edit", `{"file_path":"calc.py","old_string":"`+from+`","new_string":"`+to+`"}`)}
	}
	e := newEnv(t, map[string]string{"calc.py": calc},
		fake.Turn{fake.ToolUse("toolu_r", "Read", `{"file_path":"calc.py"}`)},
		edit("toolu_plan", "/ 2", "/ 3"), // plan: refused, not asked
		fake.Turn{fake.Text("planned")},
		edit("toolu_accept", "/ 2", "/ 4"),                                     // acceptEdits: runs, not asked
		fake.Turn{fake.ToolUse("toolu_bash", "Bash", `{"command":"touch x"}`)}, // acceptEdits: shell asks
		fake.Turn{fake.Text("edited")},
		edit("toolu_bypass", "/ 4", "/ 5"), // bypass: runs, not asked
		fake.Turn{fake.Text("done")},
	)
	e.editor.Initialize(e.root, nil)
	var res schema.NewSessionResult
	e.editor.MustCall("session/new", schema.NewSessionParams{Cwd: e.root, MCPServers: []schema.MCPServer{}}, &res)
	if res.Modes == nil || res.Modes.CurrentModeID != "default" || len(res.Modes.AvailableModes) < 4 {
		t.Fatalf("session/new modes = %+v", res.Modes)
	}
	if len(res.ConfigOptions) != 2 || res.ConfigOptions[0].ID != "model" || res.ConfigOptions[0].CurrentValue != "claude-test" {
		t.Errorf("session/new configOptions = %+v", res.ConfigOptions)
	}
	sid := res.SessionID
	setMode := func(m string) {
		t.Helper()
		e.editor.MustCall("session/set_mode", schema.SetModeParams{SessionID: sid, ModeID: m}, nil)
	}
	setMode("plan")
	e.editor.Prompt(sid, "plan it")
	if r := e.toolResults(2); r[0]["is_error"] != true || !strings.Contains(resultText(r[0]), "plan") {
		t.Errorf("plan mode let an edit through: %v", r)
	}
	setMode("acceptEdits")
	e.editor.Prompt(sid, "do it")
	if r := e.toolResults(4); r[0]["is_error"] == true {
		t.Errorf("acceptEdits refused an edit: %v", r)
	}
	setMode("bypassPermissions")
	e.editor.Prompt(sid, "again")
	var asked []string
	for _, p := range e.editor.Permissions() {
		asked = append(asked, p.ToolCall.ToolCallID)
	}
	if strings.Join(asked, ",") != "toolu_bash" {
		t.Errorf("asked for %v, want only the shell command in acceptEdits mode", asked)
	}
	var modes []string
	for _, u := range e.editor.Updates(sid) {
		if u.SessionUpdate == schema.UpdateCurrentMode {
			modes = append(modes, u.CurrentModeID)
		}
	}
	if strings.Join(modes, ",") != "plan,acceptEdits,bypassPermissions" {
		t.Errorf("current_mode_update sequence = %v", modes)
	}
	err := e.editor.Call("session/set_mode", schema.SetModeParams{SessionID: sid, ModeID: "yolo"}, nil)
	wantCode(t, err, -32602, "yolo")
	var opts struct {
		ConfigOptions []schema.ConfigOption `json:"configOptions"`
	}
	e.editor.MustCall("session/set_config_option", schema.SetConfigOptionParams{SessionID: sid, ConfigID: "model", Value: "claude-other"}, &opts)
	if len(opts.ConfigOptions) != 2 || opts.ConfigOptions[0].CurrentValue != "claude-other" {
		t.Errorf("set_config_option = %+v", opts)
	}
}
