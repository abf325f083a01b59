package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/providers"
)

// Benchmarks for docs/benchmarks.md ("Sessions"). The large ones generate
// their files under b.TempDir and are skipped with -short:
//
//	go test -run '^$' -bench . -benchtime 20x ./session/

// codeText returns n bytes of source-like text (quotes, tabs and newlines
// to escape), as tool results mostly are.
func codeText(n int) string {
	const chunk = "func (s *Server) handle(ctx context.Context, req *Request) error {\n\tif err := s.check(req); err != nil {\n\t\treturn fmt.Errorf(\"handling %q: %w\", req.Method, err)\n\t}\n\treturn nil\n}\n\n"
	return strings.Repeat(chunk, n/len(chunk)+1)[:n]
}

// turn returns the i-th message of a generated session: a prompt, an
// assistant reply with a tool call, or a tool result of resultSize bytes.
func turn(i, resultSize int) providers.Message {
	switch i % 3 {
	case 0:
		return text(providers.RoleUser, fmt.Sprintf("Step %d: look at the handler and tell me what could go wrong with the error wrapping there.", i))
	case 1:
		input, _ := json.Marshal(map[string]string{"file_path": fmt.Sprintf("/work/proj/internal/server/handler_%d.go", i)})
		return providers.Message{Role: providers.RoleAssistant, Content: []providers.Block{
			providers.TextBlock("I'll read the handler to check how errors are wrapped before answering. " + codeText(300)),
			{Type: providers.BlockToolUse, ID: fmt.Sprintf("toolu_%06d", i), Name: "Read", Input: input},
		}}
	default:
		return providers.Message{Role: providers.RoleUser, Content: []providers.Block{
			providers.ToolResultBlock(fmt.Sprintf("toolu_%06d", i-1), codeText(resultSize), false),
		}}
	}
}

// sessionSpec describes a generated session.
type sessionSpec struct {
	name       string
	messages   int
	resultSize int   // bytes of each tool result
	compactAt  int64 // bytes of live context after which a summary is written; 0: never
	bigLine    int   // when > 0, one tool result of this size, 10 messages before the end
}

// generate writes a session into s and returns its size.
func generate(tb testing.TB, s *Store, cwd, id string, spec sessionSpec) int64 {
	tb.Helper()
	l, err := s.Create(cwd, id)
	if err != nil {
		tb.Fatal(err)
	}
	// As the engine does for every session it creates.
	if err := l.SetState(State{Mode: "default", Model: "claude-test"}); err != nil {
		tb.Fatal(err)
	}
	var live int64
	for i := range spec.messages {
		m := turn(i, spec.resultSize)
		if spec.bigLine > 0 && i == spec.messages-10 {
			m = providers.Message{Role: providers.RoleUser, Content: []providers.Block{
				providers.ToolResultBlock(fmt.Sprintf("toolu_%06d", i-1), codeText(spec.bigLine), false),
			}}
		}
		before := l.size
		if err := l.Append(m); err != nil {
			tb.Fatal(err)
		}
		live += l.size - before
		// No compaction after the big line: it stays in the live context,
		// the worst case for resuming.
		if spec.compactAt > 0 && live > spec.compactAt && i%3 == 2 && (spec.bigLine == 0 || i < spec.messages-10) {
			if err := l.AppendSummary("Summary of the conversation so far: "+codeText(4000), TriggerAuto); err != nil {
				tb.Fatal(err)
			}
			live = 0
		}
	}
	size := l.size
	if err := l.Close(); err != nil {
		tb.Fatal(err)
	}
	return size
}

func BenchmarkAppend(b *testing.B) {
	s := NewStore(b.TempDir(), "-")
	l, err := s.Create("/bench", "append")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	msgs := []providers.Message{turn(0, 0), turn(1, 0), turn(2, 2000)}
	var n int64
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		before := l.size
		if err := l.Append(msgs[i%3]); err != nil {
			b.Fatal(err)
		}
		n += l.size - before
		i++
	}
	b.ReportMetric(float64(n)/float64(i), "bytes/entry")
}

func BenchmarkAppendSync(b *testing.B) {
	s := NewStore(b.TempDir(), "-")
	l, err := s.Create("/bench", "append-sync")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	m := turn(2, 2000)
	for b.Loop() {
		if err := l.Append(m); err != nil {
			b.Fatal(err)
		}
		if err := l.Sync(); err != nil {
			b.Fatal(err)
		}
	}
}

// 800 KB of live context is about a 200k-token window; a session that
// large has been compacted many times.
const contextBytes = 800 << 10

var sessionSpecs = []sessionSpec{
	{name: "10k-messages-30MB", messages: 10_000, resultSize: 8_200, compactAt: contextBytes},
	{name: "35k-lines-100MB", messages: 35_000, resultSize: 7_900, compactAt: contextBytes},
	{name: "35k-lines-100MB-never-compacted", messages: 35_000, resultSize: 7_900},
	{name: "12MB-line", messages: 300, resultSize: 2_000, compactAt: contextBytes, bigLine: 12 << 20},
}

func BenchmarkSessions(b *testing.B) {
	if testing.Short() {
		b.Skip("generates large sessions")
	}
	s := NewStore(b.TempDir(), "-")
	for _, spec := range sessionSpecs {
		size := generate(b, s, "/bench", spec.name, spec)
		lines := countLines(b, s.ourPath("/bench", spec.name))
		b.Run(spec.name+"/resume", func(b *testing.B) {
			b.ReportAllocs()
			var h *History
			for b.Loop() {
				l, hist, err := s.Resume("/bench", spec.name)
				if err != nil {
					b.Fatal(err)
				}
				l.Close()
				h = hist
			}
			b.ReportMetric(float64(size)/(1<<20), "file-MB")
			b.ReportMetric(float64(lines), "lines")
			b.ReportMetric(float64(len(h.Messages)), "context-msgs")
		})
		b.Run(spec.name+"/load", func(b *testing.B) {
			b.ReportAllocs()
			var h *History
			for b.Loop() {
				hist, err := s.Load("/bench", spec.name)
				if err != nil {
					b.Fatal(err)
				}
				h = hist
			}
			b.ReportMetric(float64(len(h.Messages)), "msgs")
		})
	}
}

func countLines(tb testing.TB, path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return bytes.Count(data, []byte("\n"))
}

// BenchmarkList1GB lists 1 GB of sessions: 1,000 files of about 1 MB in
// 40 project directories, half ours and half Claude Code's.
func BenchmarkList1GB(b *testing.B) {
	if testing.Short() {
		b.Skip("generates 1 GB of sessions")
	}
	ours, claude := b.TempDir(), b.TempDir()
	s := NewStore(ours, claude)
	body := sessionBody(b, 1<<20)
	var total int64
	start := time.Now().Add(-time.Hour)
	for i := range 1000 {
		root := ours
		if i%2 == 1 {
			root = claude
		}
		cwd := fmt.Sprintf("/home/dev/project-%02d", i%40)
		path := filepath.Join(projectDir(root, cwd), fmt.Sprintf("session-%04d.jsonl", i))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			b.Fatal(err)
		}
		head := fmt.Sprintf(`{"type":"summary","summary":"Session %d","leafUuid":"x","sessionId":"session-%04d","cwd":%q,"timestamp":"2025-01-01T00:00:00.000Z"}`+"\n", i, i, cwd)
		if err := os.WriteFile(path, append([]byte(head), body...), 0o600); err != nil {
			b.Fatal(err)
		}
		at := start.Add(time.Duration(i) * time.Second)
		os.Chtimes(path, at, at)
		total += int64(len(head) + len(body))
	}
	b.Logf("generated %.2f GB in 1000 files", float64(total)/(1<<30))
	for _, c := range []struct {
		name, cwd string
		limit     int
	}{
		{"all-cwds-page-50", "", 50},
		{"one-cwd-page-50", "/home/dev/project-07", 50},
		{"all-cwds-everything", "", 0},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				infos, _, err := s.List(c.cwd, "", c.limit)
				if err != nil {
					b.Fatal(err)
				}
				if len(infos) == 0 {
					b.Fatal("nothing listed")
				}
			}
		})
	}
}

// sessionBody returns about size bytes of session lines.
func sessionBody(tb testing.TB, size int) []byte {
	dir := tb.TempDir()
	s := NewStore(dir, "-")
	generate(tb, s, "/g", "g", sessionSpec{messages: size / 3000, resultSize: 7000})
	data, err := os.ReadFile(s.ourPath("/g", "g"))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}
