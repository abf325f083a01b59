package mcp

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/settings"
)

// applyPolicy marks Blocked the servers the administrator's lists keep
// from starting, as Claude Code evaluates them: a server that matches a
// deniedMcpServers entry (by name, exact command or URL pattern) is
// blocked; then, when allowedMcpServers is set, a remote server must match
// a serverUrl entry (or, when the list has none, a serverName one) and a
// stdio server a serverCommand entry (or, when the list has none, a
// serverName one). managed-mcp.json's servers skip the allowlist unless
// their definition takes ${VAR} values from the environment. Commands and
// URLs of the entries are expanded with lookup, as the servers' are.
func applyPolicy(servers []Server, st *settings.Settings, lookup func(string) (string, bool)) {
	if st == nil {
		return
	}
	x := expander{lookup: lookup}
	expandRules := func(rules []settings.MCPServerRule) []settings.MCPServerRule {
		out := make([]settings.MCPServerRule, len(rules))
		for i, r := range rules {
			out[i] = settings.MCPServerRule{ServerName: r.ServerName, ServerURL: x.expand(r.ServerURL)}
			for _, a := range r.ServerCommand {
				out[i].ServerCommand = append(out[i].ServerCommand, x.expand(a))
			}
		}
		return out
	}
	deny := expandRules(st.DeniedMcpServers)
	allow := expandRules(st.AllowedMcpServers)
	var hasURL, hasCommand bool
	for _, r := range allow {
		hasURL = hasURL || r.ServerURL != ""
		hasCommand = hasCommand || len(r.ServerCommand) > 0
	}
	for i := range servers {
		srv := &servers[i]
		if srv.Blocked != "" {
			continue
		}
		if r, ok := firstMatch(deny, srv, true); ok {
			srv.Blocked = "deniedMcpServers blocks it (" + describeRule(r) + ")"
			continue
		}
		if st.AllowedMcpServers == nil || (srv.Scope == ScopeManaged && !srv.usesEnv) {
			continue
		}
		byName := !hasCommand
		if srv.Type != TypeStdio {
			byName = !hasURL
		}
		if _, ok := firstMatch(allow, srv, byName); !ok {
			srv.Blocked = "it is not in allowedMcpServers"
			if st.AllowManagedMcpServersOnly {
				srv.Blocked = "it is not in the administrator's allowedMcpServers (allowManagedMcpServersOnly)"
			}
		}
	}
}

// firstMatch returns the first rule that matches srv: by its command (a
// stdio server) or URL (a remote one), and by its name when byName is
// set.
func firstMatch(rules []settings.MCPServerRule, srv *Server, byName bool) (settings.MCPServerRule, bool) {
	for _, r := range rules {
		switch {
		case r.ServerName != "":
			if byName && r.ServerName == srv.Name {
				return r, true
			}
		case len(r.ServerCommand) > 0:
			if srv.Type == TypeStdio && slices.Equal(r.ServerCommand, append([]string{srv.Command}, srv.Args...)) {
				return r, true
			}
		case r.ServerURL != "":
			if srv.Type != TypeStdio && urlMatches(r.ServerURL, srv.URL) {
				return r, true
			}
		}
	}
	return settings.MCPServerRule{}, false
}

// urlMatches reports whether u matches pattern, whose * match any text;
// the host is compared without case and without a trailing dot.
func urlMatches(pattern, u string) bool {
	var re strings.Builder
	re.WriteString("^")
	for i, part := range strings.Split(normalizeHost(pattern), "*") {
		if i > 0 {
			re.WriteString(".*")
		}
		re.WriteString(regexp.QuoteMeta(part))
	}
	re.WriteString("$")
	ok, err := regexp.MatchString(re.String(), normalizeHost(u))
	return err == nil && ok
}

// normalizeHost lowercases the scheme and host of u and drops a trailing
// dot from the host; the path keeps its case.
func normalizeHost(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	host, path, hasPath := strings.Cut(rest, "/")
	host = strings.ToLower(host)
	if h, port, found := strings.Cut(host, ":"); found {
		host = strings.TrimSuffix(h, ".") + ":" + port
	} else {
		host = strings.TrimSuffix(host, ".")
	}
	out := strings.ToLower(scheme) + "://" + host
	if hasPath {
		out += "/" + path
	}
	return out
}

// describeRule shows a policy entry as written.
func describeRule(r settings.MCPServerRule) string {
	switch {
	case r.ServerName != "":
		return "serverName " + r.ServerName
	case len(r.ServerCommand) > 0:
		data, _ := json.Marshal(r.ServerCommand)
		return "serverCommand " + string(data)
	}
	return "serverUrl " + r.ServerURL
}

// usesVars reports whether a server definition has ${VAR} references.
func usesVars(raw json.RawMessage) bool { return bytes.Contains(raw, []byte("${")) }
