package netproxy

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/sandbox/seccomp"
)

// Setting names the setting a refusal points to.
const Setting = "sandbox.network.allowedDomains"

// hello starts every control connection, followed by the ticket's token
// and a newline (see the launcher in package seccomp).
const hello = seccomp.NetHello

// dialTimeout bounds a connection to an allowed host.
const dialTimeout = 30 * time.Second

// Server is the proxy: it listens on an abstract unix socket (Addr) for
// control connections from sandbox launchers, each naming a Ticket, and
// serves HTTP CONNECT and plain HTTP forward proxying on every stream
// the bridge in that sandbox passes over it, letting through only the
// hosts the ticket's policy allows. It is safe for concurrent use.
type Server struct {
	addr string
	ln   net.Listener

	mu sync.Mutex
	// dial connects to an allowed host ("host:port"); nil is dialHost
	// (see SetDial); guarded by mu.
	dial    func(ctx context.Context, network, addr string) (net.Conn, error)
	tickets map[string]*Ticket // by token; guarded by mu
	closed  bool               // guarded by mu

	wg sync.WaitGroup // the accept loop and every connection
}

// Start listens on a new abstract unix socket and serves it until
// Close. Linux only.
func Start() (*Server, error) {
	if runtime.GOOS != "linux" {
		// Abstract sockets are Linux's, as are the sandboxes.
		return nil, fmt.Errorf("netproxy: the network proxy runs on Linux only")
	}
	name := "@agent-lsp-net-" + randomHex(12)
	ln, err := net.Listen("unix", name)
	if err != nil {
		return nil, fmt.Errorf("netproxy: listening on %s: %w", name, err)
	}
	s := &Server{addr: name, ln: ln, tickets: map[string]*Ticket{}}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.accept()
	}()
	return s, nil
}

var (
	sharedMu  sync.Mutex
	sharedSrv *Server
)

// Shared returns the process's proxy, started on first use; it lives as
// long as the process. A failure is not kept: the next call tries
// again.
func Shared() (*Server, error) {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if sharedSrv != nil {
		return sharedSrv, nil
	}
	s, err := Start()
	if err != nil {
		return nil, err
	}
	sharedSrv = s
	return s, nil
}

// SetDial replaces how the proxy connects to an allowed host
// ("host:port"); nil restores dialHost, which resolves the name and
// refuses the machine's own loopback and link-local addresses unless
// the host was granted by that very name. Tests use it to reach local
// servers by made-up names, never the internet.
func (s *Server) SetDial(f func(ctx context.Context, network, addr string) (net.Conn, error)) {
	s.mu.Lock()
	s.dial = f
	s.mu.Unlock()
}

// Addr is the socket the launcher connects to ("@" and its abstract
// name).
func (s *Server) Addr() string { return s.addr }

// Close stops the proxy and every connection it serves.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	err := s.ln.Close()
	s.wg.Wait()
	return err
}

// Ticket is one command's way through the proxy: its policy, the
// token its launcher presents, and the hosts refused to it.
type Ticket struct {
	srv    *Server
	token  string
	policy Policy
	ask    func(ctx context.Context, host string) bool
	// ctx ends when the ticket closes: a question still open is
	// withdrawn.
	ctx    context.Context
	cancel context.CancelFunc

	// askMu makes the command's questions one at a time, so that two
	// connections to one host ask once.
	askMu   sync.Mutex
	answers map[string]bool // the user's answers, by host; guarded by askMu

	mu      sync.Mutex
	refused []string          // guarded by mu
	conns   map[net.Conn]bool // guarded by mu
	closed  bool              // guarded by mu
}

// Register returns a new ticket for a command under policy. ask, when
// not nil, is called for a host the policy neither allows nor denies,
// while the command's connection waits, once per host and one at a
// time; true lets it through for the rest of the command. Its context
// ends when the ticket closes. Close the ticket once the command has
// ended.
func (s *Server) Register(p Policy, ask func(ctx context.Context, host string) bool) *Ticket {
	t := &Ticket{srv: s, token: randomHex(16), policy: p, ask: ask, conns: map[net.Conn]bool{}, answers: map[string]bool{}}
	t.ctx, t.cancel = context.WithCancel(context.Background())
	s.mu.Lock()
	s.tickets[t.token] = t
	s.mu.Unlock()
	return t
}

// Token is what the command's launcher presents.
func (t *Ticket) Token() string { return t.token }

// Addr is the proxy's socket.
func (t *Ticket) Addr() string { return t.srv.addr }

// Refused returns the hosts refused to the command so far, each once,
// in order.
func (t *Ticket) Refused() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.refused)
}

// Close forgets the ticket and ends the connections made with it.
// Refused still answers.
func (t *Ticket) Close() {
	t.srv.mu.Lock()
	delete(t.srv.tickets, t.token)
	t.srv.mu.Unlock()
	t.cancel()
	t.mu.Lock()
	t.closed = true
	conns := t.conns
	t.conns = nil
	t.mu.Unlock()
	for c := range conns {
		c.Close()
	}
}

// track records c as one of the ticket's connections, to be closed with
// it; false when the ticket is closed already.
func (t *Ticket) track(c net.Conn) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	t.conns[c] = true
	return true
}

func (t *Ticket) untrack(c net.Conn) {
	t.mu.Lock()
	delete(t.conns, c)
	t.mu.Unlock()
}

func (t *Ticket) refuse(host string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !slices.Contains(t.refused, host) {
		t.refused = append(t.refused, host)
	}
}

// allows decides for host: the policy, then the question (once per
// host for the ticket's command). A denied host is never asked about.
func (t *Ticket) allows(host string) bool {
	if t.policy.Allows(host) {
		return true
	}
	h := normalHost(host)
	if h != "" && t.ask != nil && !slices.ContainsFunc(t.policy.Denied, func(d string) bool { return MatchHost(h, d) }) {
		t.askMu.Lock()
		yes, asked := t.answers[h]
		if !asked {
			yes = t.ask(t.ctx, h)
			t.answers[h] = yes
		}
		t.askMu.Unlock()
		if yes {
			return true
		}
	}
	t.refuse(h)
	return false
}

func (s *Server) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer c.Close()
			s.control(c.(*net.UnixConn))
		}()
	}
}

// control serves one launcher's control connection: the hello and
// token, then one stream per message, passed as a descriptor.
func (s *Server) control(c *net.UnixConn) {
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := readLine(c)
	if err != nil || !strings.HasPrefix(line, hello) {
		return
	}
	s.mu.Lock()
	t := s.tickets[strings.TrimPrefix(line, hello)]
	s.mu.Unlock()
	if t == nil || !t.track(c) {
		return
	}
	defer t.untrack(c)
	c.SetReadDeadline(time.Time{})
	for {
		f, err := receiveFile(c)
		if err != nil {
			return
		}
		stream, err := net.FileConn(f)
		f.Close()
		if err != nil {
			continue
		}
		if !t.track(stream) {
			stream.Close()
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer t.untrack(stream)
			defer stream.Close()
			s.ServeConn(t, stream)
		}()
	}
}

// readLine reads one line a byte at a time (nothing after it may be
// consumed: descriptors follow).
func readLine(c net.Conn) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for len(b) < 256 {
		if _, err := c.Read(one); err != nil {
			return "", err
		}
		if one[0] == '\n' {
			return string(b), nil
		}
		b = append(b, one[0])
	}
	return "", errors.New("netproxy: control line too long")
}

// ServeConn serves one stream of a command holding t: HTTP requests,
// each either CONNECT host:port (a tunnel, for HTTPS and anything else
// over TCP) or a plain HTTP request with an absolute URL, forwarded; or,
// when its first byte is 5, one SOCKS5 CONNECT (socks.go). A host the
// ticket does not allow gets 403, naming the host and the setting (or
// SOCKS5's "not allowed by the ruleset").
func (s *Server) ServeConn(t *Ticket, c net.Conn) {
	br := bufio.NewReader(c)
	if first, err := br.Peek(1); err == nil && first[0] == socksVersion {
		s.socks(t, c, br)
		return
	}
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		if req.Method == http.MethodConnect {
			s.tunnel(t, c, br, req)
			return
		}
		if !s.forward(t, c, req) {
			return
		}
	}
}

func (s *Server) tunnel(t *Ticket, c net.Conn, br *bufio.Reader, req *http.Request) {
	host, port, err := net.SplitHostPort(req.Host)
	if err != nil || port == "" {
		writeStatus(c, http.StatusBadRequest, fmt.Sprintf("agent-lsp: CONNECT needs host:port, not %q\n", req.Host))
		return
	}
	if !t.allows(host) {
		writeStatus(c, http.StatusForbidden, refusal(host))
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	up, err := s.connect(ctx, t, host, port)
	cancel()
	if err != nil {
		writeStatus(c, http.StatusBadGateway, fmt.Sprintf("agent-lsp: cannot reach %s: %v\n", req.Host, err))
		return
	}
	defer up.Close()
	if !t.track(up) {
		return
	}
	defer t.untrack(up)
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	pipe(c, br, up)
}

// forward sends one plain HTTP request on and its answer back; false
// when the stream must end.
func (s *Server) forward(t *Ticket, c net.Conn, req *http.Request) bool {
	if req.URL.Scheme != "http" || req.URL.Host == "" {
		writeStatus(c, http.StatusBadRequest, fmt.Sprintf("agent-lsp: a proxy request needs an absolute http:// URL, not %q\n", req.RequestURI))
		return false
	}
	host, port := req.URL.Hostname(), req.URL.Port()
	if port == "" {
		port = "80"
	}
	if !t.allows(host) {
		writeStatus(c, http.StatusForbidden, refusal(host))
		return req.Body == http.NoBody || req.ContentLength == 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	up, err := s.connect(ctx, t, host, port)
	cancel()
	if err != nil {
		writeStatus(c, http.StatusBadGateway, fmt.Sprintf("agent-lsp: cannot reach %s: %v\n", req.URL.Host, err))
		return false
	}
	defer up.Close()
	if !t.track(up) {
		return false
	}
	defer t.untrack(up)
	clientClose := req.Close
	for _, h := range []string{"Proxy-Connection", "Proxy-Authorization", "Connection", "Keep-Alive"} {
		req.Header.Del(h)
	}
	req.Close = true // one request per upstream connection
	if err := req.Write(up); err != nil {
		writeStatus(c, http.StatusBadGateway, fmt.Sprintf("agent-lsp: sending to %s: %v\n", req.URL.Host, err))
		return false
	}
	resp, err := http.ReadResponse(bufio.NewReader(up), req)
	if err != nil {
		writeStatus(c, http.StatusBadGateway, fmt.Sprintf("agent-lsp: reading from %s: %v\n", req.URL.Host, err))
		return false
	}
	defer resp.Body.Close()
	// The command's stream stays open for its next request when the
	// answer's end can be known without closing it.
	keep := !clientClose && (resp.ContentLength >= 0 || len(resp.TransferEncoding) > 0)
	resp.Close = !keep
	return resp.Write(c) == nil && keep
}

// refusal is the body of a 403: the host, and the setting that grants
// it.
func refusal(host string) string {
	return fmt.Sprintf("agent-lsp: the sandbox refused %s: the host is not in the settings' %s (or is in deniedDomains). Ask the user to allow it.\n", normalHost(host), Setting)
}

func writeStatus(c net.Conn, code int, body string) {
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", code, http.StatusText(code), len(body), body)
}

// pipe copies both ways between the command's stream (what br holds
// first) and up, until both directions end.
func pipe(c net.Conn, br *bufio.Reader, up net.Conn) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(up, br)
		if cw, ok := up.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
	}()
	io.Copy(c, up)
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
	<-done
}

func (s *Server) connect(ctx context.Context, t *Ticket, host, port string) (net.Conn, error) {
	s.mu.Lock()
	dial := s.dial
	s.mu.Unlock()
	if dial != nil {
		return dial(ctx, "tcp", net.JoinHostPort(host, port))
	}
	return dialHost(ctx, host, port, t.policy.names(host))
}

// names reports whether host is granted by its own name (an exact
// Allowed entry, not a wildcard): only then may it lead to the host's
// own loopback or link-local addresses.
func (p Policy) names(host string) bool {
	h := normalHost(host)
	return slices.ContainsFunc(p.Allowed, func(a string) bool { return normalPattern(a) == h })
}

// dialHost resolves host and connects to the first address that
// answers. Loopback, link-local (cloud metadata) and unspecified
// addresses are refused unless exact: a granted name must not lead to
// the sidecar's machine's own services.
func dialHost(ctx context.Context, host, port string, exact bool) (net.Conn, error) {
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	var last error = fmt.Errorf("no address for %s", host)
	for _, a := range addrs {
		if !exact && (a.IP.IsLoopback() || a.IP.IsLinkLocalUnicast() || a.IP.IsUnspecified()) {
			last = fmt.Errorf("%s resolves to %s, an address of this machine or its link, which only a grant naming %s exactly allows", host, a.IP, host)
			continue
		}
		c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(a.IP.String(), port))
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, last
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return hex.EncodeToString(b)
}
