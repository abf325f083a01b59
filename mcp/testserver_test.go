package mcp

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverModeEnv, when set, makes the test binary an MCP server of that
// mode instead of running tests: the stdio servers of these tests are this
// binary, started again.
const serverModeEnv = "AGENT_LSP_MCP_TEST_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(serverModeEnv); mode != "" {
		os.Exit(serve(mode))
	}
	os.Exit(m.Run())
}

// testServer returns a stdio Server running this binary in mode.
func testServer(t *testing.T, name, mode string) Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Server{Name: name, Type: TypeStdio, Command: exe, Env: map[string]string{serverModeEnv: mode}}
}

// A PNG of one transparent pixel.
var pixelPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")

// serve runs an MCP server on stdio and returns the exit code:
//
//   - "tools": a server with the tools of newToolServer;
//   - "rich": a server with the resources and prompts of newRichServer;
//   - "crash": writes to stderr and exits 2 before reading anything;
//   - "hang": never answers, ignores SIGTERM and stdin's end, and has a
//     child in its process group.
func serve(mode string) int {
	switch mode {
	case "tools":
		err := newToolServer().Run(context.Background(), &sdk.StdioTransport{})
		if err != nil && err != io.EOF && !strings.Contains(err.Error(), "EOF") {
			fmt.Fprintln(os.Stderr, "server:", err)
			return 1
		}
		return 0
	case "rich":
		err := newRichServer().Run(context.Background(), &sdk.StdioTransport{})
		if err != nil && !strings.Contains(err.Error(), "EOF") {
			fmt.Fprintln(os.Stderr, "server:", err)
			return 1
		}
		return 0
	case "crash":
		fmt.Fprintln(os.Stderr, "boom: no configuration found")
		return 2
	case "hang":
		signal.Ignore(syscall.SIGTERM)
		if err := spawnSleeper(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintln(os.Stderr, "hanging")
		select {}
	}
	fmt.Fprintln(os.Stderr, "unknown mode", mode)
	return 1
}

// spawnSleeper starts a long sleep in our process group, left running.
func spawnSleeper() error {
	cmd := exec.Command("sleep", "1000")
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting sleep: %w", err)
	}
	fmt.Fprintf(os.Stderr, "child %d\n", cmd.Process.Pid)
	return nil
}

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type nameIn struct {
	Name string `json:"name" jsonschema:"the name of the tool to add"`
}

type sizeIn struct {
	Size int `json:"size" jsonschema:"how many characters"`
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// newToolServer returns the test server: echo (read-only), image, big,
// fail, resources, add_tool (adds a tool, so the list changes), pid (the
// server's pid and that of a child it starts), crash (exits mid-call) and
// block (returns when cancelled).
func newToolServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "agent-lsp-test", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{
		Name:        "echo",
		Description: "Echoes its text.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
	}, func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
		return text("echo: " + in.Text), nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "image", Description: "Returns a one-pixel PNG."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "a pixel:"},
				&sdk.ImageContent{MIMEType: "image/png", Data: pixelPNG},
			}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "big", Description: "Returns size characters."},
		func(_ context.Context, _ *sdk.CallToolRequest, in sizeIn) (*sdk.CallToolResult, any, error) {
			return text(strings.Repeat("x", in.Size)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Fails."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("the tool failed on purpose")
		})
	sdk.AddTool(s, &sdk.Tool{Name: "resources", Description: "Returns an embedded resource and a link."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "the notes"}},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///data.bin", MIMEType: "application/octet-stream", Blob: []byte{1, 2, 3}}},
				&sdk.ResourceLink{URI: "https://example.com/doc", Name: "doc", MIMEType: "text/html", Description: "the docs"},
			}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "add_tool", Description: "Adds a tool named name."},
		func(_ context.Context, _ *sdk.CallToolRequest, in nameIn) (*sdk.CallToolResult, any, error) {
			sdk.AddTool(s, &sdk.Tool{Name: in.Name, Description: "Added later."},
				func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
					return text("I am " + in.Name), nil, nil
				})
			return text("added " + in.Name), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "pid", Description: "Returns the server's pid and that of a child it starts."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			cmd := exec.Command("sleep", "1000")
			if err := cmd.Start(); err != nil {
				return nil, nil, err
			}
			return text(strconv.Itoa(os.Getpid()) + " " + strconv.Itoa(cmd.Process.Pid)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "Exits in the middle of the call."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "crashing now")
			os.Exit(3)
			return nil, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "block", Description: "Returns when cancelled."},
		func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			select {
			case <-ctx.Done():
			case <-time.After(time.Minute):
			}
			return text("unblocked"), nil, nil
		})
	return s
}
