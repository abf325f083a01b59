package tools

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestWebFetch(t *testing.T) {
	big := strings.Repeat("word ", WebFetchMaxChars/4)
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><body><h1>Title</h1><p>Some <b>bold</b> text and <a href="/x">a link</a>.</p></body></html>`)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, big)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/page", http.StatusFound)
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		// The same server under another host name.
		http.Redirect(w, r, strings.Replace("http://"+r.Host, "127.0.0.1", "localhost", 1)+"/page", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		http.NotFound(w, r)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	tests := []struct {
		path    string
		want    []string
		notWant []string
		isError bool
	}{
		{path: "/page", want: []string{"# Title", "Some **bold** text and [a link](/x)."}, notWant: []string{"<p>"}},
		{path: "/big", want: []string{"[Content truncated: the page is longer than"}},
		{path: "/moved", want: []string{"# Title"}},
		{path: "/away", want: []string{"REDIRECT DETECTED", "Redirect URL: http://localhost:"}, notWant: []string{"# Title"}},
		{path: "/missing", want: []string{"404"}, isError: true},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			te := newTestEnv(t)
			res := te.run(t, "WebFetch", map[string]any{"url": srv.URL + tt.path, "prompt": "what is it?"})
			if res.IsError != tt.isError {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Content)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("result lacks %q:\n%.500s", w, res.Content)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(res.Content, w) {
					t.Errorf("result has %q:\n%.500s", w, res.Content)
				}
			}
			if len(res.Content) > WebFetchMaxChars+200 {
				t.Errorf("result is %d bytes, more than the cap", len(res.Content))
			}
		})
	}
}

func TestWebFetchAsksSmallModel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<p>The answer is 42.</p>`)
	}))
	defer srv.Close()
	te := newTestEnv(t)
	var asked string
	te.Ask = func(_ context.Context, system, prompt string) (string, error) {
		asked = prompt
		return "It says 42.", nil
	}
	res := te.run(t, "WebFetch", map[string]any{"url": srv.URL, "prompt": "what is the answer?"})
	if res.IsError || res.Content != "It says 42." {
		t.Fatalf("result = %+v", res)
	}
	if !strings.Contains(asked, "The answer is 42.") || !strings.HasSuffix(asked, "what is the answer?") {
		t.Errorf("small model asked %q", asked)
	}
}

func TestWebFetchURL(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{in: "http://example.com/a", want: "https://example.com/a"},
		{in: "http://127.0.0.1:8080/a", want: "http://127.0.0.1:8080/a"},
		{in: "http://localhost/a", want: "http://localhost/a"},
		{in: "http://[::1]/a", want: "http://[::1]/a"},
		{in: "ftp://example.com/", err: "scheme"},
		{in: "example.com", err: "not a valid absolute URL"},
		{in: "https://user:pw@example.com/", err: "password"},
	}
	tool := newWebFetchTool(&Env{})
	for _, tt := range tests {
		_, u, err := tool.parse(rawInput(t, map[string]any{"url": tt.in, "prompt": "p"}))
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v, want %q", tt.in, err, tt.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.in, err)
		case u.String() != tt.want:
			t.Errorf("%s became %s, want %s", tt.in, u, tt.want)
		}
	}
}
