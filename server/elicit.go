package server

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/schema"
)

// The model's questions (AskUserQuestion) reach the editor as ACP's
// elicitation/create form: over the LSP door always (the plugins render
// it), over the ACP door when the client announced
// clientCapabilities.elicitation.form, and over the plain door as one
// window/showMessageRequest per question.

// elicit sends elicitation/create and waits for the user's answer. When
// ctx ends first the request is cancelled with the door's cancel notice.
func elicit(ctx context.Context, c *core, p *schema.CreateElicitationParams) (*schema.CreateElicitationResult, error) {
	var res schema.CreateElicitationResult
	if err := c.peer.Call(ctx, schema.MethodElicitationCreate, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Elicit asks the plugin's chat to show the form.
func (c lspClient) Elicit(ctx context.Context, p *schema.CreateElicitationParams) (*schema.CreateElicitationResult, error) {
	return elicit(ctx, c.d.c, p)
}

var _ engine.Elicitor = lspClient{}

// acpElicitingClient is the editor over the ACP door when it takes forms:
// its sessions get AskUserQuestion, which sessions of other ACP clients
// lack (as Claude Code's ACP adapter disables it for them).
type acpElicitingClient struct{ peerClient }

var _ engine.Elicitor = acpElicitingClient{}

// Elicit sends the form as elicitation/create.
func (c acpElicitingClient) Elicit(ctx context.Context, p *schema.CreateElicitationParams) (*schema.CreateElicitationResult, error) {
	return elicit(ctx, c.c, p)
}

// acpSessionClient is the engine client of an ACP session: one that
// takes forms when the client announced form elicitation.
func acpSessionClient(c *core, caps schema.ClientCapabilities) engine.Client {
	if caps.Elicitation != nil && caps.Elicitation.Form != nil {
		return acpElicitingClient{peerClient{c}}
	}
	return peerClient{c}
}

// plainDone is the button that ends a multiple choice on the plain door.
const plainDone = "Done"

// Elicit asks a form's questions on the plain door, one
// window/showMessageRequest per question with a button per option; a
// multiple choice asks again, without the options picked, until "Done".
// There is no "Other" button: LSP gives a server no way to ask for
// text, so the user who wants another answer dismisses the message and
// says it in the next prompt. Dismissing any question declines them all.
func (c *plainClient) Elicit(ctx context.Context, p *schema.CreateElicitationParams) (*schema.CreateElicitationResult, error) {
	fields := choiceFields(p.RequestedSchema)
	content := map[string]any{}
	for _, name := range fields {
		f := p.RequestedSchema.Properties[name]
		question := f.Description
		if question == "" {
			question = p.Message
		}
		options := f.OneOf
		if f.Items != nil {
			options = f.Items.AnyOf
		}
		head := "agent asks"
		if f.Title != "" {
			head += " (" + f.Title + ")"
		}
		if f.Items == nil {
			res, err := c.ask(ctx, questionText(head, question, options, nil), labels(options)...)
			if err != nil {
				return nil, err
			}
			if res == nil || !slices.Contains(labels(options), res.Title) {
				return &schema.CreateElicitationResult{Action: schema.ElicitationDecline}, nil
			}
			content[name] = res.Title
			continue
		}
		picks := []any{}
		chosen := []string{}
		for {
			left := slices.DeleteFunc(labels(options), func(l string) bool { return slices.Contains(chosen, l) })
			res, err := c.ask(ctx, questionText(head, question, options, chosen), append(left, plainDone)...)
			if err != nil {
				return nil, err
			}
			if res == nil || (res.Title != plainDone && !slices.Contains(left, res.Title)) {
				return &schema.CreateElicitationResult{Action: schema.ElicitationDecline}, nil
			}
			if res.Title == plainDone {
				break
			}
			chosen = append(chosen, res.Title)
			picks = append(picks, res.Title)
			if len(left) == 1 {
				break
			}
		}
		content[name] = picks
	}
	return &schema.CreateElicitationResult{Action: schema.ElicitationAccept, Content: content}, nil
}

// choiceFields are the names of a form's choice fields (those with
// options), in order: question_0, question_1, ...
func choiceFields(s schema.ElicitationSchema) []string {
	var names []string
	for name, f := range s.Properties {
		if len(f.OneOf) > 0 || (f.Items != nil && len(f.Items.AnyOf) > 0) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

func labels(options []schema.EnumOption) []string {
	out := make([]string, len(options))
	for i, o := range options {
		out[i] = o.Const
	}
	return out
}

// questionText is a question's message: the question, each option with
// what it means, and for a multiple choice the picks so far.
func questionText(head, question string, options []schema.EnumOption, chosen []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", head, question)
	for _, o := range options {
		if o.Description != "" {
			fmt.Fprintf(&b, "\n%s: %s", o.Const, o.Description)
		}
	}
	switch {
	case chosen == nil:
	case len(chosen) == 0:
		fmt.Fprintf(&b, "\n\nPick one, then more or %s.", plainDone)
	default:
		fmt.Fprintf(&b, "\n\nChosen so far: %s. Pick another or %s.", strings.Join(chosen, ", "), plainDone)
	}
	return strings.TrimRight(b.String(), "\n")
}

var _ engine.Elicitor = (*plainClient)(nil)
