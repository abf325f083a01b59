//go:build unix

package netproxy

import (
	"errors"
	"net"
	"os"
	"syscall"
)

// receiveFile reads one message of a control connection and returns the
// descriptor it carries.
func receiveFile(c *net.UnixConn) (*os.File, error) {
	buf := make([]byte, 1)
	oob := make([]byte, syscall.CmsgSpace(4))
	_, oobn, _, _, err := c.ReadMsgUnix(buf, oob)
	if err != nil {
		return nil, err
	}
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err != nil {
		return nil, err
	}
	var files []*os.File
	for _, m := range msgs {
		fds, err := syscall.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			files = append(files, os.NewFile(uintptr(fd), "netproxy-stream"))
		}
	}
	if len(files) == 0 {
		return nil, errors.New("netproxy: a control message without a descriptor")
	}
	for _, f := range files[1:] {
		f.Close()
	}
	return files[0], nil
}

// sendFile passes fd over the control connection (descriptor ctl).
func sendFile(ctl, fd int) error {
	return syscall.Sendmsg(ctl, []byte{'s'}, syscall.UnixRights(fd), nil, 0)
}
