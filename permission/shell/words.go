package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word is a shell word as far as it can be known without running
// anything.
type Word struct {
	// value is the word after quote removal, when literal.
	value string
	// literal is true when the word has one known value: no expansions,
	// no glob or brace patterns, no tilde.
	literal bool
	// expands is true when the word holds expansions ($x, $(...), ...):
	// a word neither literal nor expanding only holds patterns.
	expands bool
	// src is the word as written.
	src string
	// glob is, for a word that only holds patterns (no expansions), the
	// pattern in filepath.Match syntax, "" when it cannot be expressed
	// (brace expansion, ~user). tilde says it starts at the home
	// directory: glob is then the rest after "~".
	glob  string
	tilde bool
	// quoted says every part of the word is quoted: its value, even when
	// only known at run time, stays one word.
	quoted bool
}

// canon is the word's token for rule matching: a literal word in a
// canonical quoting, anything else as written. The two never collide:
// canonical quoting of a value that holds $, *, ~, { or a quote always
// quotes it.
func (w Word) canon() string {
	if w.literal {
		return shellQuote(w.value)
	}
	return w.src
}

// nodeSource prints n back as source. A Printer is not safe for
// concurrent use, so each call makes its own.
func nodeSource(n syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, n); err != nil {
		return "?"
	}
	return b.String()
}

// resolveWord works out w's value when it is literal.
func resolveWord(w *syntax.Word) Word {
	out := Word{src: nodeSource(w), literal: true, quoted: len(w.Parts) > 0}
	var (
		b   strings.Builder
		g   strings.Builder // the filepath.Match pattern
		pat patternState
	)
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			out.quoted = false
			b.WriteString(pat.unescape(p.Value, i == 0))
			pat.toGlob(&g, p.Value, i == 0, &out.tilde)
			if pat.pattern {
				out.literal = false
			}
		case *syntax.SglQuoted:
			v := p.Value
			if p.Dollar {
				var ok bool
				if v, ok = decodeANSIC(v); !ok {
					out.literal, out.expands = false, true
				}
			}
			b.WriteString(v)
			g.WriteString(escapeMatch(v))
		case *syntax.ProcSubst:
			if p.Op != syntax.CmdIn || len(w.Parts) != 1 {
				out.quoted = false
				out.literal, out.expands = false, true
				continue
			}
			// <(cmd) is a pipe holding cmd's output; cmd is checked
			// as a command of its own.
			out.quoted = false
			b.WriteString("/dev/stdin")
			g.WriteString("/dev/stdin")
		case *syntax.DblQuoted:
			if p.Dollar {
				out.literal, out.expands = false, true
			}
			for _, dp := range p.Parts {
				lit, ok := dp.(*syntax.Lit)
				if !ok {
					out.literal, out.expands = false, true
					continue
				}
				b.WriteString(unescapeDouble(lit.Value))
				g.WriteString(escapeMatch(unescapeDouble(lit.Value)))
			}
		default:
			out.quoted = false
			out.literal, out.expands = false, true
		}
	}
	if out.literal {
		out.value = b.String()
		out.tilde = false
	} else if !out.expands && !pat.braceExp {
		out.glob = g.String()
		if out.tilde && out.glob != "" && !strings.HasPrefix(out.glob, "/") {
			out.glob, out.tilde = "", false // ~user
		}
	}
	return out
}

// decodeANSIC decodes the body of $'...' when it only uses the common
// escapes; ok is false otherwise.
func decodeANSIC(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\\', '\'', '"', '?':
			b.WriteByte(s[i])
		default:
			return "", false
		}
	}
	return b.String(), true
}

// escapeMatch escapes filepath.Match's special characters.
func escapeMatch(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`*?[]\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// toGlob appends the unquoted literal s to a filepath.Match pattern: glob
// characters stay, escaped ones are escaped, [!...] becomes [^...], a
// leading ~ sets tilde.
func (ps *patternState) toGlob(g *strings.Builder, s string, first bool, tilde *bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					g.WriteString(escapeMatch(string(s[i])))
				}
			}
		case c == '~' && i == 0 && first:
			*tilde = true
		case c == '[':
			g.WriteByte('[')
			if i+1 < len(s) && s[i+1] == '!' {
				g.WriteByte('^')
				i++
			}
		default:
			g.WriteByte(c)
		}
	}
}

// patternState follows the unquoted parts of one word, to tell whether
// the shell would expand it: a glob (*, ?, [...]), a brace expansion
// ({...}) or a leading tilde. Brackets and braces count even when quoted
// text sits between them, as in ["x"].
type patternState struct {
	bracket, brace bool // an unquoted [ or { was seen
	pattern        bool
	// braceBody is the unquoted text since the last {; braceExp says a
	// {...} held a , or .. (a brace expansion: "@{u}" is not one).
	braceBody strings.Builder
	braceExp  bool
}

// unescape removes backslashes from an unquoted literal and updates the
// state.
func (ps *patternState) unescape(s string, first bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					b.WriteByte(s[i])
				}
			}
			continue
		case c == '*' || c == '?':
			ps.pattern = true
		case c == '[':
			ps.bracket = true
		case c == '{':
			ps.brace = true
			ps.braceBody.Reset()
		case c == '}' && ps.brace:
			if body := ps.braceBody.String(); strings.Contains(body, ",") || strings.Contains(body, "..") {
				ps.pattern, ps.braceExp = true, true
			}
		case c == ']' && ps.bracket:
			ps.pattern = true
		case c == '~' && i == 0 && first:
			ps.pattern = true
		}
		if ps.brace {
			ps.braceBody.WriteByte(c)
		}
		b.WriteByte(c)
	}
	return b.String()
}

// unescapeDouble removes the backslashes that escape within double quotes.
func unescapeDouble(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// shellQuote quotes s for the shell when it needs quoting, in one
// canonical way: plain when every byte is safe, else single quotes.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.IndexByte("_@%+=:,./-^", c) >= 0) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// joinCanon joins the canonical tokens of words with single spaces.
func joinCanon(words []Word) string {
	toks := make([]string, len(words))
	for i, w := range words {
		toks[i] = w.canon()
	}
	return strings.Join(toks, " ")
}
