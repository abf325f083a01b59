package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
)

// The names of Claude Code's resource tools, offered when a connected
// server has resources.
const (
	ListResourcesTool = "ListMcpResourcesTool"
	ReadResourceTool  = "ReadMcpResourceTool"
)

// maxResources bounds how many resources of one server are listed.
const maxResources = 1000

// Resource is one resource a server offers.
type Resource struct {
	Server      string `json:"server"`
	URI         string `json:"uri"`
	Name        string `json:"name"`
	MIMEType    string `json:"mimeType,omitempty"`
	Description string `json:"description,omitempty"`
}

// hasResources reports whether the server declared resources.
func (c *conn) hasResources() bool {
	r := c.session.InitializeResult()
	return r != nil && r.Capabilities != nil && r.Capabilities.Resources != nil
}

// resourceCount lists the server's resources, within timeout, to count
// them; a server without the capability has none.
func (c *conn) resourceCount(timeout time.Duration) (bool, int) {
	if !c.hasResources() {
		return false, 0
	}
	ctx, cancel := context.WithTimeout(c.ctx, timeout)
	defer cancel()
	list, err := c.resources(ctx)
	if err != nil {
		c.m.opts.Logf("MCP server %q: listing resources: %v", c.srv.Name, err)
	}
	return true, len(list)
}

// resources lists the server's resources, every page, up to
// maxResources.
func (c *conn) resources(ctx context.Context) ([]Resource, error) {
	var out []Resource
	for r, err := range c.session.Resources(ctx, nil) {
		if err != nil {
			return out, err
		}
		out = append(out, Resource{Server: c.srv.Name, URI: r.URI, Name: r.Name, MIMEType: r.MIMEType, Description: r.Description})
		if len(out) >= maxResources {
			break
		}
	}
	return out, nil
}

// ResourceServers returns the ready servers that offer resources, sorted.
func (m *Manager) ResourceServers() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for name, r := range m.runs {
		if r.conn != nil && m.status[name].HasResources {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// ListResources lists the resources of a ready server.
func (m *Manager) ListResources(ctx context.Context, server string) ([]Resource, error) {
	c, err := m.live(server)
	if err != nil {
		return nil, err
	}
	if !c.hasResources() {
		return nil, fmt.Errorf("MCP server %q offers no resources", server)
	}
	ctx, cancel := c.callContext(ctx)
	defer cancel()
	list, err := c.resources(ctx)
	if err != nil {
		return nil, fmt.Errorf("MCP server %q: listing resources: %w", server, err)
	}
	return list, nil
}

// ListAll lists the resources of the managers' connected servers that
// offer them (only server's, when server is not ""), in the managers'
// order, then by server name. It returns how many servers it asked, and
// the errors of those that failed to list theirs: the others are still
// listed.
func ListAll(ctx context.Context, managers []*Manager, server string) (all []Resource, matched int, errs []error) {
	all = []Resource{}
	for _, m := range managers {
		if m == nil {
			continue
		}
		for _, name := range m.ResourceServers() {
			if server != "" && server != name {
				continue
			}
			matched++
			list, err := m.ListResources(ctx, name)
			if err != nil {
				errs = append(errs, err)
			}
			all = append(all, list...)
		}
	}
	return all, matched, errs
}

// ReadResource reads a resource of a ready server and returns it as text
// for the model: text contents joined (each under a line naming its URI
// when there are several), binary contents as a note of their type and
// size, the whole cut to Options.ResultBudget.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) (string, error) {
	c, err := m.live(server)
	if err != nil {
		return "", err
	}
	ctx, cancel := c.callContext(ctx)
	defer cancel()
	res, err := c.session.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return "", fmt.Errorf("MCP server %q: reading %s: %w", server, uri, err)
	}
	var parts []string
	for _, rc := range res.Contents {
		var b strings.Builder
		if len(res.Contents) > 1 {
			fmt.Fprintf(&b, "[resource %s%s]\n", rc.URI, mimeNote(rc.MIMEType))
		}
		if rc.Blob != nil {
			fmt.Fprintf(&b, "[binary resource %s%s: %d bytes, not shown]", rc.URI, mimeNote(rc.MIMEType), len(rc.Blob))
		} else {
			b.WriteString(rc.Text)
		}
		parts = append(parts, b.String())
	}
	if len(parts) == 0 {
		return "(empty resource)", nil
	}
	return tools.Truncate(strings.Join(parts, "\n"), m.opts.ResultBudget), nil
}

// callContext bounds a request to the server by Options.CallTimeout and
// the connection's life.
func (c *conn) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(c.ctx, cancel)
	if d := c.m.opts.CallTimeout; d > 0 {
		var cancelTimeout context.CancelFunc
		ctx, cancelTimeout = context.WithTimeout(ctx, d)
		return ctx, func() { cancelTimeout(); stop(); cancel() }
	}
	return ctx, func() { stop(); cancel() }
}

// ResourceTools returns Claude Code's two resource tools over the servers
// of the managers that managers returns (a session has one Manager for the
// servers it started with, another for those started once its folder was
// trusted): ListMcpResourcesTool (input {server?}) and ReadMcpResourceTool
// (input {server, uri}).
func ResourceTools(managers func() []*Manager) []tools.Tool {
	return []tools.Tool{&listResources{managers}, &readResource{managers}}
}

// owner returns the manager that runs server.
func owner(managers func() []*Manager, server string) (*Manager, error) {
	for _, m := range managers() {
		if m != nil && m.Has(server) {
			return m, nil
		}
	}
	return nil, fmt.Errorf("no MCP server named %q", server)
}

type listResources struct{ managers func() []*Manager }

func (t *listResources) Spec() tools.Spec {
	return tools.Spec{
		Name:        ListResourcesTool,
		Description: "Lists the resources of the connected MCP servers (all of them, or the one named by server): each with its server, uri, name, mimeType and description. Read one with ReadMcpResourceTool.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"server":{"type":"string","description":"Optional server name to filter resources by"}},"additionalProperties":false}`),
		Kind:        schema.KindRead,
		ReadOnly:    true,
		Access:      tools.AccessNone,
	}
}

func (t *listResources) Run(ctx context.Context, input json.RawMessage) *tools.Result {
	var in struct {
		Server string `json:"server"`
	}
	if err := decodeInput(input, &in); err != nil {
		return tools.Errorf("%v", err)
	}
	all, matched, errs := ListAll(ctx, t.managers(), in.Server)
	if in.Server != "" && matched == 0 {
		if _, err := owner(t.managers, in.Server); err != nil {
			return tools.Errorf("%v", err)
		}
		return tools.Errorf("MCP server %q is not connected or offers no resources", in.Server)
	}
	var problems []string
	for _, err := range errs {
		problems = append(problems, err.Error())
	}
	data, _ := json.MarshalIndent(all, "", "  ")
	out := string(data)
	if len(all) == 0 {
		out = "No resources found. MCP servers may still provide tools even if they have no resources."
	}
	if len(problems) > 0 {
		out += "\n" + strings.Join(problems, "\n")
	}
	return &tools.Result{Content: out, IsError: len(all) == 0 && len(problems) > 0}
}

type readResource struct{ managers func() []*Manager }

func (t *readResource) Spec() tools.Spec {
	return tools.Spec{
		Name:        ReadResourceTool,
		Description: "Reads a resource of a connected MCP server by its server name and URI (as ListMcpResourcesTool lists them).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"server":{"type":"string","description":"The MCP server name"},"uri":{"type":"string","description":"The resource URI to read"}},"required":["server","uri"],"additionalProperties":false}`),
		Kind:        schema.KindRead,
		ReadOnly:    true,
		Access:      tools.AccessNone,
	}
}

func (t *readResource) Run(ctx context.Context, input json.RawMessage) *tools.Result {
	var in struct {
		Server string `json:"server"`
		URI    string `json:"uri"`
	}
	if err := decodeInput(input, &in); err != nil {
		return tools.Errorf("%v", err)
	}
	switch {
	case in.Server == "":
		return tools.Errorf("server is required")
	case in.URI == "":
		return tools.Errorf("uri is required")
	}
	m, err := owner(t.managers, in.Server)
	if err != nil {
		return tools.Errorf("%v", err)
	}
	text, err := m.ReadResource(ctx, in.Server, in.URI)
	if err != nil {
		return tools.Errorf("%v", err)
	}
	return &tools.Result{Content: text}
}

// decodeInput decodes a tool's JSON object input; empty input is {}.
func decodeInput(input json.RawMessage, v any) error {
	in, err := arguments(input)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(in, v); err != nil {
		return fmt.Errorf("invalid input: %v", err)
	}
	return nil
}
