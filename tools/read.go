package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/agent-lsp/agent-lsp/schema"
)

//go:embed read.md
var readDescription string

// Read limits.
const (
	// ReadDefaultLimit is the number of lines Read returns when no limit
	// is given.
	ReadDefaultLimit = 2000
	// ReadMaxLineLength is the length, in bytes, past which a line is cut.
	ReadMaxLineLength = 2000
	// ReadMaxImageBytes is the largest image Read returns: the most the
	// model takes.
	ReadMaxImageBytes = schema.MaxImageBytes
)

var imageTypes = map[string]string{
	".png":  "image/png",
	".jpg":  "image/jpeg",
	".jpeg": "image/jpeg",
	".gif":  "image/gif",
	".webp": "image/webp",
}

// readTool is the Read tool.
type readTool struct{ env *Env }

type readInput struct {
	FilePath string `json:"file_path" jsonschema:"The absolute path to the file to read"`
	Offset   int    `json:"offset,omitempty" jsonschema:"The line number to start reading from (1-based). Only provide if the file is too large to read at once"`
	Limit    int    `json:"limit,omitempty" jsonschema:"The number of lines to read. Only provide if the file is too large to read at once."`
}

var readSchema = InputSchema[readInput](nil)

func (t *readTool) Spec() Spec {
	return Spec{
		Name:        "Read",
		Description: readDescription,
		InputSchema: readSchema(),
		Kind:        schema.KindRead,
		ReadOnly:    true,
		Access:      AccessRead,
		PathFields:  []string{"file_path"},
	}
}

func (t *readTool) Preview(_ context.Context, input json.RawMessage) (*Preview, error) {
	in, path, err := t.parse(input)
	if err != nil {
		return nil, err
	}
	// The line where the read starts, as the result's location says.
	return &Preview{Title: readTitle(path, in), Paths: []string{path}, Locations: []schema.Location{{Path: path, Line: intPtr(max(in.Offset, 1) - 1)}}}, nil
}

func (t *readTool) parse(input json.RawMessage) (readInput, string, error) {
	var in readInput
	if err := DecodeInput(input, &in); err != nil {
		return in, "", err
	}
	switch {
	case in.Offset < 0:
		return in, "", fmt.Errorf("offset: must be a line number >= 1, got %d", in.Offset)
	case in.Limit < 0:
		return in, "", fmt.Errorf("limit: must be a positive number of lines, got %d", in.Limit)
	}
	path, err := t.env.Resolve(in.FilePath)
	if err != nil {
		if p, ok := t.env.resolveReadOnly(in.FilePath); ok {
			return in, p, nil
		}
	}
	return in, path, err
}

func readTitle(path string, in readInput) string {
	switch {
	case in.Offset > 0 && in.Limit > 0:
		return fmt.Sprintf("Read %s (lines %d-%d)", path, in.Offset, in.Offset+in.Limit-1)
	case in.Offset > 0:
		return fmt.Sprintf("Read %s (from line %d)", path, in.Offset)
	case in.Limit > 0:
		return fmt.Sprintf("Read %s (lines 1-%d)", path, in.Limit)
	}
	return "Read " + path
}

func (t *readTool) Run(ctx context.Context, input json.RawMessage) *Result {
	in, path, err := t.parse(input)
	if err != nil {
		return inputError(err)
	}
	content, exists, err := t.env.readCurrent(path)
	switch {
	case errors.Is(err, errTooLarge):
		return t.readLarge(ctx, path, in, err)
	case err != nil:
		return Errorf("%v", err)
	case !exists:
		return Errorf("file does not exist: %s", path)
	}
	if mt, ok := imageTypes[strings.ToLower(filepath.Ext(path))]; ok && !t.env.Files.IsOpen(path) {
		return readImage(path, mt, content)
	}
	if isBinary(content) {
		return Errorf("%s is a binary file (%d bytes); Read shows text files and images only. Use Bash (for example `file` or `xxd | head`) to inspect it", path, len(content))
	}
	t.env.Reads.Saw(path, content)
	if t.env.Code != nil {
		t.env.Code.Touch(path, content)
	}
	if strings.EqualFold(filepath.Ext(path), ".ipynb") {
		text, err := renderNotebook(path, content)
		if err == nil {
			return &Result{Content: text, Title: "Read " + path, Locations: []schema.Location{{Path: path}}}
		}
		// Not a notebook after all: show its text.
	}
	offset, limit := max(in.Offset, 1), in.Limit
	if limit == 0 {
		limit = ReadDefaultLimit
	}
	res := &Result{
		Title:     readTitle(path, in),
		Locations: []schema.Location{{Path: path, Line: intPtr(offset - 1)}},
	}
	if len(content) == 0 {
		res.Content = fmt.Sprintf("<system-reminder>The file %s exists but is empty.</system-reminder>", path)
		return res
	}
	res.Content = formatLines(path, content, offset, limit)
	return res
}

// readLarge reads part of a file larger than MaxFileBytes (whose
// readCurrent error is tooLarge) straight from the disk: the lines offset
// and limit name, reading no further. Without them, or when the editor
// serves the file, it returns the error, which says how.
func (t *readTool) readLarge(ctx context.Context, path string, in readInput, tooLarge error) *Result {
	d, ok := t.env.Files.(DiskReader)
	if in.Offset == 0 && in.Limit == 0 || !ok || !d.ReadsDisk(path) {
		return Errorf("%v", tooLarge)
	}
	offset, limit := max(in.Offset, 1), in.Limit
	if limit == 0 {
		limit = ReadDefaultLimit
	}
	text, err := readPart(ctx, path, offset, limit)
	if err != nil {
		return Errorf("%v", err)
	}
	return &Result{Content: text, Title: readTitle(path, in), Locations: []schema.Location{{Path: path, Line: intPtr(offset - 1)}}}
}

// formatLines numbers lines [offset, offset+limit) of content as cat -n
// does, cutting long lines, and notes what was left out.
func formatLines(path string, content []byte, offset, limit int) string {
	out := make([]byte, 0, min(len(content), limit*(ReadMaxLineLength+1))+limit*8+256)
	line, shown, cut := 0, 0, 0
	var num [7]byte // the number column of the last line written
	rest := content
	for len(rest) > 0 {
		line++
		end := bytes.IndexByte(rest, '\n')
		var l []byte
		if end < 0 {
			l, rest = rest, nil
		} else {
			l, rest = rest[:end], rest[end+1:]
		}
		if line < offset {
			continue
		}
		if shown == limit {
			line += bytes.Count(rest, []byte{'\n'})
			if len(rest) > 0 && rest[len(rest)-1] != '\n' {
				line++
			}
			break
		}
		if n := len(l); n > 0 && l[n-1] == '\r' {
			l = l[:n-1]
		}
		// The number column is kept as text and incremented, which is
		// cheaper than formatting each number.
		if shown == 0 || line >= 1e6 || !incLineNo(&num) {
			num = [7]byte(appendLineNo(make([]byte, 0, 7), min(line, 999999)))
		}
		if line < 1e6 {
			out = append(out, num[:]...)
		} else {
			out = appendLineNo(out, line)
		}
		if len(l) > ReadMaxLineLength {
			cutAt := ReadMaxLineLength
			for cutAt > 0 && !utf8.RuneStart(l[cutAt]) {
				cutAt--
			}
			out = append(out, l[:cutAt]...)
			out = append(out, "... [line truncated]"...)
			cut++
		} else {
			out = append(out, l...)
		}
		out = append(out, '\n')
		shown++
	}
	total := line
	if shown == 0 {
		return fmt.Sprintf("<system-reminder>The file %s is shorter than the offset %d: it has %d lines.</system-reminder>", path, offset, total)
	}
	last := offset + shown - 1
	if last < total {
		out = fmt.Appendf(out, "\n(Showing lines %d-%d of %d. Use offset and limit to read the rest.)\n", offset, last, total)
	}
	if cut > 0 {
		out = fmt.Appendf(out, "\n(%d lines longer than %d characters were truncated.)\n", cut, ReadMaxLineLength)
	}
	// out is never written again: share its memory rather than copy it.
	return unsafe.String(unsafe.SliceData(out), len(out))
}

// incLineNo adds one to the line number column num ("     9\t" becomes
// "    10\t"). It reports false when the number outgrows the column.
func incLineNo(num *[7]byte) bool {
	for i := 5; i >= 0; i-- {
		switch c := num[i]; {
		case c == ' ':
			num[i] = '1'
			return true
		case c < '9':
			num[i] = c + 1
			return true
		}
		num[i] = '0'
	}
	return false
}

func readImage(path, mediaType string, content []byte) *Result {
	if len(content) > ReadMaxImageBytes {
		return Errorf("image %s is %d bytes, more than the %d bytes Read returns", path, len(content), ReadMaxImageBytes)
	}
	return &Result{
		Content:   fmt.Sprintf("Image %s (%s, %d bytes)", path, mediaType, len(content)),
		Images:    []Image{{MediaType: mediaType, Data: base64.StdEncoding.EncodeToString(content)}},
		Title:     "Read " + path,
		Locations: []schema.Location{{Path: path}},
	}
}
