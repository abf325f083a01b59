package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/google/jsonschema-go/jsonschema"
)

//go:embed todo.md
var todoDescription string

// todoTool is the TodoWrite tool: it hands the model's plan to env.OnPlan.
type todoTool struct{ env *Env }

type todoInput struct {
	Todos []todoItem `json:"todos" jsonschema:"The updated todo list"`
}

type todoItem struct {
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"activeForm"`
}

// todoStatuses are the values of a todo's status.
var todoStatuses = []string{schema.StatusPending, schema.StatusInProgress, schema.StatusCompleted}

var todoSchema = InputSchema[todoInput](func(s *jsonschema.Schema) {
	item := Property(s, "todos").Items
	Property(item, "content").MinLength = jsonschema.Ptr(1)
	Property(item, "status").Enum = Enum(todoStatuses)
	Property(item, "activeForm").MinLength = jsonschema.Ptr(1)
})

func (t *todoTool) Spec() Spec {
	return Spec{
		Name:        "TodoWrite",
		Description: todoDescription,
		InputSchema: todoSchema(),
		Kind:        schema.KindThink,
		ReadOnly:    true,
		Access:      AccessNone,
	}
}

func (t *todoTool) Run(_ context.Context, input json.RawMessage) *Result {
	var in todoInput
	if err := DecodeInput(input, &in); err != nil {
		return inputError(err)
	}
	entries := make([]schema.PlanEntry, len(in.Todos))
	var b strings.Builder
	for i, item := range in.Todos {
		name := fmt.Sprintf("todos[%d]", i)
		switch {
		case strings.TrimSpace(item.Content) == "":
			return Errorf("invalid input: %s.content: must not be empty", name)
		case strings.TrimSpace(item.ActiveForm) == "":
			return Errorf("invalid input: %s.activeForm: must not be empty", name)
		}
		if !slices.Contains(todoStatuses, item.Status) {
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
