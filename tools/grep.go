package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/pathres"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/bmatcuk/doublestar/v4"
	"github.com/google/jsonschema-go/jsonschema"
)

//go:embed grep.md
var grepDescription string

// Grep output modes.
const (
	grepContent = "content"
	grepFiles   = "files_with_matches"
	grepCount   = "count"
)

// GrepMaxLines is the most matching lines a content or count search
// collects before it stops and says so.
const GrepMaxLines = 50000

// OpenFileLister is implemented by a FileSystem that can list the files
// open in the editor. Grep then runs ripgrep (when installed) over the disk
// and searches the open buffers itself; with a FileSystem that is neither
// DiskFS nor an OpenFileLister, Grep always uses its in-process engine,
// which reads every file through the FileSystem.
type OpenFileLister interface {
	OpenFiles() []string
}

// grepTool is the Grep tool.
type grepTool struct {
	env *Env
	// rg is the ripgrep binary to use, "" for the in-process engine
	// alone.
	rg string
}

// rgPath finds ripgrep on PATH once.
var rgPath = sync.OnceValue(func() string {
	p, err := exec.LookPath("rg")
	if err != nil {
		return ""
	}
	return p
})

type grepInput struct {
	Pattern    string `json:"pattern" jsonschema:"The regular expression pattern to search for in file contents"`
	Path       string `json:"path,omitempty" jsonschema:"File or directory to search in (rg PATH). Defaults to current working directory."`
	Glob       string `json:"glob,omitempty" jsonschema:"Glob pattern to filter files (e.g. \"*.js\", \"*.{ts,tsx}\") - maps to rg --glob"`
	Type       string `json:"type,omitempty" jsonschema:"File type to search (rg --type). Common types: js, py, rust, go, java, etc. More efficient than include for standard file types."`
	OutputMode string `json:"output_mode,omitempty" jsonschema:"Output mode: \"content\" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), \"files_with_matches\" shows file paths (supports head_limit), \"count\" shows match counts (supports head_limit). Defaults to \"files_with_matches\"."`
	I          bool   `json:"-i,omitempty" jsonschema:"Case insensitive search (rg -i)"`
	N          *bool  `json:"-n,omitempty" jsonschema:"Show line numbers in output (rg -n). Requires output_mode: \"content\", ignored otherwise. Defaults to true."`
	A          *int   `json:"-A,omitempty" jsonschema:"Number of lines to show after each match (rg -A). Requires output_mode: \"content\", ignored otherwise."`
	B          *int   `json:"-B,omitempty" jsonschema:"Number of lines to show before each match (rg -B). Requires output_mode: \"content\", ignored otherwise."`
	C          *int   `json:"-C,omitempty" jsonschema:"Number of lines to show before and after each match (rg -C). Requires output_mode: \"content\", ignored otherwise."`
	Multiline  bool   `json:"multiline,omitempty" jsonschema:"Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall). Default: false."`
	HeadLimit  *int   `json:"head_limit,omitempty" jsonschema:"Limit output to first N lines/entries, equivalent to \"| head -N\". Works across all output modes. Defaults to no limit."`
}

var grepSchema = InputSchema[grepInput](func(s *jsonschema.Schema) {
	Property(s, "output_mode").Enum = []any{grepContent, grepFiles, grepCount}
	for _, p := range []string{"-A", "-B", "-C", "head_limit"} {
		Property(s, p).Minimum = jsonschema.Ptr(0.0)
	}
})

func (t *grepTool) Spec() Spec {
	return Spec{
		Name:        "Grep",
		Description: grepDescription,
		InputSchema: grepSchema(),
		Kind:        schema.KindSearch,
		ReadOnly:    true,
		Access:      AccessRead,
		PathFields:  []string{"path"},
	}
}

// grepQuery is a parsed Grep call, the same for both engines.
type grepQuery struct {
	pattern    string
	m          *matcher
	target     string // absolute file or directory
	targetFile bool
	base       string // workspace root whose .gitignore files apply
	globs      []string
	typ        string
	typeGlobs  []string
	mode       string
	ignoreCase bool
	multiline  bool
	lineNums   bool
	before     int
	after      int
	headLimit  int // 0: none
	// hide, when set, reports the files a permission rule keeps from
	// the model (Env.Hide); they are neither searched nor shown.
	hide func(path string) bool
	// hideGlobs are the patterns behind hide as ripgrep exclusions
	// relative to the searched directory, where they can be written so.
	hideGlobs []string
}

// hidden reports whether the file at p must not be searched or shown.
func (q *grepQuery) hidden(p string) bool {
	return q.hide != nil && q.hide(p)
}

func (t *grepTool) parse(input json.RawMessage) (*grepQuery, error) {
	var in grepInput
	if err := DecodeInput(input, &in); err != nil {
		return nil, err
	}
	q := &grepQuery{pattern: in.Pattern, typ: in.Type, mode: in.OutputMode, ignoreCase: in.I, multiline: in.Multiline, lineNums: true}
	if q.mode == "" {
		q.mode = grepFiles
	}
	switch q.mode {
	case grepContent, grepFiles, grepCount:
	default:
		return nil, fmt.Errorf("output_mode: must be content, files_with_matches or count, got %q", in.OutputMode)
	}
	if in.N != nil {
		q.lineNums = *in.N
	}
	for _, f := range []struct {
		name string
		v    *int
	}{{"-A", in.A}, {"-B", in.B}, {"-C", in.C}, {"head_limit", in.HeadLimit}} {
		if f.v != nil && *f.v < 0 {
			return nil, fmt.Errorf("%s: must not be negative, got %d", f.name, *f.v)
		}
	}
	if in.C != nil {
		q.before, q.after = *in.C, *in.C
	}
	if in.B != nil {
		q.before = *in.B
	}
	if in.A != nil {
		q.after = *in.A
	}
	if q.mode != grepContent {
		q.before, q.after = 0, 0
	}
	if in.HeadLimit != nil {
		q.headLimit = *in.HeadLimit
	}
	if in.Pattern == "" {
		return nil, fmt.Errorf("pattern: must not be empty")
	}
	m, err := newMatcher(in.Pattern, in.I, in.Multiline)
	if err != nil {
		return nil, err
	}
	q.m = m
	q.globs = strings.Fields(in.Glob)
	for _, g := range q.globs {
		if !doublestar.ValidatePattern(strings.TrimPrefix(g, "!")) {
			return nil, fmt.Errorf("glob: invalid glob pattern %q", g)
		}
	}
	if q.typ != "" {
		globs, ok := fileTypes()[q.typ]
		if !ok {
			return nil, fmt.Errorf("type: unknown file type %q (known types include go, js, ts, py, rust, java, c, cpp, md, json, yaml)", q.typ)
		}
		q.typeGlobs = globs
	}
	p := in.Path
	if p == "" || p == "undefined" || p == "null" {
		p = t.env.Cwd
	}
	q.target, err = t.env.Resolve(p)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(q.target)
	switch {
	case os.IsNotExist(err) && t.env.Files.IsOpen(q.target):
		q.targetFile = true
	case os.IsNotExist(err):
		return nil, fmt.Errorf("path: does not exist: %s", q.target)
	case err != nil:
		return nil, fmt.Errorf("path: %w", err)
	case !fi.IsDir() && !fi.Mode().IsRegular():
		return nil, fmt.Errorf("path: %w: Grep searches regular files and folders", &pathres.NotRegularError{Path: q.target, Mode: fi.Mode()})
	case !fi.IsDir() && fi.Size() > MaxFileBytes:
		return nil, fmt.Errorf("path: %s is %s; Grep searches files of up to %s (in a folder, bigger files are skipped): use Bash (grep, head) to look into it", q.target, pathres.FormatSize(fi.Size()), pathres.FormatSize(MaxFileBytes))
	default:
		q.targetFile = !fi.IsDir()
	}
	q.base = t.env.rootOf(q.target)
	if q.hide = t.env.hider("Grep"); q.hide != nil && !q.targetFile && t.env.Hide != nil {
		q.hideGlobs = relativeGlobs(t.env.Hide.HiddenGlobs("Grep"), q.target)
	}
	return q, nil
}

func (t *grepTool) Preview(_ context.Context, input json.RawMessage) (*Preview, error) {
	q, err := t.parse(input)
	if err != nil {
		return nil, err
	}
	return &Preview{Title: q.title(), Paths: []string{q.target}}, nil
}

func (q *grepQuery) title() string {
	return fmt.Sprintf("Grep %q in %s", q.pattern, q.target)
}

func (t *grepTool) Run(ctx context.Context, input json.RawMessage) *Result {
	q, err := t.parse(input)
	if err != nil {
		return inputError(err)
	}
	var res *grepResult
	if lister, ok := t.env.Files.(OpenFileLister); t.rg != "" && (ok || isDiskFS(t.env.Files)) {
		var open []string
		if ok {
			open = lister.OpenFiles()
		}
		res, err = searchRipgrepGuarded(ctx, t.rg, q, t.env.Files, open)
	} else {
		res, err = searchLocal(ctx, q, t.env.Files)
	}
	if err != nil {
		return Errorf("grep %s: %v", q.target, err)
	}
	return &Result{Content: q.format(res), Title: q.title()}
}

func isDiskFS(fs FileSystem) bool {
	switch fs.(type) {
	case DiskFS, *DiskFS:
		return true
	}
	return false
}

// grepResult is what a search found, as either engine reports it.
type grepResult struct {
	files []grepFile
	// full is set when the search stopped at GrepMaxLines.
	full bool
}

// grepFile is one file with matches. In content mode lines holds the
// matching and context lines in order; in count mode count is the number
// of matching lines; in files mode the file matched.
type grepFile struct {
	path  string
	lines []grepLine
	count int
}

// grepLine is a numbered line of a file (1-based), without its line
// terminator.
type grepLine struct {
	n     int
	text  string
	match bool
}

// format prints res as the model sees it.
func (q *grepQuery) format(res *grepResult) string {
	files := res.files
	var out []string
	switch q.mode {
	case grepFiles:
		mtimes := make(map[string]time.Time, len(files))
		for _, f := range files {
			if fi, err := os.Stat(f.path); err == nil {
				mtimes[f.path] = fi.ModTime()
			}
		}
		slices.SortFunc(files, func(a, b grepFile) int {
			if c := mtimes[b.path].Compare(mtimes[a.path]); c != 0 {
				return c
			}
			return strings.Compare(a.path, b.path)
		})
		for _, f := range files {
			out = append(out, f.path)
		}
	case grepCount:
		sortByPath(files)
		for _, f := range files {
			out = append(out, f.path+":"+strconv.Itoa(f.count))
		}
	case grepContent:
		sortByPath(files)
		ctx := q.before > 0 || q.after > 0
		for _, f := range files {
			prefix := f.path
			if q.targetFile {
				prefix = ""
			}
			prev := -1
			for _, l := range f.lines {
				if ctx && prev >= 0 && l.n > prev+1 || ctx && prev < 0 && len(out) > 0 {
					out = append(out, "--")
				}
				prev = l.n
				sep := "-"
				if l.match {
					sep = ":"
				}
				var b strings.Builder
				if prefix != "" {
					b.WriteString(prefix)
					b.WriteString(sep)
				}
				if q.lineNums {
					b.WriteString(strconv.Itoa(l.n))
					b.WriteString(sep)
				}
				text := l.text
				if len(text) > ReadMaxLineLength {
					text = text[:ReadMaxLineLength] + "... [line truncated]"
				}
				b.WriteString(text)
				out = append(out, b.String())
			}
		}
	}
	total := len(out)
	if q.headLimit > 0 && len(out) > q.headLimit {
		out = out[:q.headLimit]
	}
	var b strings.Builder
	switch {
	case len(files) == 0 && q.mode == grepFiles:
		b.WriteString("No files found")
	case len(files) == 0:
		b.WriteString("No matches found")
	case q.mode == grepFiles:
		fmt.Fprintf(&b, "Found %d file%s\n", len(files), plural(len(files)))
	}
	for _, l := range out {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if q.mode == grepCount && len(files) > 0 {
		sum := 0
		for _, f := range files {
			sum += f.count
		}
		fmt.Fprintf(&b, "\nFound %d matching line%s across %d file%s.\n", sum, plural(sum), len(files), plural(len(files)))
	}
	if len(out) < total {
		fmt.Fprintf(&b, "\n(Showing the first %d of %d lines (head_limit).)\n", len(out), total)
	}
	if res.full {
		fmt.Fprintf(&b, "\n(The search stopped after %d matching lines: use a more specific pattern, path, glob or type.)\n", GrepMaxLines)
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func sortByPath(files []grepFile) {
	slices.SortFunc(files, func(a, b grepFile) int { return strings.Compare(a.path, b.path) })
}

// withContext turns the matching lines of a file (ascending, 1-based)
// into the lines to show with before/after context lines.
func withContext(data []byte, matched []int, before, after int) []grepLine {
	if len(matched) == 0 {
		return nil
	}
	var starts []int // starts[i] is the offset of line i+1
	starts = append(starts, 0)
	for i, c := range data {
		if c == '\n' && i+1 < len(data) {
			starts = append(starts, i+1)
		}
	}
	text := func(n int) string {
		s := starts[n-1]
		e := len(data)
		if n < len(starts) {
			e = starts[n] - 1
		} else if e > s && data[e-1] == '\n' {
			e--
		}
		return string(bytes.TrimSuffix(data[s:e], []byte{'\r'}))
	}
	isMatch := make(map[int]bool, len(matched))
	for _, n := range matched {
		isMatch[n] = true
	}
	var out []grepLine
	last := 0
	for _, n := range matched {
		from := max(n-before, last+1, 1)
		to := min(n+after, len(starts))
		for i := from; i <= to; i++ {
			out = append(out, grepLine{n: i, text: text(i), match: isMatch[i]})
		}
		last = max(last, to)
	}
	return out
}
