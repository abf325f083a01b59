package tools

import "fmt"

// Truncate returns s cut to about budget characters, keeping its head and
// tail, with a note in the middle telling the model what was left out and
// how to ask for less. s is returned unchanged when it fits.
func Truncate(s string, budget int) string {
	if budget <= 0 || len(s) <= budget {
		return s
	}
	head := budget * 2 / 3
	tail := budget - head
	// Cut on UTF-8 boundaries.
	for head > 0 && !isRuneStart(s[head]) {
		head--
	}
	start := len(s) - tail
	for start < len(s) && !isRuneStart(s[start]) {
		start++
	}
	omitted := start - head
	return fmt.Sprintf("%s\n\n[... %d characters omitted: the result was larger than %d characters. Ask for less: Read with offset and limit, Grep with head_limit or a narrower path or glob, or a command that prints less ...]\n\n%s", s[:head], omitted, budget, s[start:])
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
