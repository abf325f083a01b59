package tools

// New returns the built-in tools for a session running in env, in the
// order the model sees them.
func New(env *Env) []Tool {
	return []Tool{}
}
