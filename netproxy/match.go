package netproxy

import (
	"net"
	"strings"
)

// Policy is what one command may reach: the settings'
// sandbox.network.allowedDomains and deniedDomains.
type Policy struct {
	// Allowed are the hosts the command may reach: exact names (or IP
	// literals), or "*.example.com" for every name below example.com
	// (not example.com itself), as Claude Code's sandbox runtime
	// matches them.
	Allowed []string
	// Denied are hosts refused even when Allowed matches them, in the
	// same forms.
	Denied []string
}

// Allows reports whether the policy lets a command reach host (a name
// or an IP literal, without port): an Allowed pattern matches it and no
// Denied one does.
func (p Policy) Allows(host string) bool {
	host = normalHost(host)
	if host == "" {
		return false
	}
	for _, d := range p.Denied {
		if MatchHost(host, d) {
			return false
		}
	}
	for _, a := range p.Allowed {
		if MatchHost(host, a) {
			return true
		}
	}
	return false
}

// Grants reports whether the policy lets any host through: without it,
// a sandbox needs no way out.
func (p Policy) Grants() bool {
	for _, a := range p.Allowed {
		if normalPattern(a) != "" {
			return true
		}
	}
	return false
}

// MatchHost reports whether host matches pattern: "*.example.com"
// matches every name that ends in ".example.com"; any other pattern
// matches itself only. Both compare without case and without a final
// dot; "*" alone matches every host.
func MatchHost(host, pattern string) bool {
	host, pattern = normalHost(host), normalPattern(pattern)
	switch {
	case host == "" || pattern == "":
		return false
	case pattern == "*":
		return true
	case strings.HasPrefix(pattern, "*."):
		return strings.HasSuffix(host, pattern[1:])
	}
	return host == pattern
}

// normalHost lowercases host, drops a final dot and an IPv6 literal's
// brackets; "" for a name no pattern may match (empty, or holding
// characters no host name has).
func normalHost(host string) string {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "" || strings.ContainsAny(host, "/\\@ \t\r\n%*") {
		return ""
	}
	if ip := net.ParseIP(host); ip != nil {
		return ip.String()
	}
	return host
}

// normalPattern is normalHost for a pattern, which may start with "*."
// or be "*".
func normalPattern(p string) string {
	p = strings.TrimSpace(p)
	switch {
	case p == "*":
		return p
	case strings.HasPrefix(p, "*."):
		if rest := normalHost(p[2:]); rest != "" {
			return "*." + rest
		}
		return ""
	}
	return normalHost(p)
}
