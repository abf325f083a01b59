package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// door is a way to start a program and ask it one initialize.
type door struct {
	name   string
	args   []string
	ndjson bool
}

// startupRows times spawn -> initialize answered for agent-lsp's LSP and
// ACP doors and for the trivial Go program (bench/trivial), interleaved
// run by run so that all of them see the same machine load, and reads
// agent-lsp's peak RSS (VmHWM) once initialize is answered. When before
// is set, that binary (an earlier build) is timed in the same runs too,
// so a change is measured before and after under the same load.
func startupRows(bin, before, trivial string, runs int) [][2]string {
	lsp := door{name: "LSP door", args: []string{"--stdio"}}
	acp := door{name: "ACP door", args: []string{"acp"}, ndjson: true}
	type subject struct {
		label          string
		bin            string
		lspT, acpT     []time.Duration
		lspRSS, acpRSS []int
	}
	subjects := []*subject{{label: "", bin: bin}}
	if before != "" {
		subjects = append(subjects, &subject{label: " (before: " + filepath.Base(before) + ")", bin: before})
	}
	var base, baseND []time.Duration
	for range runs {
		base = append(base, timeStart(trivial, door{args: nil}, nil))
		baseND = append(baseND, timeStart(trivial, door{args: []string{"-ndjson"}, ndjson: true}, nil))
		for _, s := range subjects {
			var kb int
			s.lspT = append(s.lspT, timeStart(s.bin, lsp, &kb))
			s.lspRSS = append(s.lspRSS, kb)
			s.acpT = append(s.acpT, timeStart(s.bin, acp, &kb))
			s.acpRSS = append(s.acpRSS, kb)
		}
	}
	ratio := func(a, b []time.Duration) string {
		return fmt.Sprintf("%.1fx", float64(pct(a, 50))/float64(pct(b, 50)))
	}
	rows := [][2]string{
		{fmt.Sprintf("start-up baseline: trivial Go program, spawn → first answer (%d runs)", runs), fmt.Sprintf("median %s (NDJSON %s)", ms(pct(base, 50)), ms(pct(baseND, 50)))},
	}
	for _, s := range subjects {
		rows = append(rows,
			[2]string{fmt.Sprintf("start-up, LSP door%s: spawn → initialize answered (%d runs)", s.label, runs), fmt.Sprintf("median %s, %s the baseline", ms(pct(s.lspT, 50)), ratio(s.lspT, base))},
			[2]string{fmt.Sprintf("start-up, ACP door%s: spawn → initialize answered (%d runs)", s.label, runs), fmt.Sprintf("median %s, %s the baseline", ms(pct(s.acpT, 50)), ratio(s.acpT, baseND))},
			[2]string{fmt.Sprintf("peak RSS (VmHWM) after initialize, LSP / ACP door%s", s.label), fmt.Sprintf("%.1f MB / %.1f MB", float64(medianInt(s.lspRSS))/1024, float64(medianInt(s.acpRSS))/1024)},
		)
	}
	return rows
}

// timeStart spawns bin, sends initialize and returns the time until its
// answer is read. When peakKB is set, it gets the process's VmHWM then.
func timeStart(bin string, d door, peakKB *int) time.Duration {
	wd, err := os.MkdirTemp("", "lspbench-start-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(wd)
	wd, _ = filepath.EvalSymlinks(wd)
	var msg string
	if d.ndjson {
		msg = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n"
	} else {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":%d,"rootUri":"file://%s","capabilities":{"experimental":{"agent":{}}}}}`, os.Getpid(), wd)
		msg = fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	cmd := exec.Command(bin, d.args...)
	cmd.Dir = wd
	cmd.Env = append(os.Environ(), "AGENT_LSP_HOME="+filepath.Join(wd, ".home"), "AGENT_LSP_NO_USER_SETTINGS=1", "ANTHROPIC_API_KEY=bench")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	// Written at once, as an editor does right after spawning.
	if _, err := io.WriteString(stdin, msg); err != nil {
		log.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	for {
		frame, err := readFrame(r, d.ndjson)
		if err != nil {
			log.Fatalf("%s %v: reading the initialize answer: %v", bin, d.args, err)
		}
		if bytes.Contains(frame, []byte(`"id":1`)) {
			break
		}
	}
	took := time.Since(t0)
	if peakKB != nil {
		*peakKB = procStatusKB(cmd.Process.Pid, "VmHWM:")
	}
	stdin.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
	}
	return took
}

// readFrame reads one message framed with Content-Length, or one line.
func readFrame(r *bufio.Reader, ndjson bool) ([]byte, error) {
	if ndjson {
		return r.ReadBytes('\n')
	}
	length := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("frame without Content-Length")
	}
	b := make([]byte, length)
	_, err := io.ReadFull(r, b)
	return b, err
}

// procStatusKB reads a kB field of /proc/PID/status.
func procStatusKB(pid int, field string) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			n, _ := strconv.Atoi(strings.Fields(rest)[0])
			return n
		}
	}
	return 0
}

func medianInt(xs []int) int {
	s := append([]int(nil), xs...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
