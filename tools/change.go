package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/schema"
)

// change is a whole-file change computed by Write, Edit or MultiEdit: the
// text it was computed from and the text to write.
type change struct {
	path    string
	old     []byte
	new     []byte
	created bool
	// line is the 0-based first changed line of new.
	line int
	// summary is what the model is told once the change is written.
	summary string
}

// checkFresh refuses to change an existing file the model has not read,
// or that changed since it did.
func (e *Env) checkFresh(path string, current []byte) error {
	if ok, why := e.Reads.Check(path, current); !ok {
		return fmt.Errorf("%s", why)
	}
	return nil
}

// previewChange is the Preview of a tool that computes a change with
// plan.
func previewChange(plan func(json.RawMessage) (*change, error), verb string, input json.RawMessage) (*Preview, error) {
	c, err := plan(input)
	if err != nil {
		return nil, err
	}
	return c.preview(verb), nil
}

// runChange is the Run of a tool that computes a change with plan: it
// plans again (the file may have changed since the preview) and writes.
func runChange(ctx context.Context, env *Env, plan func(json.RawMessage) (*change, error), verb string, input json.RawMessage) *Result {
	c, err := plan(input)
	if err != nil {
		return Errorf("%v", err)
	}
	return c.apply(ctx, env, verb)
}

// preview describes c for the permission prompt.
func (c *change) preview(verb string) *Preview {
	return &Preview{
		Title:     verb + " " + c.path,
		Paths:     []string{c.path},
		Edits:     []FileEdit{{Path: c.path, Old: string(c.old), New: string(c.new), Created: c.created}},
		Locations: []schema.Location{{Path: c.path, Line: intPtr(c.line)}},
	}
}

// apply writes c through the session's FileSystem and records the new text
// as read, so the model may edit it again without reading it back.
func (c *change) apply(ctx context.Context, env *Env, verb string) *Result {
	var before []byte
	if !c.created {
		before = c.old
		if before == nil {
			before = []byte{}
		}
	}
	diags := env.diagnoseBefore(ctx, c.path, c.old, c.created)
	if err := env.Files.WriteFile(ctx, c.path, before, c.new); err != nil {
		return Errorf("writing %s: %v", c.path, err)
	}
	env.Reads.Saw(c.path, c.new)
	display := []schema.ToolCallContent{schema.DiffContent(c.path, string(c.old), string(c.new), c.created)}
	summary := c.summary
	if problems := diags.after(ctx, env, c.path, c.new); problems != "" {
		summary += problems
		display = append(display, schema.TextContent(strings.TrimSpace(problems)))
	}
	return &Result{
		Content:   summary,
		Display:   display,
		Locations: []schema.Location{{Path: c.path, Line: intPtr(c.line)}},
		Title:     verb + " " + c.path,
	}
}

// editSnippet is the part of the edited file around line, numbered, for
// the model to check its edit.
func editSnippet(path string, text []byte, line int) string {
	return fmt.Sprintf("The file %s has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n%s", path, snippet(text, max(line-4, 0), line+5))
}
