package proctest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

const prSetChildSubreaper = 36 // PR_SET_CHILD_SUBREAPER, linux/prctl.h

var subreaperOnce sync.Once

// becomeSubreaper makes orphaned descendants of the test binary its
// children rather than init's, so that they stay visible as descendants.
func becomeSubreaper() {
	subreaperOnce.Do(func() {
		_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	})
}

func procSupported() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

// descendants returns every process whose parent chain leads to this
// one, zombies included, by key.
func descendants() map[procKey]Proc {
	all := map[int]Proc{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			all[pid] = p
		}
	}
	self := os.Getpid()
	out := map[procKey]Proc{}
	for _, p := range all {
		// Walk up; the depth bound guards against a cycle seen in a
		// racy snapshot (a pid reused while scanning).
		for q, depth := p, 0; depth < 64; depth++ {
			if q.PPID == self {
				out[p.key()] = p
				break
			}
			parent, ok := all[q.PPID]
			if !ok || q.PPID <= 1 {
				break
			}
			q = parent
		}
	}
	return out
}

// readProc reads /proc/pid/stat and cmdline. It reports false when the
// process is gone.
func readProc(pid int) (Proc, bool) {
	base := "/proc/" + strconv.Itoa(pid)
	stat, err := os.ReadFile(base + "/stat")
	if err != nil {
		return Proc{}, false
	}
	// The command name in parentheses may hold spaces and parentheses:
	// the fields resume after the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return Proc{}, false
	}
	f := strings.Fields(string(stat[i+1:]))
	// f[0] is field 3 (state); ppid is field 4, pgrp 5, starttime 22.
	if len(f) < 20 {
		return Proc{}, false
	}
	p := Proc{PID: pid, State: f[0][0]}
	p.PPID, _ = strconv.Atoi(f[1])
	p.PGID, _ = strconv.Atoi(f[2])
	p.Start, _ = strconv.ParseUint(f[19], 10, 64)
	cmd, _ := os.ReadFile(base + "/cmdline")
	p.Cmdline = strings.TrimSpace(string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))
	if p.Cmdline == "" {
		if j := bytes.IndexByte(stat, '('); j >= 0 {
			p.Cmdline = "[" + string(stat[j+1:i]) + "]"
		}
	}
	return p, true
}

// killAll sends SIGKILL to each process that is still the one listed.
func killAll(ps []Proc) {
	for _, p := range ps {
		if now, ok := readProc(p.PID); ok && now.Start == p.Start {
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
		}
	}
}
