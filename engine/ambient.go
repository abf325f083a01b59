package engine

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
)

// Ambient context is what the editor shows the user without being asked:
// the file open in the active editor and its selection. An editor sends
// them with a prompt as content blocks marked
// _meta["agent-lsp"].ambient ("open" on a resource_link, "selection" on a
// resource whose URI ends in #L<start>-L<end>), and the model is told of
// them in the words Claude Code's IDE integration uses. Unlike a file the
// user attaches on purpose, an ambient file reaches the model only when a
// Read of it would be allowed without asking: a file a deny or ask rule
// covers, or one outside the workspace, is left out and the user told.

// ambientKey is the _meta["agent-lsp"] field that marks an ambient block.
const ambientKey = "ambient"

// Kinds of ambient context.
const (
	ambientOpen      = "open"
	ambientSelection = "selection"
)

// maxAmbientSelection bounds the selected text sent with a prompt.
const maxAmbientSelection = 20_000

// ambientKind returns the ambient kind of a prompt block, or "".
func ambientKind(b schema.ContentBlock) string {
	m, ok := b.Meta[metaKey].(map[string]any)
	if !ok {
		return ""
	}
	k, _ := m[ambientKey].(string)
	if k == "" {
		// A marked block of no known kind is still ambient: it is
		// dropped rather than sent as an attachment.
		if _, marked := m[ambientKey]; marked {
			return "unknown"
		}
	}
	return k
}

// ambientContext renders the prompt's ambient blocks as Claude Code's
// reminders, leaving out what the rules do not let the model read, and
// returns them with notes on what was left out.
func (s *Session) ambientContext(prompt []schema.ContentBlock) (reminders []providers.Block, notes []string) {
	for _, b := range prompt {
		kind := ambientKind(b)
		if kind == "" {
			continue
		}
		uri := b.URI
		if b.Resource != nil {
			uri = b.Resource.URI
		}
		path, lines := ambientPath(uri)
		if path == "" {
			notes = append(notes, fmt.Sprintf("the editor's context %q is not a file; not sent", uri))
			continue
		}
		if why := s.ambientRefused(path); why != "" {
			notes = append(notes, fmt.Sprintf("%s was not sent with the prompt: %s", path, why))
			continue
		}
		switch {
		case kind == ambientOpen:
			reminders = append(reminders, providers.TextBlock(systemReminder(fmt.Sprintf(
				"The user opened the file %s in the IDE. This may or may not be related to the current task.", path))))
		case kind == ambientSelection && b.Resource != nil && lines[0] > 0:
			text := b.Resource.Text
			if len(text) > maxAmbientSelection {
				text = text[:maxAmbientSelection] + "\n… (the selection goes on)"
			}
			reminders = append(reminders, providers.TextBlock(systemReminder(fmt.Sprintf(
				"The user selected the lines %d to %d from %s:\n%s\n\nThis may or may not be related to the current task.", lines[0], lines[1], path, text))))
		default:
			notes = append(notes, fmt.Sprintf("the editor's context for %s is not an open file or a selection with its lines; not sent", path))
		}
	}
	return reminders, notes
}

// ambientRefused says why path may not go to the model unasked, or "".
func (s *Session) ambientRefused(path string) string {
	d := s.pipe.gate.policy.Decide(permission.Call{Tool: "Read", Paths: []string{path}, ReadOnly: true, Kind: schema.KindRead, Cwd: s.cwd})
	if d.Verdict == permission.Allow {
		return ""
	}
	if d.Reason != "" {
		return "reading it is not allowed without asking (" + d.Reason + ")"
	}
	return "reading it is not allowed without asking"
}

// ambientPath returns the file path of a file:// URI and the line range
// of its #L<start>-L<end> fragment (zeros when it has none).
func ambientPath(uri string) (string, [2]int) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", [2]int{}
	}
	var lines [2]int
	if f := strings.TrimPrefix(u.Fragment, "L"); f != u.Fragment {
		a, b, found := strings.Cut(f, "-L")
		start, err1 := strconv.Atoi(a)
		end, err2 := strconv.Atoi(b)
		if !found {
			end, err2 = start, nil
		}
		if err1 == nil && err2 == nil && start > 0 && end >= start {
			lines = [2]int{start, end}
		}
	}
	return u.Path, lines
}

// systemReminder wraps text as Claude Code wraps what the model is told
// beside the user's words.
func systemReminder(text string) string {
	return "<system-reminder>\n" + text + "\n</system-reminder>"
}

// isSystemReminder reports whether a user text block is a reminder the
// session added, not words the user typed.
func isSystemReminder(text string) bool {
	return strings.HasPrefix(text, "<system-reminder>") && strings.HasSuffix(strings.TrimSpace(text), "</system-reminder>")
}

// notifyAmbient tells the user what of the editor's context was not sent.
func (s *Session) notifyAmbient(ctx context.Context, notes []string) {
	for _, n := range notes {
		s.status(ctx, Status{Kind: StatusWarning, Message: n})
	}
}
