package engine

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/google/jsonschema-go/jsonschema"
)

//go:embed websearch.md
var webSearchDescription string

// webSearchMaxUses bounds the searches of one WebSearch call.
const webSearchMaxUses = 8

// webSearchTool is the WebSearch tool. It is offered only when the
// provider has a server-side web search (Config.WebSearch): a call asks
// the model, in a separate request that offers that server tool, to search
// and sum up, and returns the summary with the pages found.
type webSearchTool struct{ s *Session }

func (t *webSearchTool) Spec() tools.Spec {
	return tools.Spec{
		Name:        "WebSearch",
		Description: webSearchDescription,
		InputSchema: webSearchSchema(),
		Kind:        schema.KindFetch,
		ReadOnly:    true,
		Access:      tools.AccessFetch,
	}
}

type webSearchInput struct {
	Query          string   `json:"query" jsonschema:"The search query to use"`
	AllowedDomains []string `json:"allowed_domains,omitempty" jsonschema:"Only include search results from these domains"`
	BlockedDomains []string `json:"blocked_domains,omitempty" jsonschema:"Never include search results from these domains"`
}

var webSearchSchema = tools.InputSchema[webSearchInput](func(s *jsonschema.Schema) {
	tools.Property(s, "query").MinLength = jsonschema.Ptr(2)
})

func (t *webSearchTool) parse(input json.RawMessage) (webSearchInput, error) {
	var in webSearchInput
	if err := tools.DecodeInput(input, &in); err != nil {
		return in, fmt.Errorf("invalid input: %w", err)
	}
	in.Query = strings.TrimSpace(in.Query)
	switch {
	case len(in.Query) < 2:
		return in, fmt.Errorf("invalid input: query: must be at least 2 characters")
	case len(in.AllowedDomains) > 0 && len(in.BlockedDomains) > 0:
		return in, fmt.Errorf("invalid input: give allowed_domains or blocked_domains, not both")
	}
	return in, nil
}

// Preview titles the call for the permission prompt.
func (t *webSearchTool) Preview(_ context.Context, input json.RawMessage) (*tools.Preview, error) {
	in, err := t.parse(input)
	if err != nil {
		return nil, err
	}
	return &tools.Preview{Title: fmt.Sprintf("Web search: %q", in.Query)}, nil
}

func (t *webSearchTool) Run(ctx context.Context, input json.RawMessage) *tools.Result {
	in, err := t.parse(input)
	if err != nil {
		return tools.Errorf("%v", err)
	}
	s := t.s
	p, err := s.svc.provider()
	if err != nil {
		return tools.Errorf("%v", err)
	}
	req := &providers.Request{
		Model:     s.requestModel(),
		System:    []providers.SystemBlock{{Text: "You search the web for the user with the web_search tool and report what you find: concise, factual, with the sources."}},
		Messages:  []providers.Message{{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock("Perform a web search for the query: " + in.Query)}}},
		MaxTokens: askMaxTokens,
		WebSearch: &providers.WebSearch{AllowedDomains: in.AllowedDomains, BlockedDomains: in.BlockedDomains, MaxUses: webSearchMaxUses},
	}
	resp, err := p.Stream(ctx, req, func(providers.Event) {})
	if err != nil {
		if ctx.Err() != nil {
			return tools.Errorf("the search was cancelled")
		}
		return tools.Errorf("searching the web: %v", err)
	}
	if price := s.svc.cfg.Price; price != nil {
		s.conv.addCost(price(resp.Usage))
	}
	var text, links strings.Builder
	searches := 0
	for _, b := range resp.Message.Content {
		switch b.Type {
		case providers.BlockText:
			text.WriteString(b.Text)
		case providers.BlockWebSearchResult:
			searches++
			if b.Text != "" {
				fmt.Fprintf(&links, "- (the search failed: %s)\n", b.Text)
			}
			for _, page := range b.Content {
				title, url, _ := strings.Cut(page.Text, "\n")
				fmt.Fprintf(&links, "- [%s](%s)\n", title, url)
			}
		}
	}
	out := fmt.Sprintf("Web search results for query: %q\n\n", in.Query)
	if links.Len() > 0 {
		out += "Links:\n" + links.String() + "\n"
	} else if searches == 0 {
		out += "(The model did not search.)\n\n"
	}
	out += strings.TrimSpace(text.String())
	out += "\n\nREMINDER: cite the sources you use as markdown links."
	return &tools.Result{Title: fmt.Sprintf("Web search: %q", in.Query), Content: out}
}
