//go:build !unix

package netproxy

import (
	"errors"
	"net"
	"os"
)

func receiveFile(*net.UnixConn) (*os.File, error) {
	return nil, errors.New("netproxy: passing descriptors needs a unix system")
}
