// Package reliability holds the sidecar's fault and load tests: what
// happens when the editor, the model server, the disk or the operating
// system misbehaves in the middle of a turn, and when many sessions
// prompt at once. The tests drive the built binary, or a server in
// process where the race detector or a setting the binary does not
// expose is needed, through the fake editor of internal/editortest and the
// scripted model servers of providers/fake. Every test checks that each
// process it caused to be started has ended by the time it finishes.
//
// The package has no code of its own beyond this comment; run its tests
// with
//
//	go test -race ./internal/reliability/
package reliability
