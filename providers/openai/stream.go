package openai

import (
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3"

	"github.com/agent-lsp/agent-lsp/providers"
)

// accumulator builds an Anthropic-shaped message from chat completion
// chunks, emitting provider events as they arrive. Blocks are indexed in
// order of first appearance; a text or thinking delta after a block of
// another kind opens a new block.
type accumulator struct {
	emit   func(providers.Event)
	blocks []providers.Block
	args   map[int][]byte // tool call arguments by block index
	calls  map[int64]int  // the server's tool call index -> block index
	ended  map[int]bool   // tool calls whose EventToolEnd was emitted
	last   int            // index of the block deltas go to, -1 for none
	tools  int            // tool calls so far

	finish string // finish_reason, once sent
	usage  providers.Usage
	model  string
}

func newAccumulator(emit func(providers.Event)) *accumulator {
	return &accumulator{emit: emit, args: map[int][]byte{}, calls: map[int64]int{}, ended: map[int]bool{}, last: -1}
}

func (a *accumulator) add(ch openai.ChatCompletionChunk) {
	if ch.Model != "" {
		a.model = ch.Model
	}
	if ch.JSON.Usage.Valid() && ch.Usage.JSON.PromptTokens.Valid() {
		cached := ch.Usage.PromptTokensDetails.CachedTokens
		a.usage = providers.Usage{
			InputTokens:          ch.Usage.PromptTokens - cached,
			OutputTokens:         ch.Usage.CompletionTokens,
			CacheReadInputTokens: cached,
		}
		a.emit(providers.Event{Kind: providers.EventUsage, Usage: a.usage})
	}
	for _, c := range ch.Choices {
		if c.Index != 0 {
			continue // we ask for one choice
		}
		d := c.Delta
		if r := reasoning(d); r != "" {
			i := a.block(providers.BlockThinking)
			a.blocks[i].Thinking += r
			a.emit(providers.Event{Kind: providers.EventThinking, Index: i, Text: r})
		}
		if d.Content != "" {
			i := a.block(providers.BlockText)
			a.blocks[i].Text += d.Content
			a.emit(providers.Event{Kind: providers.EventText, Index: i, Text: d.Content})
		}
		for _, tc := range d.ToolCalls {
			a.toolCall(tc)
		}
		if c.FinishReason != "" {
			a.finish = c.FinishReason
			a.endTools()
		}
	}
}

// block returns the index of the block deltas of type typ go to, opening
// one when the last block is of another type.
func (a *accumulator) block(typ string) int {
	if a.last >= 0 && a.blocks[a.last].Type == typ {
		return a.last
	}
	a.blocks = append(a.blocks, providers.Block{Type: typ})
	a.last = len(a.blocks) - 1
	return a.last
}

func (a *accumulator) toolCall(tc openai.ChatCompletionChunkChoiceDeltaToolCall) {
	i, ok := a.calls[tc.Index]
	// A new id at a known index is a new call: some servers number every
	// call 0.
	if ok && tc.ID != "" && a.blocks[i].ID != tc.ID {
		ok = false
	}
	if !ok {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", a.tools)
		}
		a.tools++
		a.blocks = append(a.blocks, providers.Block{Type: providers.BlockToolUse, ID: id, Name: tc.Function.Name})
		i = len(a.blocks) - 1
		a.calls[tc.Index] = i
		a.emit(providers.Event{Kind: providers.EventToolStart, Index: i, ToolID: id, ToolName: tc.Function.Name})
	} else if a.blocks[i].Name == "" && tc.Function.Name != "" {
		a.blocks[i].Name = tc.Function.Name
	}
	a.last = i
	if frag := tc.Function.Arguments; frag != "" {
		a.args[i] = append(a.args[i], frag...)
		a.emit(providers.Event{Kind: providers.EventToolDelta, Index: i, Text: frag})
	}
}

// endTools completes every tool call. Arguments that are not a JSON
// object, which small local models sometimes write, are kept as a JSON
// string so the tool reports the bad input to the model.
func (a *accumulator) endTools() {
	for i := range a.blocks {
		b := &a.blocks[i]
		if b.Type != providers.BlockToolUse || a.ended[i] {
			continue
		}
		a.ended[i] = true
		args := a.args[i]
		switch {
		case len(args) == 0:
			args = []byte("{}")
		case !json.Valid(args):
			args, _ = json.Marshal(string(args))
		}
		b.Input = json.RawMessage(args)
		a.emit(providers.Event{Kind: providers.EventToolEnd, Index: i, ToolID: b.ID, ToolName: b.Name, Input: b.Input})
	}
}

// complete reports whether the finish_reason arrived: the message is
// whole even if usage and [DONE] were lost.
func (a *accumulator) complete() bool { return a.finish != "" }

// response returns the complete message, or a retryable error when the
// stream ended before the finish_reason.
func (a *accumulator) response() (*providers.Response, error) {
	if !a.complete() {
		return nil, &providers.Error{Type: "stream_incomplete", Message: "the response stream ended before finish_reason", Retryable: true}
	}
	hasTools := false
	content := make([]providers.Block, 0, len(a.blocks))
	for _, b := range a.blocks {
		hasTools = hasTools || b.Type == providers.BlockToolUse
		content = append(content, b)
	}
	return &providers.Response{
		Message:    providers.Message{Role: providers.RoleAssistant, Content: content},
		StopReason: stopReason(a.finish, hasTools),
		Usage:      a.usage,
		Model:      a.model,
	}, nil
}

// reasoning returns a delta's reasoning text: reasoning_content (vLLM,
// DeepSeek, llama.cpp) or reasoning (Ollama, OpenRouter).
func reasoning(d openai.ChatCompletionChunkChoiceDelta) string {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		f, ok := d.JSON.ExtraFields[key]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}
