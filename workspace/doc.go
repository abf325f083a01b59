// Package workspace is the session's view of files: an overlay of the
// documents open in the editor (kept in step by textDocument/did*
// notifications) over the disk, and a FileSystem that writes through the
// editor when one is attached so edits land in its buffers.
package workspace
