package mcp

import (
	"context"
	"fmt"
	"os"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// newRichServer returns a server with one tool (pid), three resources
// (a text note, a PNG, a large text) and two prompts (review, with a
// required and an optional argument; hello, with none).
func newRichServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "agent-lsp-rich", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "pid", Description: "Returns the server's pid."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return text(fmt.Sprint(os.Getpid())), nil, nil
		})
	resource := func(uri, name, mime string, contents *sdk.ResourceContents) {
		s.AddResource(&sdk.Resource{URI: uri, Name: name, MIMEType: mime, Description: "the " + name},
			func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
				return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{contents}}, nil
			})
	}
	resource("notes://team/todo", "todo", "text/plain", &sdk.ResourceContents{URI: "notes://team/todo", MIMEType: "text/plain", Text: "ship the release"})
	resource("notes://team/logo", "logo", "image/png", &sdk.ResourceContents{URI: "notes://team/logo", MIMEType: "image/png", Blob: pixelPNG})
	resource("notes://team/big", "big", "text/plain", &sdk.ResourceContents{URI: "notes://team/big", MIMEType: "text/plain", Text: strings.Repeat("y", 5000)})
	s.AddPrompt(&sdk.Prompt{Name: "review", Description: "Review a file for a reader", Arguments: []*sdk.PromptArgument{
		{Name: "file", Description: "the file to review", Required: true},
		{Name: "audience", Description: "who reads it"},
	}}, func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		a := req.Params.Arguments
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{
			{Role: "user", Content: &sdk.TextContent{Text: fmt.Sprintf("Review %s for %s.", a["file"], a["audience"])}},
			{Role: "user", Content: &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "notes://team/todo", MIMEType: "text/plain", Text: "ship the release"}}},
		}}, nil
	})
	s.AddPrompt(&sdk.Prompt{Name: "hello", Description: "Say hello"}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Say hello to the team."}}}}, nil
	})
	return s
}
