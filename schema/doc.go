// Package schema holds the data types of the Agent Client Protocol v1
// (agentclientprotocol.com) that the engine and the protocol doors share:
// content blocks, session updates, tool calls, plans, permission requests and
// the session method parameters and results.
//
// It has no behaviour and imports nothing else from this module, so every
// layer may use it. Field names and json tags follow the ACP schema exactly;
// the LSP door carries the same shapes over LSP framing.
package schema
