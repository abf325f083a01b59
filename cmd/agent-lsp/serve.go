package main

import (
	"context"
	"io"
	"log"

	"github.com/agent-lsp/agent-lsp/server"
)

// serveLSP serves the LSP door on rwc and returns the exit code.
func serveLSP(ctx context.Context, rwc io.ReadWriteCloser) int {
	return server.Serve(ctx, rwc, server.Options{
		NewService: newService,
		Version:    version,
		Logf:       log.Printf,
	})
}
