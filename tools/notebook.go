package tools

import (
	"bytes"
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/google/jsonschema-go/jsonschema"
)

//go:embed notebookedit.md
var notebookEditDescription string

// notebookOutputMax bounds the text of one cell output shown by Read.
const notebookOutputMax = 4000

// notebookEditTool is the NotebookEdit tool.
type notebookEditTool struct{ env *Env }

type notebookEditInput struct {
	NotebookPath string `json:"notebook_path" jsonschema:"The absolute path to the Jupyter notebook file to edit (must be absolute, not relative)"`
	CellID       string `json:"cell_id,omitempty" jsonschema:"The ID of the cell to edit. When inserting a new cell, the new cell will be inserted after the cell with this ID, or at the beginning if not specified."`
	NewSource    string `json:"new_source" jsonschema:"The new source for the cell"`
	CellType     string `json:"cell_type,omitempty" jsonschema:"The type of the cell (code or markdown). If not specified, it defaults to the current cell type. If using edit_mode=insert, this is required."`
	EditMode     string `json:"edit_mode,omitempty" jsonschema:"The type of edit to make (replace, insert, delete). Defaults to replace."`
}

// The values of NotebookEdit's cell_type and edit_mode.
var (
	notebookCellTypes = []string{"code", "markdown"}
	notebookEditModes = []string{"replace", "insert", "delete"}
)

var notebookEditSchema = InputSchema[notebookEditInput](func(s *jsonschema.Schema) {
	Property(s, "cell_type").Enum = Enum(notebookCellTypes)
	Property(s, "edit_mode").Enum = Enum(notebookEditModes)
})

func (t *notebookEditTool) Spec() Spec {
	return Spec{
		Name:        "NotebookEdit",
		Description: notebookEditDescription,
		InputSchema: notebookEditSchema(),
		Kind:        schema.KindEdit,
		Access:      AccessEdit,
		PathFields:  []string{"notebook_path"},
	}
}

// findCell returns the index of the cell named id: its "id", or "cell-N"
// (or N) counting from 0 for notebooks without ids.
func findCell(cells *jnode, id string) int {
	for i, c := range cells.vals {
		if c.get("id").str() == id {
			return i
		}
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(id, "cell-")); err == nil && n >= 0 && n < len(cells.vals) {
		return n
	}
	return -1
}

// sourceLines splits a cell's source as Jupyter stores it: lines that
// keep their newline, the last without.
func sourceLines(src string) []string {
	var out []string
	for src != "" {
		i := strings.IndexByte(src, '\n')
		if i < 0 {
			out = append(out, src)
			break
		}
		out = append(out, src[:i+1])
		src = src[i+1:]
	}
	if out == nil {
		out = []string{}
	}
	return out
}

func (t *notebookEditTool) plan(input json.RawMessage) (*change, error) {
	var in notebookEditInput
	if err := DecodeInput(input, &in); err != nil {
		return nil, fmt.Errorf("invalid input: %w", err)
	}
	mode := in.EditMode
	if mode == "" {
		mode = "replace"
	}
	switch {
	case !slices.Contains(notebookEditModes, mode):
		return nil, fmt.Errorf("edit_mode: must be replace, insert or delete, got %q", mode)
	case in.CellType != "" && !slices.Contains(notebookCellTypes, in.CellType):
		return nil, fmt.Errorf("cell_type: must be code or markdown, got %q", in.CellType)
	case mode == "insert" && in.CellType == "":
		return nil, fmt.Errorf("cell_type is required when edit_mode is insert")
	case mode != "insert" && in.CellID == "":
		return nil, fmt.Errorf("cell_id is required to %s a cell", mode)
	}
	path, err := t.env.Resolve(in.NotebookPath)
	if err != nil {
		return nil, err
	}
	if filepath.Ext(path) != ".ipynb" {
		return nil, fmt.Errorf("%s is not a Jupyter notebook (.ipynb); use Edit for other files", path)
	}
	old, exists, err := t.env.readCurrent(path)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, fmt.Errorf("notebook does not exist: %s", path)
	}
	if err := t.env.checkFresh(path, old); err != nil {
		return nil, err
	}
	nb, err := parseJSON(old)
	if err != nil || nb.kind != '{' {
		return nil, fmt.Errorf("%s is not a valid notebook: the file is not a JSON object", path)
	}
	cells := nb.get("cells")
	if cells == nil || cells.kind != '[' {
		return nil, fmt.Errorf("%s is not a valid notebook: it has no cells list", path)
	}
	idx := -1
	if in.CellID != "" {
		if idx = findCell(cells, in.CellID); idx < 0 {
			return nil, fmt.Errorf("cell %q was not found in %s; Read the notebook to see its cell ids", in.CellID, path)
		}
	}
	var summary string
	switch mode {
	case "delete":
		cells.vals = append(cells.vals[:idx], cells.vals[idx+1:]...)
		summary = fmt.Sprintf("Deleted cell %s of %s.", in.CellID, path)
	case "insert":
		cell := jobj{"cell_type", in.CellType}
		if in.CellType == "code" {
			cell = append(cell, "execution_count", nil)
		}
		id := ""
		if minor, _ := strconv.Atoi(string(nb.get("nbformat_minor").rawOr("0"))); minor >= 5 || hasCellIDs(cells) {
			id = newCellID()
			cell = append(cell, "id", id)
		}
		cell = append(cell, "metadata", jobj{})
		if in.CellType == "code" {
			cell = append(cell, "outputs", &jnode{kind: '['})
		}
		cell = append(cell, "source", sourceLines(in.NewSource))
		cells.vals = append(cells.vals[:idx+1], append([]*jnode{jsonValue(cell)}, cells.vals[idx+1:]...)...)
		if id == "" {
			id = fmt.Sprintf("cell-%d", idx+1)
		}
		summary = fmt.Sprintf("Inserted cell %s with %s", id, in.NewSource)
	default:
		cell := cells.vals[idx]
		kind := cell.get("cell_type").str()
		if in.CellType != "" && in.CellType != kind {
			cell.set("cell_type", jsonValue(in.CellType))
			kind = in.CellType
		}
		cell.set("source", jsonValue(sourceLines(in.NewSource)))
		if kind == "code" {
			// The outputs belong to the old source.
			cell.set("execution_count", jsonValue(nil))
			cell.set("outputs", &jnode{kind: '['})
		} else {
			cell.del("execution_count")
			cell.del("outputs")
		}
		summary = fmt.Sprintf("Updated cell %s with %s", in.CellID, in.NewSource)
	}
	var b bytes.Buffer
	nb.write(&b, detectIndent(old), 0)
	if bytes.HasSuffix(old, []byte("\n")) {
		b.WriteByte('\n')
	}
	c := &change{path: path, old: old, new: b.Bytes(), summary: summary}
	c.line = firstChangedLine(c.old, c.new)
	return c, nil
}

// rawOr returns a scalar's text, or def.
func (n *jnode) rawOr(def string) []byte {
	if n == nil || n.kind != 0 {
		return []byte(def)
	}
	return n.raw
}

func hasCellIDs(cells *jnode) bool {
	for _, c := range cells.vals {
		if c.get("id") != nil {
			return true
		}
	}
	return false
}

// newCellID returns a random cell id as Jupyter makes them (8 hex digits).
func newCellID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (t *notebookEditTool) Preview(_ context.Context, input json.RawMessage) (*Preview, error) {
	return previewChange(t.plan, "Edit notebook", input)
}

func (t *notebookEditTool) Run(ctx context.Context, input json.RawMessage) *Result {
	return runChange(ctx, t.env, t.plan, "Edit notebook", input)
}

var ansiEscape = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]") })

// renderNotebook shows a notebook cell by cell with its outputs, for Read.
func renderNotebook(path string, content []byte) (string, error) {
	nb, err := parseJSON(content)
	if err != nil || nb.kind != '{' || nb.get("cells") == nil {
		return "", fmt.Errorf("%s is not a valid Jupyter notebook", path)
	}
	lang := nb.get("metadata").get("language_info").get("name").str()
	if lang == "" {
		lang = "python"
	}
	var b strings.Builder
	images := 0
	for i, c := range nb.get("cells").vals {
		id := c.get("id").str()
		if id == "" {
			id = fmt.Sprintf("cell-%d", i)
		}
		kind := c.get("cell_type").str()
		fmt.Fprintf(&b, "<cell id=%q", id)
		if kind != "code" {
			fmt.Fprintf(&b, " cell_type=%q", kind)
		} else if n := c.get("execution_count"); n != nil && string(n.raw) != "null" {
			fmt.Fprintf(&b, " execution_count=%s", n.raw)
		}
		b.WriteString(">\n")
		src := joinText(c.get("source"))
		b.WriteString(src)
		if !strings.HasSuffix(src, "\n") {
			b.WriteByte('\n')
		}
		b.WriteString("</cell>\n")
		for _, o := range c.get("outputs").valsOr() {
			text, img := outputText(o)
			images += img
			if text == "" {
				continue
			}
			fmt.Fprintf(&b, "<output cell=%q>\n%s", id, Truncate(ansiEscape().ReplaceAllString(text, ""), notebookOutputMax))
			if !strings.HasSuffix(text, "\n") {
				b.WriteByte('\n')
			}
			b.WriteString("</output>\n")
		}
	}
	if images > 0 {
		fmt.Fprintf(&b, "\n(%d image outputs are not shown.)\n", images)
	}
	return fmt.Sprintf("Jupyter notebook %s (%s), cell by cell:\n\n%s", path, lang, b.String()), nil
}

func (n *jnode) valsOr() []*jnode {
	if n == nil || n.kind != '[' {
		return nil
	}
	return n.vals
}

// joinText returns a notebook text field: a string or a list of strings.
func joinText(n *jnode) string {
	if n == nil {
		return ""
	}
	if n.kind == 0 {
		return n.str()
	}
	var b strings.Builder
	for _, v := range n.vals {
		b.WriteString(v.str())
	}
	return b.String()
}

// outputText returns what an output shows as text, and how many images
// it holds.
func outputText(o *jnode) (string, int) {
	switch o.get("output_type").str() {
	case "stream":
		return joinText(o.get("text")), 0
	case "error":
		var lines []string
		for _, l := range o.get("traceback").valsOr() {
			lines = append(lines, l.str())
		}
		if len(lines) == 0 {
			return o.get("ename").str() + ": " + o.get("evalue").str(), 0
		}
		return strings.Join(lines, "\n"), 0
	case "execute_result", "display_data":
		data := o.get("data")
		imgs := 0
		var text string
		for i, k := range data.keysOr() {
			switch {
			case strings.HasPrefix(k, "image/"):
				imgs++
			case k == "text/plain":
				text = joinText(data.vals[i])
			}
		}
		if text == "" && imgs > 0 {
			text = fmt.Sprintf("[%d image output(s)]", imgs)
		}
		return text, imgs
	}
	return "", 0
}

func (n *jnode) keysOr() []string {
	if n == nil || n.kind != '{' {
		return nil
	}
	return n.keys
}
