package mcp

//lint:file-ignore SA1019 MCP roots are deprecated from protocol 2026-07-28 (SEP-2577) but remain functional, and servers written for older protocols still ask for them; this file is the only use, kept so those servers keep working.

import (
	"net/url"
	"path/filepath"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// offerRoots announces the roots capability when there are workspace
// folders to offer. Roots are deprecated: nothing new builds on them.
func offerRoots(caps *sdk.ClientCapabilities, roots []string) {
	if len(roots) > 0 {
		caps.RootsV2 = &sdk.RootCapabilities{}
	}
}

// addRoots gives the client the workspace folders as roots, for servers
// that ask with roots/list.
func addRoots(client *sdk.Client, roots []string) {
	for _, dir := range roots {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}
		client.AddRoots(&sdk.Root{URI: u.String(), Name: filepath.Base(dir)})
	}
}
