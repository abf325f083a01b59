package tools

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/testenv"
)

// sampleNotebook is written as Jupyter writes notebooks: keys sorted,
// one space of indent, non-ASCII kept, a trailing newline.
const sampleNotebook = `{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "a1",
   "metadata": {},
   "source": [
    "# Título\n",
    "text"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 3,
   "id": "b2",
   "metadata": {
    "tags": []
   },
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "hello\n"
     ]
    },
    {
     "data": {
      "image/png": "iVBORw0KGgo=",
      "text/plain": [
       "<Figure size 640x480>"
      ]
     },
     "metadata": {},
     "output_type": "display_data"
    }
   ],
   "source": [
    "print(\"hello\")"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {
   "display_name": "Python 3",
   "language": "python",
   "name": "python3"
  },
  "language_info": {
   "name": "python",
   "version": "3.11.2"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
`

// checkNotebook validates the nbformat 4 structure of a notebook file in
// Go: the top-level keys, and each cell's keys by type.
func checkNotebook(t *testing.T, text string) []map[string]any {
	t.Helper()
	var nb map[string]any
	if err := json.Unmarshal([]byte(text), &nb); err != nil {
		t.Fatalf("notebook is not JSON: %v\n%s", err, text)
	}
	for _, k := range []string{"cells", "metadata", "nbformat", "nbformat_minor"} {
		if _, ok := nb[k]; !ok {
			t.Fatalf("notebook lacks %q", k)
		}
	}
	if nb["nbformat"] != 4.0 {
		t.Fatalf("nbformat = %v", nb["nbformat"])
	}
	var cells []map[string]any
	for i, c := range nb["cells"].([]any) {
		cell := c.(map[string]any)
		want := map[string][]string{
			"code":     {"cell_type", "execution_count", "id", "metadata", "outputs", "source"},
			"markdown": {"cell_type", "id", "metadata", "source"},
		}[cell["cell_type"].(string)]
		if want == nil || len(cell) != len(want) {
			t.Fatalf("cell %d has keys %v, want %v", i, cell, want)
		}
		for _, k := range want {
			if _, ok := cell[k]; !ok {
				t.Fatalf("cell %d lacks %q", i, k)
			}
		}
		cells = append(cells, cell)
	}
	return cells
}

// validateNBFormat checks a notebook with Python's nbformat. Without it the
// test ends through testenv.Missing: call it after the checks in Go.
func validateNBFormat(t *testing.T, text string) {
	t.Helper()
	py := testenv.NeedPython(t, "nbformat", "python3-nbformat")
	f := filepath.Join(t.TempDir(), "nb.ipynb")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, "-c", "import sys, nbformat; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))", f).CombinedOutput()
	if err != nil {
		t.Fatalf("nbformat rejects the notebook: %v\n%s", err, out)
	}
}

func TestNotebookReadShowsCells(t *testing.T) {
	te := newTestEnv(t)
	te.write(t, map[string]string{"nb.ipynb": sampleNotebook})
	res := te.run(t, "Read", map[string]any{"file_path": te.path("nb.ipynb")})
	if res.IsError {
		t.Fatal(res.Content)
	}
	for _, want := range []string{
		`<cell id="a1" cell_type="markdown">` + "\n# Título\ntext\n</cell>",
		`<cell id="b2" execution_count=3>` + "\nprint(\"hello\")\n</cell>",
		`<output cell="b2">` + "\nhello\n</output>",
		"<Figure size 640x480>",
		"(1 image outputs are not shown.)",
	} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("Read output lacks %q:\n%s", want, res.Content)
		}
	}
}

func TestNotebookEdit(t *testing.T) {
	tests := []struct {
		name  string
		input map[string]any
		check func(t *testing.T, cells []map[string]any, text string)
		err   string
	}{
		{
			name:  "replace code cell clears outputs",
			input: map[string]any{"cell_id": "b2", "new_source": "x = 1\nprint(x)"},
			check: func(t *testing.T, cells []map[string]any, text string) {
				c := cells[1]
				if src := c["source"].([]any); len(src) != 2 || src[0] != "x = 1\n" || src[1] != "print(x)" {
					t.Errorf("source = %v", src)
				}
				if c["execution_count"] != nil || len(c["outputs"].([]any)) != 0 {
					t.Errorf("outputs kept: %v", c)
				}
				// Everything else is byte for byte as it was.
				head := sampleNotebook[:strings.Index(sampleNotebook, `   "execution_count": 3`)]
				tail := sampleNotebook[strings.Index(sampleNotebook, "\n  }\n ],\n \"metadata\""):]
				if !strings.HasPrefix(text, head) || !strings.HasSuffix(text, tail) {
					t.Errorf("formatting not kept:\n%s", text)
				}
			},
		},
		{
			name:  "replace markdown cell by cell-N",
			input: map[string]any{"cell_id": "cell-0", "new_source": "# New"},
			check: func(t *testing.T, cells []map[string]any, _ string) {
				if cells[0]["source"].([]any)[0] != "# New" {
					t.Errorf("cell 0 = %v", cells[0])
				}
			},
		},
		{
			name:  "convert markdown to code",
			input: map[string]any{"cell_id": "a1", "new_source": "1+1", "cell_type": "code"},
			check: func(t *testing.T, cells []map[string]any, text string) {
				if cells[0]["cell_type"] != "code" {
					t.Errorf("cell 0 = %v", cells[0])
				}
				if !strings.Contains(text, "   \"cell_type\": \"code\",\n   \"execution_count\": null,\n   \"id\": \"a1\",") {
					t.Errorf("keys not in sorted order:\n%s", text)
				}
			},
		},
		{
			name:  "insert after a cell",
			input: map[string]any{"cell_id": "a1", "new_source": "import os", "cell_type": "code", "edit_mode": "insert"},
			check: func(t *testing.T, cells []map[string]any, _ string) {
				if len(cells) != 3 || cells[1]["source"].([]any)[0] != "import os" || len(cells[1]["id"].(string)) != 8 {
					t.Errorf("cells = %v", cells)
				}
			},
		},
		{
			name:  "insert at the start",
			input: map[string]any{"new_source": "intro", "cell_type": "markdown", "edit_mode": "insert"},
			check: func(t *testing.T, cells []map[string]any, _ string) {
				if len(cells) != 3 || cells[0]["source"].([]any)[0] != "intro" {
					t.Errorf("cells = %v", cells)
				}
			},
		},
		{
			name:  "delete",
			input: map[string]any{"cell_id": "b2", "new_source": "", "edit_mode": "delete"},
			check: func(t *testing.T, cells []map[string]any, _ string) {
				if len(cells) != 1 || cells[0]["id"] != "a1" {
					t.Errorf("cells = %v", cells)
				}
			},
		},
		{name: "unknown cell", input: map[string]any{"cell_id": "zz", "new_source": "x"}, err: `cell "zz" was not found`},
		{name: "insert without type", input: map[string]any{"new_source": "x", "edit_mode": "insert"}, err: "cell_type is required"},
		{name: "bad mode", input: map[string]any{"cell_id": "a1", "new_source": "x", "edit_mode": "append"}, err: "edit_mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			te := newTestEnv(t)
			te.write(t, map[string]string{"nb.ipynb": sampleNotebook})
			if r := te.run(t, "Read", map[string]any{"file_path": te.path("nb.ipynb")}); r.IsError {
				t.Fatal(r.Content)
			}
			in := map[string]any{"notebook_path": te.path("nb.ipynb")}
			for k, v := range tt.input {
				in[k] = v
			}
			res := te.run(t, "NotebookEdit", in)
			if tt.err != "" {
				if !res.IsError || !strings.Contains(res.Content, tt.err) {
					t.Fatalf("result = %+v, want error %q", res, tt.err)
				}
				if te.read(t, "nb.ipynb") != sampleNotebook {
					t.Fatal("a refused edit changed the notebook")
				}
				return
			}
			if res.IsError {
				t.Fatal(res.Content)
			}
			text := te.read(t, "nb.ipynb")
			if len(res.Display) != 1 || res.Display[0].Type != "diff" {
				t.Errorf("display = %+v, want a diff", res.Display)
			}
			tt.check(t, checkNotebook(t, text), text)
			validateNBFormat(t, text)
		})
	}
}

func TestNotebookEditNeedsRead(t *testing.T) {
	te := newTestEnv(t)
	te.write(t, map[string]string{"nb.ipynb": sampleNotebook})
	res := te.run(t, "NotebookEdit", map[string]any{"notebook_path": te.path("nb.ipynb"), "cell_id": "a1", "new_source": "x"})
	if !res.IsError || !strings.Contains(res.Content, "has not been read") {
		t.Fatalf("result = %+v", res)
	}
}

func TestNotebookRoundTripUnchanged(t *testing.T) {
	nb, err := parseJSON([]byte(sampleNotebook))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	nb.write(&b, detectIndent([]byte(sampleNotebook)), 0)
	if got := b.String() + "\n"; got != sampleNotebook {
		t.Errorf("parse and write changed the notebook:\n%s", got)
	}
}
