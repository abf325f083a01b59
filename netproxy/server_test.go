package netproxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// serve starts a Server whose every name leads to web, and returns a
// function that opens a stream to it under policy, as the bridge's
// would be.
func serve(t *testing.T, web *httptest.Server, policy Policy, ask func(context.Context, string) bool) (*Ticket, func() net.Conn) {
	t.Helper()
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.SetDial(func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, web.Listener.Addr().String())
	})
	tk := s.Register(policy, ask)
	t.Cleanup(tk.Close)
	return tk, func() net.Conn {
		a, b := net.Pipe()
		go func() {
			defer b.Close()
			s.ServeConn(tk, b)
		}()
		t.Cleanup(func() { a.Close() })
		return a
	}
}

func TestServeConn(t *testing.T) {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s%s\n", r.Host, r.URL.Path)
	}))
	defer web.Close()
	asked := []string{}
	ask := func(_ context.Context, host string) bool {
		asked = append(asked, host)
		return host == "granted-now.test"
	}
	tk, open := serve(t, web, Policy{Allowed: []string{"ok.test", "*.cdn.test"}, Denied: []string{"bad.cdn.test"}}, ask)

	tests := []struct {
		name, request string
		want          []string
	}{
		{"plain allowed", "GET http://ok.test/a HTTP/1.1\r\nHost: ok.test\r\n\r\n", []string{"200 OK", "hello from ok.test/a"}},
		{"plain refused", "GET http://no.test/a HTTP/1.1\r\nHost: no.test\r\n\r\n", []string{"403 Forbidden", "refused no.test", "sandbox.network.allowedDomains"}},
		{"connect allowed", "CONNECT x.cdn.test:443 HTTP/1.1\r\nHost: x.cdn.test:443\r\n\r\nGET /t HTTP/1.1\r\nHost: x.cdn.test\r\n\r\n", []string{"200 Connection established", "hello from x.cdn.test/t"}},
		{"connect denied", "CONNECT bad.cdn.test:443 HTTP/1.1\r\nHost: bad.cdn.test:443\r\n\r\n", []string{"403 Forbidden", "refused bad.cdn.test"}},
		{"asked again: refused without a question", "GET http://no.test/b HTTP/1.1\r\nHost: no.test\r\n\r\n", []string{"403 Forbidden"}},
		{"connect asked and granted", "CONNECT granted-now.test:80 HTTP/1.1\r\nHost: granted-now.test:80\r\n\r\nGET / HTTP/1.1\r\nHost: granted-now.test\r\n\r\n", []string{"200 Connection established", "hello from granted-now.test/"}},
		{"granted now, again without a question", "GET http://granted-now.test/again HTTP/1.1\r\nHost: granted-now.test\r\n\r\n", []string{"hello from granted-now.test/again"}},
		{"connect without port", "CONNECT ok.test HTTP/1.1\r\nHost: ok.test\r\n\r\n", []string{"400 Bad Request"}},
		{"origin-form request", "GET /a HTTP/1.1\r\nHost: ok.test\r\n\r\n", []string{"400 Bad Request", "absolute http:// URL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := open()
			go io.WriteString(c, tt.request)
			br := bufio.NewReader(c)
			var got strings.Builder
			for _, want := range tt.want {
				for !strings.Contains(got.String(), want) {
					line, err := br.ReadString('\n')
					got.WriteString(line)
					if err != nil {
						t.Fatalf("no %q in %q: %v", want, got.String(), err)
					}
				}
			}
		})
	}
	if got := tk.Refused(); !slices.Equal(got, []string{"no.test", "bad.cdn.test"}) {
		t.Errorf("refused %q", got)
	}
	if !slices.Equal(asked, []string{"no.test", "granted-now.test"}) {
		t.Errorf("asked about %q; a denied host must not be asked about", asked)
	}
}

// TestDialHostLoopback checks that a granted name that resolves to this
// machine's loopback is refused unless granted by that very name.
func TestDialHostLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	if _, err := dialHost(context.Background(), "localhost", port, false); err == nil || !strings.Contains(err.Error(), "only a grant naming localhost exactly") {
		t.Errorf("a wildcard grant reached localhost: %v", err)
	}
	c, err := dialHost(context.Background(), "127.0.0.1", port, true)
	if err != nil {
		t.Fatalf("an exact grant of 127.0.0.1 failed: %v", err)
	}
	c.Close()
}

// TestControlUnknownToken checks that a control connection with a token
// the server never issued gets nothing.
func TestControlUnknownToken(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := net.Dial("unix", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, hello+"made-up\n")
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("the server kept a control connection with an unknown token: %v", err)
	}
}

func TestSOCKS5(t *testing.T) {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s\n", r.Host)
	}))
	defer web.Close()
	tk, open := serve(t, web, Policy{Allowed: []string{"ok.test"}, Denied: []string{"bad.test"}}, nil)
	connect := func(host string) []byte {
		return append(append([]byte{5, 1, 0, 3, byte(len(host))}, host...), 0, 80)
	}
	tests := []struct {
		name  string
		send  []byte
		reply byte // the CONNECT reply's code
		then  string
	}{
		{"allowed name", connect("ok.test"), 0, "hello from ok.test"},
		{"other name", connect("other.test"), 2, ""},
		{"denied name", connect("bad.test"), 2, ""},
		{"ip not granted", []byte{5, 1, 0, 1, 127, 0, 0, 1, 0, 80}, 2, ""},
		{"bind is not served", []byte{5, 2, 0, 3, 7, 'o', 'k', '.', 't', 'e', 's', 't', 0, 80}, 7, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := open()
			go c.Write(append([]byte{5, 1, 0}, tt.send...))
			got := make([]byte, 2+10)
			if _, err := io.ReadFull(c, got); err != nil {
				t.Fatal(err)
			}
			if got[0] != 5 || got[1] != 0 || got[3] != tt.reply {
				t.Fatalf("replies %v, want no authentication, then code %d", got, tt.reply)
			}
			if tt.then == "" {
				return
			}
			go io.WriteString(c, "GET / HTTP/1.0\r\nHost: ok.test\r\n\r\n")
			br := bufio.NewReader(c)
			var body strings.Builder
			for !strings.Contains(body.String(), tt.then) {
				line, err := br.ReadString('\n')
				body.WriteString(line)
				if err != nil {
					t.Fatalf("got %q through the tunnel: %v", body.String(), err)
				}
			}
		})
	}
	if got := tk.Refused(); !slices.Equal(got, []string{"other.test", "bad.test", "127.0.0.1"}) {
		t.Errorf("refused %q", got)
	}
}
