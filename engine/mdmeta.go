package engine

import (
	"strings"
)

// mdMeta is the YAML frontmatter of a command or skill file, read as
// the flat subset those files use: "key: value" lines, values optionally
// quoted, and lists written inline ([a, b]), as "- item" lines, or as a
// comma-separated string.
type mdMeta map[string][]string

// splitMeta splits a markdown file into its frontmatter and its body. A
// file without frontmatter has empty meta.
func splitMeta(text string) (mdMeta, string) {
	meta := mdMeta{}
	front, rest, ok := frontmatter([]byte(text))
	if !ok {
		return meta, text
	}
	head, body := string(front), string(rest)
	// A blank line between the frontmatter and the text is not text.
	if i := strings.IndexByte(body, '\n'); i >= 0 && strings.TrimSpace(body[:i]) == "" {
		body = body[i+1:]
	} else if strings.TrimSpace(body) == "" {
		body = ""
	}
	key := ""
	for _, line := range strings.Split(head, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case strings.HasPrefix(trimmed, "- ") && key != "":
			meta[key] = append(meta[key], unquote(strings.TrimSpace(trimmed[2:])))
		default:
			k, v, ok := strings.Cut(trimmed, ":")
			if !ok {
				continue
			}
			key = strings.TrimSpace(k)
			v = strings.TrimSpace(v)
			if v == "" {
				meta[key] = nil
			} else {
				meta[key] = []string{unquote(v)}
			}
		}
	}
	return meta, body
}

// get returns a scalar field as written (an inline list keeps its
// brackets: argument-hint: [pr-number] is shown as such).
func (m mdMeta) get(key string) string { return strings.Join(m[key], ", ") }

// list returns a list field: "- item" lines, an inline [a, b] list, or a
// string split on the commas outside parentheses.
func (m mdMeta) list(key string) []string {
	var out []string
	for _, v := range m[key] {
		if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
			v = v[1 : len(v)-1]
		}
		out = append(out, splitList(v)...)
	}
	return out
}

// splitList splits "a, b(c, d), e" on the commas outside parentheses.
func splitList(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				if v := unquote(strings.TrimSpace(s[start:i])); v != "" {
					out = append(out, v)
				}
				start = i + 1
			}
		}
	}
	if v := unquote(strings.TrimSpace(s[start:])); v != "" {
		out = append(out, v)
	}
	return out
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

// toolNameOf returns the tool a permission-style entry names:
// "Bash(git status:*)" is Bash.
func toolNameOf(entry string) string {
	name, _, _ := strings.Cut(entry, "(")
	return strings.TrimSpace(name)
}
