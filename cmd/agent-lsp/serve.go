package main

import (
	"context"
	"io"
	"log"
	"path/filepath"

	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/session"
	"github.com/agent-lsp/agent-lsp/wrap"
)

// serveLSP serves the LSP door on rwc and returns the exit code.
func serveLSP(ctx context.Context, rwc io.ReadWriteCloser) int {
	return server.Serve(ctx, rwc, server.Options{
		NewService: newService,
		Version:    version,
		Logf:       log.Printf,
		// The plain-LSP door's transcripts live beside the sessions.
		TranscriptDir: filepath.Join(session.DefaultDir(), "transcripts"),
	})
}

// serveWrap serves the editor on rwc in wrap mode around the language
// server command argv (see package wrap).
func serveWrap(ctx context.Context, rwc io.ReadWriteCloser, argv []string) int {
	return wrap.Serve(ctx, rwc, argv, server.Options{
		NewService:    newService,
		Version:       version,
		Logf:          log.Printf,
		TranscriptDir: filepath.Join(session.DefaultDir(), "transcripts"),
	})
}
