package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
)

// AskUserQuestion, with Claude Code's name and input: the model asks the
// user one to four multiple-choice questions and gets the answers as
// its tool result. The questions go to the editor as one form
// (elicitation/create, as Claude Code's ACP adapter sends them): for
// each question a choice field (question_<n>, one option or several)
// and a free-text field (question_<n>_custom), the "Other" answer that
// is always possible. A question the user declines or dismisses cancels
// nothing else: the model is told the user declined and the turn goes
// on. The tool reads and changes nothing, so plan mode runs it.

// Elicitor is implemented by clients that can ask the user a form
// (elicitation/create). A session whose client is none has no
// AskUserQuestion tool.
type Elicitor interface {
	Elicit(ctx context.Context, p *schema.CreateElicitationParams) (*schema.CreateElicitationResult, error)
}

// askUserQuestionTool is the AskUserQuestion tool.
type askUserQuestionTool struct{ s *Session }

type askUserQuestionInput struct {
	Questions []askQuestion `json:"questions" jsonschema:"Questions to ask the user (1-4 questions)"`
}

type askQuestion struct {
	Question    string      `json:"question" jsonschema:"The complete question to ask the user. Should be clear, specific, and end with a question mark. Example: \"Which library should we use for date formatting?\" If multiSelect is true, phrase it accordingly, e.g. \"Which features do you want to enable?\""`
	Header      string      `json:"header" jsonschema:"Very short label displayed as a chip/tag (max 12 chars). Examples: \"Auth method\", \"Library\", \"Approach\"."`
	Options     []askOption `json:"options" jsonschema:"The available choices for this question. Must have 2-4 options. Each option should be a distinct, mutually exclusive choice (unless multiSelect is enabled). There should be no 'Other' option, that will be provided automatically."`
	MultiSelect bool        `json:"multiSelect,omitempty" jsonschema:"Set to true to allow the user to select multiple options instead of just one. Use when choices are not mutually exclusive."`
}

type askOption struct {
	Label       string `json:"label" jsonschema:"The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice."`
	Description string `json:"description" jsonschema:"Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications."`
}

// Claude Code's bounds.
const (
	askMaxQuestions = 4
	askMinOptions   = 2
	askMaxOptions   = 4
)

var askUserQuestionSchema = tools.InputSchema[askUserQuestionInput](func(s *jsonschema.Schema) {
	qs := tools.Property(s, "questions")
	qs.MinItems, qs.MaxItems = jsonschema.Ptr(1), jsonschema.Ptr(askMaxQuestions)
	opts := tools.Property(qs.Items, "options")
	opts.MinItems, opts.MaxItems = jsonschema.Ptr(askMinOptions), jsonschema.Ptr(askMaxOptions)
	tools.Property(qs.Items, "multiSelect").Default = json.RawMessage("false")
})

func (t *askUserQuestionTool) Spec() tools.Spec {
	return tools.Spec{
		Name: "AskUserQuestion",
		// Claude Code 2.1.332's words, without the preview feature (HTML
		// previews of options) that no editor here renders.
		Description: "Use this tool only when you are blocked on a decision that is genuinely the user's to make: one you cannot resolve from the request, the code, or sensible defaults.\n\n" +
			"Usage notes:\n" +
			"- Users will always be able to select \"Other\" to provide custom text input\n" +
			"- Use multiSelect: true to allow multiple answers to be selected for a question\n" +
			"- If you recommend a specific option, make that the first option in the list and add \"(Recommended)\" at the end of the label\n\n" +
			"Plan mode note: To switch into plan mode, use EnterPlanMode (not this tool). Once in plan mode, use this tool to clarify requirements or choose between approaches BEFORE finalizing your plan. " +
			"Do NOT use this tool to ask \"Is my plan ready?\", \"Should I proceed?\", or otherwise reference \"the plan\" in questions \u2014 the user cannot see the plan until you call ExitPlanMode for approval.",
		InputSchema: askUserQuestionSchema(),
		Kind:        schema.KindOther,
		ReadOnly:    true,
		// It changes and reads nothing: the user answers.
		Access: tools.AccessNone,
	}
}

// Preview titles the call as Claude Code's adapter does.
func (t *askUserQuestionTool) Preview(_ context.Context, input json.RawMessage) (*tools.Preview, error) {
	if _, err := parseQuestions(input); err != nil {
		return nil, err
	}
	return &tools.Preview{Title: "Asking for your input"}, nil
}

// parseQuestions decodes and checks the input against the schema and
// Claude Code's rules: question texts unique, option labels unique
// within a question.
func parseQuestions(input json.RawMessage) ([]askQuestion, error) {
	var in askUserQuestionInput
	if err := tools.DecodeInput(input, &in); err != nil {
		return nil, fmt.Errorf("invalid input: %w", err)
	}
	if n := len(in.Questions); n < 1 || n > askMaxQuestions {
		return nil, fmt.Errorf("invalid input: questions: %d questions; ask 1 to %d", n, askMaxQuestions)
	}
	seen := map[string]bool{}
	for i, q := range in.Questions {
		at := fmt.Sprintf("questions[%d]", i)
		switch {
		case strings.TrimSpace(q.Question) == "":
			return nil, fmt.Errorf("invalid input: %s.question: the question is empty", at)
		case strings.TrimSpace(q.Header) == "":
			return nil, fmt.Errorf("invalid input: %s.header: the header is empty; give a short label (max 12 chars)", at)
		case seen[q.Question]:
			return nil, fmt.Errorf("invalid input: %s.question: %q is asked twice; question texts must be unique", at, q.Question)
		case len(q.Options) < askMinOptions || len(q.Options) > askMaxOptions:
			return nil, fmt.Errorf("invalid input: %s.options: %d options; give %d to %d (\"Other\" is added by itself)", at, len(q.Options), askMinOptions, askMaxOptions)
		}
		seen[q.Question] = true
		labels := map[string]bool{}
		for j, o := range q.Options {
			switch {
			case strings.TrimSpace(o.Label) == "":
				return nil, fmt.Errorf("invalid input: %s.options[%d].label: the label is empty", at, j)
			case labels[o.Label]:
				return nil, fmt.Errorf("invalid input: %s.options[%d].label: %q is offered twice; option labels must be unique within a question", at, j, o.Label)
			}
			labels[o.Label] = true
		}
	}
	return in.Questions, nil
}

// questionField and customField name a question's fields in the form.
func questionField(i int) string { return fmt.Sprintf("question_%d", i) }
func customField(i int) string   { return questionField(i) + "_custom" }

// askForm is the elicitation/create of questions: for each, its choice
// field, titled with the header and described by the question when
// there are several (one question is the message), and its "Other"
// free-text field. Nothing is required: the user may skip a question.
func askForm(sessionID, toolCallID string, questions []askQuestion) *schema.CreateElicitationParams {
	props := map[string]schema.ElicitationProperty{}
	single := len(questions) == 1
	for i, q := range questions {
		options := make([]schema.EnumOption, len(q.Options))
		for j, o := range q.Options {
			options[j] = schema.EnumOption{Const: o.Label, Title: o.Label, Description: o.Description}
		}
		p := schema.ElicitationProperty{Title: q.Header}
		if !single {
			p.Description = q.Question
		}
		other := "Type your own answer, or add a note to the option you chose above (optional)."
		if q.MultiSelect {
			p.Type, p.Items = "array", &schema.ElicitationItems{AnyOf: options}
			other = "Type your own answer to add to your selection above (optional)."
		} else {
			p.Type, p.OneOf = "string", options
		}
		props[questionField(i)] = p
		props[customField(i)] = schema.ElicitationProperty{Type: "string", Title: "Other", Description: other}
	}
	message := "Please answer the following questions."
	if single {
		message = questions[0].Question
	}
	return &schema.CreateElicitationParams{
		SessionID:       sessionID,
		ToolCallID:      toolCallID,
		Mode:            schema.ElicitationForm,
		Message:         message,
		RequestedSchema: schema.ElicitationSchema{Type: "object", Properties: props},
	}
}

// askDeclined is the result when the user declines or dismisses the
// questions: Claude Code's words, and no error, so the turn goes on.
const askDeclined = "User declined to answer questions. Continue without the answers: choose a sensible default and say which, or ask in your reply."

// answersText is the tool result of an accepted form, in Claude Code's
// words: `User has answered your questions: "Q"="A", ...`. A multiple
// choice joins its picks and its typed answer with ", " (an item holding
// ", " or a quote is quoted, as Claude Code does); a single choice is the
// option picked, else the typed answer; typed text beside a pick is the
// user's note. A question left blank is left out; "" when all are.
func answersText(questions []askQuestion, content map[string]any) string {
	var pairs []string
	for i, q := range questions {
		custom, _ := content[customField(i)].(string)
		custom = strings.TrimSpace(custom)
		picks := picked(content[questionField(i)])
		answer, note := "", ""
		switch {
		case q.MultiSelect:
			if custom != "" {
				picks = append(picks, custom)
			}
			for j, p := range picks {
				if strings.Contains(p, ", ") || strings.Contains(p, `"`) {
					b, _ := json.Marshal(p)
					picks[j] = string(b)
				}
			}
			answer = strings.Join(picks, ", ")
		case len(picks) > 0:
			answer, note = strings.Join(picks, ", "), custom
		default:
			answer = custom
		}
		if answer == "" {
			continue
		}
		pair := fmt.Sprintf("%q=%q", q.Question, answer)
		if note != "" {
			pair += " user notes: " + note
		}
		pairs = append(pairs, pair)
	}
	if len(pairs) == 0 {
		return ""
	}
	return "User has answered your questions: " + strings.Join(pairs, ", ") + ". You can now continue with the user's answers in mind."
}

// picked is a choice field's value as strings: one for a single choice,
// the picks of a multiple choice; none for anything else.
func picked(v any) []string {
	switch v := v.(type) {
	case string:
		if strings.TrimSpace(v) != "" {
			return []string{v}
		}
	case []any:
		var out []string
		for _, item := range v {
			if s, ok := item.(string); ok && strings.TrimSpace(s) != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func (t *askUserQuestionTool) Run(ctx context.Context, input json.RawMessage) *tools.Result {
	s := t.s
	questions, err := parseQuestions(input)
	if err != nil {
		return tools.Errorf("%v", err)
	}
	el, ok := s.client.Client.(Elicitor)
	if !ok {
		return tools.Errorf("the editor cannot show questions; ask the user in your reply instead")
	}
	res, err := el.Elicit(ctx, askForm(s.ID, toolCallID(ctx), questions))
	switch {
	case ctx.Err() != nil:
		return tools.Errorf("the turn was cancelled while the questions waited for the user")
	case err != nil:
		return tools.Errorf("could not show the questions to the user (%v); ask in your reply instead", err)
	}
	if res != nil && res.Action == schema.ElicitationAccept {
		if text := answersText(questions, res.Content); text != "" {
			return &tools.Result{Title: "Answered", Content: text}
		}
	}
	// Declined, dismissed, or submitted blank: the turn goes on.
	return &tools.Result{Title: "User declined to answer questions", Content: askDeclined}
}
