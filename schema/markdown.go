package schema

import "strings"

// InlineCode returns s as a markdown code span: between backtick runs
// longer than any run inside s, padded with a space when s starts or
// ends with a backtick.
func InlineCode(s string) string {
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// CodeBlock returns text as a fenced markdown code block of language lang
// ("console"): the fence is longer than any backtick run in text (at
// least three), so the block never ends early and never nests.
func CodeBlock(lang, text string) string {
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return fence + lang + "\n" + text + fence
}

// ConsoleBlock is the markdown of a shell command and its output, as a
// Bash tool call shows it: "```console\n$ command\noutput\n```".
func ConsoleBlock(command, output string) string {
	return CodeBlock("console", "$ "+command+"\n"+strings.TrimRight(output, "\n"))
}

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
