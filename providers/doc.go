// Package providers defines the vendor-neutral model conversation: messages
// made of content blocks, the request sent to a model, the typed events a
// streaming response yields, and the errors a model call fails with. The
// Provider interface that consumes them is engine.Provider.
//
// Messages use the Anthropic Messages content-block shapes (text, thinking,
// redacted_thinking, tool_use, tool_result, image), which are also the
// shapes Claude Code stores in its session files, so history round-trips
// without conversion.
//
// The subpackages: anthropic and openai implement the interface for the
// Anthropic Messages API and any OpenAI-compatible Chat Completions
// server; retry wraps a provider with retries whose events the consumer
// can reset (see RetryInfo); config resolves which provider, model, base
// URL and key to use and knows the models' windows and prices; fake runs
// scripted API servers for tests and for `agent-lsp demo`.
package providers
