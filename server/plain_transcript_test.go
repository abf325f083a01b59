package server

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTranscriptWriter: the plain door's transcript keeps one file open
// for its session, heads the model's text after other entries, closes
// the file on close, and still records an entry that comes after close.
func TestTranscriptWriter(t *testing.T) {
	type entry struct{ text, kind string }
	for _, tc := range []struct {
		name       string
		before     []entry // appended before close
		after      []entry // appended after close
		want       string
		openBefore bool // the file is open before close
	}{
		{
			name:       "a turn",
			before:     []entry{{"\n\n## You\n\nhi\n", "user"}, {"Hel", "agent"}, {"lo.", "agent"}, {"\n\n- `Read a.go`", "tool"}, {" — done", "tool"}, {"Done.", "agent"}},
			want:       "\n\n## You\n\nhi\n\n\n## Agent\n\nHello.\n\n- `Read a.go` — done\n\n## Agent\n\nDone.",
			openBefore: true,
		},
		{
			name:       "an entry after close",
			before:     []entry{{"\n\n## You\n\nhi\n", "user"}},
			after:      []entry{{"\n\n_cancelled_\n", "end"}},
			want:       "\n\n## You\n\nhi\n\n\n_cancelled_\n",
			openBefore: true,
		},
		{
			name:  "nothing written",
			after: []entry{},
			want:  "",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "transcripts", "s.md")
			tr := newTranscript(path, t.Logf)
			var first *os.File
			for _, e := range tc.before {
				tr.append(e.text, e.kind)
				if first == nil {
					first = tr.f
				}
				if tr.f != first {
					t.Fatalf("after %q the file is %p, want the one opened first (%p)", e.text, tr.f, first)
				}
			}
			if got := tr.f != nil; got != tc.openBefore {
				t.Errorf("file open before close = %v, want %v", got, tc.openBefore)
			}
			tr.close()
			for _, e := range tc.after {
				tr.append(e.text, e.kind)
			}
			if tr.f != nil {
				t.Errorf("the file is still open after close")
			}
			b, err := os.ReadFile(path)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("transcript =\n%q\nwant\n%q", b, tc.want)
			}
		})
	}
	var none *transcript // before the session exists
	none.append("x", "agent")
	none.close()
}

// TestTranscriptClosedWithItsSession: the transcript's file is closed
// when agent.newSession replaces the session (not while a turn runs) and
// when the connection ends.
func TestTranscriptClosedWithItsSession(t *testing.T) {
	for _, tc := range []struct {
		name    string
		running bool
		end     func(*plainDoor) bool // ends the session; reports whether it did
		closed  bool
	}{
		{name: "agent.newSession", end: (*plainDoor).endSession, closed: true},
		{name: "agent.newSession during a turn", running: true, end: (*plainDoor).endSession, closed: false},
		{name: "the connection ends", end: func(p *plainDoor) bool { p.close(); return true }, closed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newLSPDoor(Options{}).plain
			tr := newTranscript(filepath.Join(t.TempDir(), "s.md"), t.Logf)
			p.client, p.running = &plainClient{d: p, tr: tr}, tc.running
			tr.append("hi", "user")
			ended := tc.end(p)
			if ended == tc.running {
				t.Errorf("ended = %v with a turn running %v", ended, tc.running)
			}
			if got := tr.f == nil; got != tc.closed {
				t.Errorf("file closed = %v, want %v", got, tc.closed)
			}
		})
	}
}
