package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/schema"
)

//go:embed todo.md
var todoDescription string

// todoTool is the TodoWrite tool: it hands the model's plan to env.OnPlan.
type todoTool struct{ env *Env }

type todoItem struct {
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"activeForm"`
}

func (t *todoTool) Spec() Spec {
	return Spec{
		Name:        "TodoWrite",
		Description: todoDescription,
		InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "todos": {
      "type": "array",
      "description": "The updated todo list",
      "items": {
        "type": "object",
        "properties": {
          "content": {"type": "string", "minLength": 1},
          "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
          "activeForm": {"type": "string", "minLength": 1}
        },
        "required": ["content", "status", "activeForm"],
        "additionalProperties": false
      }
    }
  },
  "required": ["todos"],
  "additionalProperties": false
}`),
		Kind:     schema.KindThink,
		ReadOnly: true,
	}
}

func (t *todoTool) Run(_ context.Context, input json.RawMessage) *Result {
	var in struct {
		Todos []json.RawMessage `json:"todos"`
	}
	if err := decodeInput(input, &in, "todos"); err != nil {
		return inputError(err)
	}
	entries := make([]schema.PlanEntry, len(in.Todos))
	var b strings.Builder
	for i, raw := range in.Todos {
		var item todoItem
		name := fmt.Sprintf("todos[%d]", i)
		if err := decodeField(name, raw, &item, "content", "status", "activeForm"); err != nil {
			return inputError(err)
		}
		switch {
		case strings.TrimSpace(item.Content) == "":
			return Errorf("invalid input: %s.content: must not be empty", name)
		case strings.TrimSpace(item.ActiveForm) == "":
			return Errorf("invalid input: %s.activeForm: must not be empty", name)
		}
		switch item.Status {
		case schema.StatusPending, schema.StatusInProgress, schema.StatusCompleted:
		default:
			return Errorf("invalid input: %s.status: must be pending, in_progress or completed, got %q", name, item.Status)
		}
		entries[i] = schema.PlanEntry{Content: item.Content, Priority: "medium", Status: item.Status}
		mark := map[string]string{"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}[item.Status]
		fmt.Fprintf(&b, "%s %s\n", mark, item.Content)
	}
	if t.env.OnPlan != nil {
		t.env.OnPlan(entries)
	}
	return &Result{
		Content: "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable.",
		Display: []schema.ToolCallContent{schema.TextContent(b.String())},
		Title:   fmt.Sprintf("Update plan (%d tasks)", len(entries)),
	}
}
