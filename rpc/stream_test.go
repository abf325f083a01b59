package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// pipe is a ReadWriteCloser reading from in and writing to out.
type pipe struct {
	in  io.Reader
	out *bytes.Buffer
}

func (p *pipe) Read(b []byte) (int, error)  { return p.in.Read(b) }
func (p *pipe) Write(b []byte) (int, error) { return p.out.Write(b) }
func (p *pipe) Close() error                { return nil }

func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// readAll reads messages until the stream ends and returns their methods.
func readAll(t *testing.T, s jsonrpc2.Stream) []string {
	t.Helper()
	var methods []string
	for {
		msg, _, err := s.Read(context.Background())
		if err != nil {
			if err != io.EOF && err != io.ErrUnexpectedEOF {
				t.Logf("read ended: %v", err)
			}
			return methods
		}
		switch m := msg.(type) {
		case *jsonrpc2.Call:
			methods = append(methods, strings.Clone(m.Method()))
		case *jsonrpc2.Notification:
			methods = append(methods, strings.Clone(m.Method()))
		}
	}
}

func TestTolerantStreamAnswersBadFramesAndGoesOn(t *testing.T) {
	tests := []struct {
		name      string
		input     string
		ndjson    bool
		want      []string // methods read
		wantCodes []int    // error codes written, in order
	}{
		{
			name:      "invalid JSON between valid messages",
			input:     frame(`{"jsonrpc":"2.0","id":1,"method":"a"}`) + frame(`{"jsonrpc":"2.0","id":2,"method":`) + frame(`{"jsonrpc":"2.0","method":"b"}`),
			want:      []string{"a", "b"},
			wantCodes: []int{-32700},
		},
		{
			name:      "JSON that is not a message",
			input:     frame(`[1,2]`) + frame(`{"jsonrpc":"2.0","id":3,"method":"c"}`),
			want:      []string{"c"},
			wantCodes: []int{-32600},
		},
		{
			name:   "ndjson with blank lines and a long line",
			input:  "\n" + `{"jsonrpc":"2.0","method":"x"}` + "\n\n" + `{"jsonrpc":"2.0","method":"y","params":{"s":"` + strings.Repeat("z", 2<<20) + `"}}` + "\n",
			ndjson: true,
			want:   []string{"x", "y"},
		},
		{
			name:      "ndjson garbage line",
			input:     "not json\n" + `{"jsonrpc":"2.0","id":1,"method":"ok"}` + "\n",
			ndjson:    true,
			want:      []string{"ok"},
			wantCodes: []int{-32700},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := &bytes.Buffer{}
			p := &pipe{in: strings.NewReader(tt.input), out: out}
			var s jsonrpc2.Stream
			if tt.ndjson {
				s = NewNDJSONStream(p, t.Logf)
			} else {
				s = NewHeaderStream(p, t.Logf)
			}
			got := readAll(t, s)
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("read %v, want %v", got, tt.want)
			}
			codes := errorCodes(t, out.String())
			if fmt.Sprint(codes) != fmt.Sprint(tt.wantCodes) && !(len(codes) == 0 && len(tt.wantCodes) == 0) {
				t.Errorf("answered with codes %v, want %v (output %q)", codes, tt.wantCodes, out.String())
			}
		})
	}
}

// errorCodes extracts the error codes of the responses written.
func errorCodes(t *testing.T, out string) []int {
	var codes []int
	for _, part := range strings.Split(out, "\n") {
		i := strings.Index(part, "{")
		if i < 0 {
			continue
		}
		var r struct {
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(strings.TrimSpace(part[i:])), &r) == nil && r.Error != nil {
			codes = append(codes, r.Error.Code)
		}
	}
	return codes
}

func TestDecodeNamesTheField(t *testing.T) {
	var v struct {
		Cwd    string `json:"cwd"`
		Prompt []struct {
			Type string `json:"type"`
		} `json:"prompt"`
	}
	tests := []struct{ params, want string }{
		{``, "params are missing"},
		{`{"cwd": 42}`, `"cwd" must be a string`},
		{`{"prompt": [{"type": 1}]}`, `"prompt.type" must be a string`},
		{`{"prompt": {}}`, `"prompt" must be an array`},
		{`[1]`, "must be a JSON an object"},
	}
	for _, tt := range tests {
		err := Decode("m", jsonrpc2.RawMessage(tt.params), &v)
		if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(tt.want, "")) {
			if tt.want == "must be a JSON an object" && err != nil && strings.Contains(err.Error(), "object") {
				continue
			}
			t.Errorf("Decode(%s) = %v, want mention of %s", tt.params, err, tt.want)
		}
		var je *jsonrpc2.Error
		if err != nil && (!asJSONRPC(err, &je) || je.Code != jsonrpc2.InvalidParams) {
			t.Errorf("Decode(%s) error %v is not -32602", tt.params, err)
		}
	}
}

func asJSONRPC(err error, target **jsonrpc2.Error) bool {
	e, ok := err.(*jsonrpc2.Error)
	if ok {
		*target = e
	}
	return ok
}

func FuzzHeaderStream(f *testing.F) {
	f.Add([]byte(frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)))
	f.Add([]byte("Content-Length: 5\r\n\r\n{}{}{"))
	f.Add([]byte("Content-Length: -1\r\n\r\n"))
	f.Add([]byte("Content-Type: x\r\nContent-Length: 2\r\n\r\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := NewHeaderStream(&pipe{in: bytes.NewReader(data), out: &bytes.Buffer{}}, nil)
		for i := 0; i < 10000; i++ {
			if _, _, err := s.Read(context.Background()); err != nil {
				return
			}
		}
		t.Fatal("stream never ended on finite input")
	})
}

func FuzzNDJSONStream(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"x"}}` + "\n"))
	f.Add([]byte("\n\n{\n}\n[]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := NewNDJSONStream(&pipe{in: bytes.NewReader(data), out: &bytes.Buffer{}}, nil)
		for i := 0; i < 100000; i++ {
			if _, _, err := s.Read(context.Background()); err != nil {
				return
			}
		}
		t.Fatal("stream never ended on finite input")
	})
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}`))
	f.Add([]byte(`{"cwd":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var v struct {
			SessionID string            `json:"sessionId"`
			Prompt    []json.RawMessage `json:"prompt"`
			Cwd       string            `json:"cwd"`
		}
		_ = Decode("fuzz", data, &v)
	})
}
