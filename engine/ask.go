package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/providers"
)

// askMaxTokens bounds a side question's answer.
const askMaxTokens = 4096

// ask answers prompt with one call of the small model (Config.SmallModel,
// else the session's model), outside the conversation: WebFetch's
// question about a page. Its cost counts toward the session's.
func (s *Session) ask(ctx context.Context, system, prompt string) (string, error) {
	p, err := s.svc.provider()
	if err != nil {
		return "", err
	}
	model := s.svc.cfg.SmallModel
	if model == "" {
		model = s.Model()
	}
	req := &providers.Request{
		Model:     model,
		System:    []providers.SystemBlock{{Text: system}},
		Messages:  []providers.Message{{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock(prompt)}}},
		MaxTokens: askMaxTokens,
	}
	resp, err := p.Stream(ctx, req, func(providers.Event) {})
	if err != nil {
		return "", err
	}
	if price := s.svc.cfg.Price; price != nil {
		s.conv.addCost(price(resp.Usage))
	}
	answer := strings.TrimSpace(resp.Message.Text())
	if answer == "" {
		return "", fmt.Errorf("the model gave an empty answer")
	}
	return answer, nil
}
