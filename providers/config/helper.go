package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// runHelper runs an apiKeyHelper command with the timeout and returns the
// key it printed.
func (r Resolver) runHelper(ctx context.Context, command string) (string, error) {
	d := r.HelperTimeout
	if d <= 0 {
		d = DefaultHelperTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	run := r.RunHelper
	if run == nil {
		run = shell
	}
	out, err := run(ctx, command)
	if ctx.Err() == context.DeadlineExceeded {
		return "", fmt.Errorf("command %q did not finish within %v", command, d)
	}
	if err != nil {
		return "", fmt.Errorf("command %q: %w", command, err)
	}
	key := strings.TrimSpace(out)
	if key == "" {
		return "", fmt.Errorf("command %q printed no key", command)
	}
	if strings.ContainsAny(key, "\r\n") {
		return "", fmt.Errorf("command %q printed more than one line", command)
	}
	return key, nil
}

// shell runs command with sh -c. Its stderr goes into the error.
func shell(ctx context.Context, command string) (string, error) {
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Do not wait for grandchildren that keep the pipes open after the
	// shell is killed.
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("%w: %s", err, lastLine(msg))
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("exited with %d", ee.ExitCode())
		}
		return "", err
	}
	return stdout.String(), nil
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
