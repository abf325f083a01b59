package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/google/jsonschema-go/jsonschema"
)

//go:embed webfetch.md
var webFetchDescription string

// WebFetch limits.
var (
	// WebFetchMaxBytes is the most bytes of a response body read.
	WebFetchMaxBytes int64 = 10 << 20
	// WebFetchMaxChars is the most characters of page text (markdown)
	// returned or given to the small model.
	WebFetchMaxChars = 100_000
	// webFetchTimeout bounds one fetch.
	webFetchTimeout = 60 * time.Second
)

// Asker answers a prompt with a small, fast model call: WebFetch uses it
// to answer its prompt about a page instead of returning the page.
type Asker func(ctx context.Context, system, prompt string) (string, error)

// webFetchTool is the WebFetch tool.
type webFetchTool struct {
	env    *Env
	client *http.Client
}

type webFetchInput struct {
	URL    string `json:"url" jsonschema:"The URL to fetch content from"`
	Prompt string `json:"prompt" jsonschema:"The prompt to run on the fetched content"`
}

var webFetchSchema = InputSchema[webFetchInput](func(s *jsonschema.Schema) {
	Property(s, "url").Format = "uri"
})

func newWebFetchTool(env *Env) *webFetchTool {
	if env.HTTP != nil {
		return &webFetchTool{env: env, client: env.HTTP}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyFromEnvironment
	return &webFetchTool{env: env, client: &http.Client{Transport: tr, Timeout: webFetchTimeout}}
}

func (t *webFetchTool) Spec() Spec {
	return Spec{
		Name:        "WebFetch",
		Description: webFetchDescription,
		InputSchema: webFetchSchema(),
		Kind:        schema.KindFetch,
		ReadOnly:    true,
		Access:      AccessFetch,
	}
}

// parse decodes the input and returns the URL to fetch: http is upgraded
// to https except on loopback addresses.
func (t *webFetchTool) parse(input json.RawMessage) (webFetchInput, *url.URL, error) {
	var in webFetchInput
	if err := DecodeInput(input, &in); err != nil {
		return in, nil, err
	}
	u, err := url.Parse(strings.TrimSpace(in.URL))
	if err != nil || u.Host == "" {
		return in, nil, fmt.Errorf("url: %q is not a valid absolute URL", in.URL)
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !isLoopback(u.Hostname()) {
			u.Scheme = "https"
		}
	default:
		return in, nil, fmt.Errorf("url: scheme %q is not supported; use http or https", u.Scheme)
	}
	if u.User != nil {
		return in, nil, fmt.Errorf("url: URLs with a user name or password are not fetched")
	}
	return in, u, nil
}

// isLoopback reports whether host names this machine.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (t *webFetchTool) Preview(_ context.Context, input json.RawMessage) (*Preview, error) {
	_, u, err := t.parse(input)
	if err != nil {
		return nil, err
	}
	return &Preview{Title: fetchTitle(u)}, nil
}

// fetchTitle names a fetch in the user's words: "Fetch example.com/page"
// (an https URL without its scheme; others keep it).
func fetchTitle(u *url.URL) string {
	return "Fetch " + strings.TrimSuffix(strings.TrimPrefix(u.String(), "https://"), "/")
}

// errRedirect stops the client at a redirect to another host.
type errRedirect struct{ to *url.URL }

func (e *errRedirect) Error() string { return "redirect to " + e.to.String() }

func (t *webFetchTool) Run(ctx context.Context, input json.RawMessage) *Result {
	in, u, err := t.parse(input)
	if err != nil {
		return inputError(err)
	}
	title := fetchTitle(u)
	page, status, redirect, err := t.fetch(ctx, u)
	switch {
	case redirect != nil:
		// As Claude Code does: the model asks again, and the new host is
		// permitted on its own.
		return &Result{Title: title, Content: fmt.Sprintf(`REDIRECT DETECTED: The URL redirects to a different host.

Original URL: %s
Redirect URL: %s
Status: %d

To complete your request, I need to fetch content from the redirected URL. Please use WebFetch again with these parameters:
- url: %q
- prompt: %q`, u, redirect, status, redirect.String(), in.Prompt)}
	case err != nil:
		return &Result{Title: title, Content: fmt.Sprintf("fetching %s: %v", u, err), IsError: true}
	case status >= 400:
		return &Result{Title: title, Content: fmt.Sprintf("fetching %s: the server answered %d %s\n\n%s", u, status, http.StatusText(status), truncateChars(page, 2000)), IsError: true}
	}
	text, cut := truncateCharsNoted(page, WebFetchMaxChars)
	if t.env.Ask != nil {
		answer, err := t.env.Ask(ctx, webFetchSystem, fmt.Sprintf("Web page content from %s:\n---\n%s\n---\n\n%s", u, text, in.Prompt))
		if err == nil {
			return &Result{Title: title, Content: answer}
		}
		if ctx.Err() != nil {
			return Errorf("the fetch was cancelled")
		}
		// Fall back to the page itself: the model can read it.
		text = fmt.Sprintf("(Answering the prompt with the small model failed: %v. The page follows.)\n\n%s", err, text)
	}
	if cut {
		text += fmt.Sprintf("\n\n[Content truncated: the page is longer than %d characters.]", WebFetchMaxChars)
	}
	return &Result{Title: title, Content: text}
}

const webFetchSystem = "You answer a question about a web page using only its content, given below. Be concise; quote exact text where it matters (code, numbers, names). If the page does not answer the question, say so."

// fetch gets u, following redirects only within the same host. It
// returns the page as text (HTML converted to markdown) and its status, or the URL of a redirect to another host.
func (t *webFetchTool) fetch(ctx context.Context, u *url.URL) (page string, status int, redirect *url.URL, err error) {
	client := *t.client
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if !sameHost(via[0].URL, req.URL) {
			return &errRedirect{to: req.URL}
		}
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", 0, nil, err
	}
	req.Header.Set("User-Agent", "agent-lsp (WebFetch)")
	req.Header.Set("Accept", "text/markdown, text/html;q=0.9, text/plain;q=0.8, */*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		var re *errRedirect
		if errors.As(err, &re) {
			code := 302
			if resp != nil {
				code = resp.StatusCode
			}
			return "", code, re.to, nil
		}
		return "", 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, WebFetchMaxBytes))
	if err != nil {
		return "", resp.StatusCode, nil, fmt.Errorf("reading the response: %w", err)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml" || mt == "" && looksHTML(body):
		md, err := htmltomarkdown.ConvertString(string(body))
		if err != nil {
			return "", resp.StatusCode, nil, fmt.Errorf("converting the HTML to markdown: %w", err)
		}
		return md, resp.StatusCode, nil, nil
	case strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "json") || strings.HasSuffix(mt, "xml") || mt == "application/javascript":
		return string(body), resp.StatusCode, nil, nil
	case mt == "" && utf8.Valid(body):
		return string(body), resp.StatusCode, nil, nil
	}
	return fmt.Sprintf("(The response is %s, %d bytes: not text; nothing to show.)", mt, len(body)), resp.StatusCode, nil, nil
}

// sameHost reports whether b is on a's host, allowing the www. prefix to
// come or go (example.com and www.example.com), as Claude Code does.
func sameHost(a, b *url.URL) bool {
	ha := strings.TrimPrefix(strings.ToLower(a.Hostname()), "www.")
	hb := strings.TrimPrefix(strings.ToLower(b.Hostname()), "www.")
	return ha == hb && a.Port() == b.Port()
}

func looksHTML(b []byte) bool {
	head := strings.ToLower(string(b[:min(len(b), 512)]))
	return strings.Contains(head, "<html") || strings.Contains(head, "<!doctype html")
}

// truncateChars cuts s to at most n bytes on a UTF-8 boundary.
func truncateChars(s string, n int) string {
	out, _ := truncateCharsNoted(s, n)
	return out
}

func truncateCharsNoted(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}
