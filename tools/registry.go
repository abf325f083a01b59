package tools

// New returns the built-in tools for a session running in env, in the
// order the model sees them. A nil env.Files becomes DiskFS and a nil
// env.Reads a new ReadTracker.
//
// The tools share per-session state kept in env (background shells);
// call env.Close when the session ends to release it.
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
	return []Tool{
		&readTool{env},
		&writeTool{env},
		&editTool{env},
		&multiEditTool{env},
		&globTool{env},
		&grepTool{env: env, rg: rgPath()},
		&lsTool{env},
		&todoTool{env},
	}
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
