package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/agent-lsp/agent-lsp/tools"
)

// Editor applies file changes in the editor's buffers (LSP
// workspace/applyEdit, ACP fs/write_text_file).
type Editor interface {
	// ApplyEdit asks the editor to make the change. It returns an
	// *EditRefusedError when the editor declined it.
	ApplyEdit(ctx context.Context, c FileChange) error
}

// FileChange is a whole-file change to apply.
type FileChange struct {
	Path   string
	Before string // the text the change was computed from
	After  string
	Create bool // the file does not exist yet
	Label  string
}

// EditRefusedError reports that the editor did not apply a change.
type EditRefusedError struct {
	Path   string
	Reason string
}

func (e *EditRefusedError) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("the editor did not apply the edit to %s", e.Path)
	}
	return fmt.Sprintf("the editor did not apply the edit to %s: %s", e.Path, e.Reason)
}

// FS is a tools.FileSystem that reads the overlay over the disk and, when
// Editor is set, writes through the editor. Without an Editor it writes
// the disk.
type FS struct {
	Overlay *Overlay
	Editor  Editor
}

var (
	_ tools.FileSystem = (*FS)(nil)
	_ tools.DiskReader = (*FS)(nil)
)

// ReadFile returns the editor's text of path when it has it, else the
// disk's: a regular file of at most tools.MaxFileBytes (a repository's
// FIFO, device or huge sparse file is an error, not a wait or a read
// without end).
func (fs *FS) ReadFile(path string) ([]byte, error) {
	if text, ok := fs.Overlay.Get(path); ok {
		return []byte(text), nil
	}
	return tools.DiskFS{}.ReadFile(path)
}

// ReadsDisk reports whether the text of path is the disk's: the editor
// does not have it.
func (fs *FS) ReadsDisk(path string) bool {
	_, ok := fs.Overlay.Get(path)
	return !ok
}

// IsOpen reports whether path is open in the editor.
func (fs *FS) IsOpen(path string) bool { return fs.Overlay.IsOpen(path) }

type labelKey struct{}

// WithLabel returns a context whose edits are labelled with label in the
// editor's undo history.
func WithLabel(ctx context.Context, label string) context.Context {
	return context.WithValue(ctx, labelKey{}, label)
}

// WriteFile applies the change through the editor, or writes the disk.
func (fs *FS) WriteFile(ctx context.Context, path string, before, content []byte) error {
	if fs.Editor == nil {
		return tools.WriteFileAtomic(path, content)
	}
	label, _ := ctx.Value(labelKey{}).(string)
	c := FileChange{Path: path, Before: string(before), After: string(content), Create: before == nil, Label: label}
	if c.Create {
		if _, err := os.Stat(path); err == nil {
			c.Create = false
			if text, ok := fs.Overlay.Get(path); ok {
				c.Before = text
			} else if b, err := (tools.DiskFS{}).ReadFile(path); err == nil {
				c.Before = string(b)
			}
		}
	}
	if err := fs.Editor.ApplyEdit(ctx, c); err != nil {
		var refused *EditRefusedError
		if errors.As(err, &refused) {
			return err
		}
		return fmt.Errorf("applying edit to %s in the editor: %w", path, err)
	}
	fs.Overlay.wrote(path, c.After)
	return nil
}
