package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-lsp/agent-lsp/tools"
)

// conn is a live connection to one server.
type conn struct {
	m       *Manager
	srv     Server
	session *sdk.ClientSession
	proc    *process        // stdio servers only
	http    *http.Transport // http and sse servers only

	// ctx is done once the connection closes; tool calls end with it.
	// run is the context of the server's run, which ctx derives from.
	ctx    context.Context
	cancel context.CancelFunc
	run    context.Context

	// challenge is the WWW-Authenticate header of a 401 answer, when the
	// server asked for authorization.
	challenge atomic.Pointer[string]

	changed chan struct{} // a tools/list_changed arrived (buffered, 1)
	ended   chan struct{} // closed when the connection ends
	waitErr error         // the session's end, set before ended closes
	wg      sync.WaitGroup
}

// connect starts srv and initializes the MCP session, within
// Options.StartTimeout. The connection ends with run.
func (m *Manager) connect(run context.Context, srv Server) (*conn, error) {
	c := &conn{m: m, srv: srv, run: run, changed: make(chan struct{}, 1), ended: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(run)
	relist := func() {
		select {
		case c.changed <- struct{}{}:
		default: // a relist is already due
		}
	}

	caps := &sdk.ClientCapabilities{}
	offerRoots(caps, m.opts.Roots)
	client := sdk.NewClient(&sdk.Implementation{Name: "agent-lsp", Version: m.opts.Version}, &sdk.ClientOptions{
		Capabilities:               caps,
		ToolListChangedHandler:     func(context.Context, *sdk.ToolListChangedRequest) { relist() },
		PromptListChangedHandler:   func(context.Context, *sdk.PromptListChangedRequest) { relist() },
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { relist() },
	})
	addRoots(client, m.opts.Roots)

	var transport sdk.Transport
	switch srv.Type {
	case TypeStdio:
		p, err := startProcess(srv, m.opts.Dir, m.opts.Env, m.opts.Logf)
		if err != nil {
			c.cancel()
			return nil, err
		}
		c.proc = p
		transport = &sdk.IOTransport{Reader: output{p.stdout}, Writer: p.stdin}
	case TypeHTTP, TypeSSE:
		c.http = http.DefaultTransport.(*http.Transport).Clone()
		hc := &http.Client{Transport: headerTransport{base: c.http, headers: srv.Headers, challenge: &c.challenge}}
		if srv.Type == TypeHTTP {
			transport = &sdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: hc}
			break
		}
		conn, err := c.dialSSE(&sdk.SSEClientTransport{Endpoint: srv.URL, HTTPClient: hc})
		if err != nil {
			if ch := c.challenge.Load(); ch != nil {
				err = &AuthError{Server: srv.Name, Challenge: *ch}
			}
			c.close()
			return nil, err
		}
		transport = dialed{conn}
	default:
		c.cancel()
		return nil, fmt.Errorf("unsupported type %q", srv.Type)
	}

	ctx, cancel := context.WithTimeout(c.ctx, m.opts.StartTimeout)
	defer cancel()
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		err = c.explain(ctx, err, "initialize")
		c.close()
		return nil, err
	}
	c.session = session
	c.wg.Go(func() {
		c.waitErr = session.Wait()
		close(c.ended)
	})
	return c, nil
}

// dialSSE opens the event stream of an sse server. The SDK's transport
// ties the stream to the context given to Connect, so it gets the
// connection's context, with the start timeout applied to the dial alone.
func (c *conn) dialSSE(t *sdk.SSEClientTransport) (sdk.Connection, error) {
	ctx, cancel := context.WithCancel(c.ctx)
	timer := time.AfterFunc(c.m.opts.StartTimeout, cancel)
	conn, err := t.Connect(ctx)
	if !timer.Stop() {
		if err == nil {
			conn.Close()
		}
		return nil, fmt.Errorf("no answer to the event stream request within %v", c.m.opts.StartTimeout)
	}
	if err != nil {
		cancel()
		return nil, err
	}
	// ctx ends with c.ctx, when the connection closes.
	return conn, nil
}

// dialed is a Transport whose connection is already open.
type dialed struct{ conn sdk.Connection }

func (d dialed) Connect(context.Context) (sdk.Connection, error) { return d.conn, nil }

// explain turns the error of a request that failed during start-up into
// one that says what happened to the server.
func (c *conn) explain(ctx context.Context, err error, what string) error {
	if c.run.Err() != nil {
		return err
	}
	if ch := c.challenge.Load(); ch != nil {
		return &AuthError{Server: c.srv.Name, Challenge: *ch}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer to %s within %v", what, c.m.opts.StartTimeout)
	}
	if c.proc != nil {
		// A server that crashed closed its output first; its exit
		// status follows at once.
		if perr, ok := c.proc.failure(time.Second); ok {
			return perr
		}
	}
	return err
}

// endErr says why the connection ended by itself.
func (c *conn) endErr() error {
	if c.proc != nil {
		if err, ok := c.proc.failure(time.Second); ok {
			return err
		}
		return errors.New("closed its output")
	}
	if c.waitErr != nil {
		return fmt.Errorf("connection lost: %w", c.waitErr)
	}
	return errors.New("connection lost")
}

// tools lists the server's tools, every page, within timeout.
func (c *conn) tools(timeout time.Duration) ([]tools.Tool, error) {
	ctx, cancel := context.WithTimeout(c.ctx, timeout)
	defer cancel()
	var (
		list []tools.Tool
		seen = make(map[string]bool)
	)
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return nil, c.explain(ctx, err, "tools/list")
		}
		tl := newTool(c, t)
		name := tl.spec.Name
		if seen[name] {
			c.m.opts.Logf("MCP server %q: skipping tool %q: its name %s is taken by another of its tools", c.srv.Name, t.Name, name)
			continue
		}
		seen[name] = true
		list = append(list, tl)
	}
	if list == nil {
		list = []tools.Tool{}
	}
	return list, nil
}

// close ends the connection: calls in progress are cancelled, the session
// closes, a stdio server's process group is stopped. It returns once
// everything the connection started has ended.
func (c *conn) close() {
	c.cancel()
	if c.session != nil {
		_ = c.session.Close()
	}
	if c.proc != nil {
		c.proc.stop(c.m.opts.Grace)
	}
	if c.http != nil {
		c.http.CloseIdleConnections()
	}
	c.wg.Wait()
}

// headerTransport adds a server's configured headers to each request,
// and remembers a 401 answer's WWW-Authenticate challenge.
type headerTransport struct {
	base      http.RoundTripper
	headers   map[string]string
	challenge *atomic.Pointer[string]
}

func (h headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range h.headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := h.base.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusUnauthorized && h.challenge != nil {
		if ch := resp.Header.Get("WWW-Authenticate"); ch != "" {
			h.challenge.Store(&ch)
		}
	}
	return resp, err
}

// AuthError is the failure of an http or sse server that asked for
// authorization: it answered 401 with a WWW-Authenticate challenge, as
// servers that sign users in with OAuth do.
type AuthError struct {
	Server    string
	Challenge string // the WWW-Authenticate header
}

func (e *AuthError) Error() string {
	return fmt.Sprintf("the server answered 401 Unauthorized (WWW-Authenticate: %s); agent-lsp does not run the OAuth sign-in, so give it a token in the server's \"headers\" (\"Authorization\": \"Bearer ${TOKEN}\") where it is configured, then /mcp reconnect %s", shorten(e.Challenge, 200), e.Server)
}

// shorten cuts s to n bytes, with "..." when it was longer.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
