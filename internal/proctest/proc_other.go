//go:build !linux

package proctest

// Without Linux's /proc and child subreapers the reaping checks are
// skipped.

func becomeSubreaper()              {}
func procSupported() bool           { return false }
func descendants() map[procKey]Proc { return nil }
func killAll([]Proc)                {}
