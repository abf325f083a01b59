package main

import "os"

// managedMemory is the managed CLAUDE.md (AGENT_LSP_MANAGED_MEMORY, else
// Claude Code's path on this system: engine.Config.ManagedMemory ""),
// none with AGENT_LSP_NO_USER_SETTINGS.
func managedMemory() string {
	if p := os.Getenv("AGENT_LSP_MANAGED_MEMORY"); p != "" {
		return p
	}
	if noUserSettings() {
		return "-"
	}
	return ""
}
