package langserver

// PIDs returns the process ids of the running servers, for benchmarks.
func (m *Manager) PIDs() []int {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []int
	for _, s := range m.servers {
		if s.cmd != nil && s.cmd.Process != nil && !s.isDead() {
			out = append(out, s.cmd.Process.Pid)
		}
	}
	return out
}
