package netproxy

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
)

// init makes the program the bridge when its first argument is
// BridgeArg; it never returns then.
func init() {
	if len(os.Args) > 3 && os.Args[1] == BridgeArg {
		os.Exit(bridge(os.Args[2:]))
	}
}

// bridge runs inside the sandbox, under its seccomp filter: it listens
// on 127.0.0.1:Port, and for every connection there makes a socket pair
// (socketpair is allowed; socket(AF_UNIX) is not) and passes one end to
// the proxy over the control descriptor its launcher connected outside
// the sandbox. It runs the command as its child, the control descriptor
// closed in it, and exits as the command does. Without a control
// descriptor (-1) or a port, the command runs without network.
func bridge(args []string) int {
	ctl, err := strconv.Atoi(args[0])
	if err != nil || args[1] != "--" {
		fmt.Fprintf(os.Stderr, "agent-lsp: network bridge: usage: %s FD -- COMMAND...\n", BridgeArg)
		return 126
	}
	if ctl >= 0 {
		syscall.CloseOnExec(ctl)
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", Port))
		if err != nil {
			fmt.Fprintf(os.Stderr, "agent-lsp: the sandbox's network bridge cannot listen (%v): the command runs without network\n", err)
		} else {
			go serveBridge(ln, ctl)
		}
	}
	cmd := exec.Command(args[2], args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "agent-lsp: %v\n", err)
		if errors.Is(err, exec.ErrNotFound) {
			return 127
		}
		return 126
	}
	go func() {
		for s := range sig {
			cmd.Process.Signal(s)
		}
	}()
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	if err != nil {
		return 126
	}
	return 0
}

// serveBridge passes every connection to ln on to the proxy.
func serveBridge(ln net.Listener, ctl int) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
			if err != nil {
				return
			}
			err = sendFile(ctl, pair[1])
			syscall.Close(pair[1])
			f := os.NewFile(uintptr(pair[0]), "netproxy-bridge")
			defer f.Close()
			if err != nil {
				return
			}
			up, err := net.FileConn(f)
			if err != nil {
				return
			}
			defer up.Close()
			done := make(chan struct{})
			go func() {
				defer close(done)
				io.Copy(up, c)
				up.(*net.UnixConn).CloseWrite()
			}()
			io.Copy(c, up)
			c.(*net.TCPConn).CloseWrite()
			<-done
		}()
	}
}
