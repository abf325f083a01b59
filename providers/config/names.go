package config

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// claudeFamilies are the display names of Claude model families.
var claudeFamilies = map[string]string{
	"opus": "Opus", "sonnet": "Sonnet", "haiku": "Haiku", "fable": "Fable", "mythos": "Mythos",
}

// claudeID matches Anthropic's model ids, both spellings:
// claude-<family>-<major>[-<minor>] and claude-<major>[-<minor>]-<family>,
// with an optional date ("-20250929") after.
var claudeID = regexp.MustCompile(`^claude-(?:([a-z]+)-(\d+)(?:-(\d{1,2}))?|(\d+)(?:-(\d{1,2}))?-([a-z]+))(?:-(\d{8}))?$`)

// DisplayName is the name of a model in a picker: "Claude Opus 4.5" for
// claude-opus-4-5 (and its dated ids), "GPT-5 mini" for gpt-5-mini, and
// the id itself, its first letter capitalized, for others.
func DisplayName(id string) string {
	base := id
	if i := strings.LastIndex(base, "/"); i >= 0 {
		base = base[i+1:]
	}
	wide := strings.HasSuffix(base, "[1m]")
	base = strings.TrimSuffix(base, "[1m]")
	if m := claudeID.FindStringSubmatch(base); m != nil {
		family, major, minor := m[1], m[2], m[3]
		if family == "" {
			family, major, minor = m[6], m[4], m[5]
		}
		if name, ok := claudeFamilies[family]; ok {
			v := major
			if minor != "" {
				v += "." + minor
			}
			name = "Claude " + name + " " + v
			if wide {
				name += " (1M context)"
			}
			return name
		}
	}
	if rest, ok := strings.CutPrefix(base, "gpt-"); ok {
		version, variant, _ := strings.Cut(rest, "-")
		name := "GPT-" + version
		if variant != "" {
			name += " " + strings.ReplaceAll(variant, "-", " ")
		}
		return name
	}
	if openAIModel().MatchString(base) {
		return base // o3, o4-mini: OpenAI writes them so
	}
	if id == "" {
		return ""
	}
	r, n := utf8.DecodeRuneInString(id)
	return string(unicode.ToUpper(r)) + id[n:]
}

// ModelGroup is the group of a model in a picker: "Anthropic" for the
// Anthropic provider, "OpenAI" for OpenAI's own models the table knows,
// "OpenAI-compatible" for other models of the OpenAI provider.
func ModelGroup(provider string, known bool) string {
	switch {
	case provider == ProviderAnthropic:
		return "Anthropic"
	case known:
		return "OpenAI"
	}
	return "OpenAI-compatible"
}

// ModelDescription describes a model in a picker: its id and, when the
// table knows it, its context window ("claude-opus-4-5 · 200K context").
func ModelDescription(m Model) string {
	if !m.Known || m.ContextWindow <= 0 {
		return m.ID
	}
	w := m.ContextWindow
	size := fmt.Sprintf("%dK", w/1000)
	if w >= 1_000_000 {
		size = fmt.Sprintf("%gM", float64(w/100_000)/10)
	}
	return m.ID + " · " + size + " context"
}

// CompareForPicker orders models in a picker: by group, then by family
// ("Claude Opus", "Claude Sonnet"), the newest version first.
func CompareForPicker(aGroup, aName, bGroup, bName string) int {
	if c := strings.Compare(aGroup, bGroup); c != 0 {
		return c
	}
	af, av := familyVersion(aName)
	bf, bv := familyVersion(bName)
	if c := strings.Compare(af, bf); c != 0 {
		return c
	}
	for i := 0; i < len(av) || i < len(bv); i++ {
		var x, y int
		if i < len(av) {
			x = av[i]
		}
		if i < len(bv) {
			y = bv[i]
		}
		if x != y {
			return y - x // newest first
		}
	}
	return strings.Compare(aName, bName)
}

// familyVersion splits "Claude Opus 4.5" into "Claude Opus" and [4 5];
// a name without a trailing version is its own family.
func familyVersion(name string) (string, []int) {
	i := strings.LastIndexByte(name, ' ')
	if i < 0 {
		return name, nil
	}
	var v []int
	for _, part := range strings.Split(name[i+1:], ".") {
		n, err := strconv.Atoi(part)
		if err != nil {
			return name, nil
		}
		v = append(v, n)
	}
	return name[:i], v
}
