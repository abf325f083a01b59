// Package providers defines the vendor-neutral model conversation: messages
// made of content blocks, the request sent to a model, the typed events a
// streaming response yields, and the Provider interface that vendor packages
// (providers/anthropic, providers/openai, providers/replay) implement.
//
// Messages use the Anthropic Messages content-block shapes (text, thinking,
// tool_use, tool_result, image), which are also the shapes Claude Code stores
// in its session files, so history round-trips without conversion.
package providers
