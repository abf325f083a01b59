package tools

// New returns the built-in tools for a session running in env, in the
// order the model sees them. A nil env.Files becomes DiskFS and a nil
// env.Reads a new ReadTracker.
//
// The tools share per-session state kept in env: the background shells
// of Bash. Call env.Close (or Close on the Bash tool, which implements
// interface{ Close() }) when the session ends: it kills them all.
func New(env *Env) []Tool {
	if env.Files == nil {
		env.Files = DiskFS{}
	}
	if env.Reads == nil {
		env.Reads = NewReadTracker()
	}
	if env.shells == nil {
		env.shells = newShellManager()
	}
	list := []Tool{
		&readTool{env},
		&writeTool{env},
		&editTool{env},
		&multiEditTool{env},
		&globTool{env},
		&grepTool{env: env, rg: rgPath()},
		&lsTool{env},
		&bashTool{env},
		&bashOutputTool{env},
		&killBashTool{env},
		&todoTool{env},
		newWebFetchTool(env),
		&notebookEditTool{env},
	}
	if env.Code != nil {
		// Only sessions with language servers pay for their schemas.
		list = append(list, CodeTools(env)...)
	}
	return list
}

// CodeTools returns the tools that ask env.Code: Diagnostics and LSP. A
// session whose language servers come and go offers them itself, while
// something answers.
func CodeTools(env *Env) []Tool {
	return []Tool{&diagnosticsTool{env}, &lspTool{env}}
}

// Find returns the tool of tools named name, or nil.
func Find(tools []Tool, name string) Tool {
	for _, t := range tools {
		if t.Spec().Name == name {
			return t
		}
	}
	return nil
}
