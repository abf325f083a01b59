package netproxy

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"strconv"
)

// SOCKS5 (RFC 1928), CONNECT only, without authentication: what clients
// that honour ALL_PROXY=socks5h:// speak. The host is checked as for
// HTTP; a refusal is reply 0x02 (not allowed by the ruleset).
const (
	socksVersion      = 5
	socksNoAuth       = 0
	socksNoMethod     = 0xff
	socksConnect      = 1
	socksIPv4         = 1
	socksDomain       = 3
	socksIPv6         = 4
	socksOK           = 0
	socksFailure      = 1
	socksNotAllowed   = 2
	socksUnreachable  = 4
	socksBadCommand   = 7
	socksBadAddrType  = 8
	socksReplyPadding = "\x00\x01\x00\x00\x00\x00\x00\x00" // RSV, ATYP IPv4, 0.0.0.0:0
)

// socks serves one SOCKS5 stream whose first byte (the version) br
// holds.
func (s *Server) socks(t *Ticket, c net.Conn, br *bufio.Reader) {
	var head [2]byte
	if _, err := io.ReadFull(br, head[:]); err != nil || head[0] != socksVersion {
		return
	}
	methods := make([]byte, head[1])
	if _, err := io.ReadFull(br, methods); err != nil {
		return
	}
	method := byte(socksNoMethod)
	for _, m := range methods {
		if m == socksNoAuth {
			method = socksNoAuth
		}
	}
	if _, err := c.Write([]byte{socksVersion, method}); err != nil || method != socksNoAuth {
		return
	}
	var req [4]byte
	if _, err := io.ReadFull(br, req[:]); err != nil || req[0] != socksVersion {
		return
	}
	reply := func(code byte) error {
		_, err := c.Write(append([]byte{socksVersion, code}, socksReplyPadding...))
		return err
	}
	var host string
	switch req[3] {
	case socksIPv4, socksIPv6:
		ip := make([]byte, 4)
		if req[3] == socksIPv6 {
			ip = make([]byte, 16)
		}
		if _, err := io.ReadFull(br, ip); err != nil {
			return
		}
		host = net.IP(ip).String()
	case socksDomain:
		n, err := br.ReadByte()
		if err != nil {
			return
		}
		name := make([]byte, n)
		if _, err := io.ReadFull(br, name); err != nil {
			return
		}
		host = string(name)
	default:
		reply(socksBadAddrType)
		return
	}
	var portb [2]byte
	if _, err := io.ReadFull(br, portb[:]); err != nil {
		return
	}
	port := strconv.Itoa(int(binary.BigEndian.Uint16(portb[:])))
	if req[1] != socksConnect {
		reply(socksBadCommand)
		return
	}
	if !t.allows(host) {
		reply(socksNotAllowed)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	up, err := s.connect(ctx, t, host, port)
	cancel()
	if err != nil {
		reply(socksUnreachable)
		return
	}
	defer up.Close()
	if !t.track(up) {
		reply(socksFailure)
		return
	}
	defer t.untrack(up)
	if reply(socksOK) != nil {
		return
	}
	pipe(c, br, up)
}
