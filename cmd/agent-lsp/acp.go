package main

import (
	"context"
	"io"
	"log"

	"github.com/agent-lsp/agent-lsp/server"
)

// serveACP serves the Agent Client Protocol door on rwc: newline-delimited
// JSON-RPC, stdout for protocol messages only, logs on stderr. interrupt
// is closed by SIGINT (see server.Options.Interrupt).
func serveACP(ctx context.Context, rwc io.ReadWriteCloser, interrupt <-chan struct{}) int {
	return server.ServeACP(ctx, rwc, server.Options{
		NewService: newService,
		Version:    version,
		Logf:       log.Printf,
		Interrupt:  interrupt,
	})
}
