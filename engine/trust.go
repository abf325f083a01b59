package engine

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/agent-lsp/agent-lsp/langserver"
	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
)

// Trust lets the service of an untrusted project folder ask the user to
// trust it. Until then the project's settings contribute only what
// tightens the rules; hooks, MCP servers, apiKeyHelper, env, baseURL and
// loosening rules stay off (settings.Settings.HeldBack lists them).
type Trust struct {
	// Folder is the project folder, as shown in the question.
	Folder string
	// Grant records that the user trusts Folder (for later processes
	// too) and returns the service's configuration rebuilt with the
	// project's settings in full: settings, provider and model. The
	// service adopts it and runs the old configuration's OnClose.
	Grant func(ctx context.Context) (Config, error)
}

// trustState is where the question to trust the folder is, for one
// service (so: once per folder in this process).
type trustState int

const (
	trustUnasked trustState = iota
	trustAsking
	trustRefused // the user said "not now": not asked again in this process
	trustGranted
)

// Trust request option ids and the _meta kind marking the request.
const (
	optTrust        = "trust"
	optNotNow       = "not_now"
	TrustRequestKey = "agent-lsp"
	// TrustRequestKind is _meta["agent-lsp"].kind of a folder trust
	// request.
	TrustRequestKind = "folderTrust"
)

// IsTrustRequest reports whether a permission request asks to trust a
// folder rather than to run a tool call.
func IsTrustRequest(p *schema.RequestPermissionParams) bool {
	m, ok := p.Meta[TrustRequestKey].(map[string]any)
	return ok && m["kind"] == TrustRequestKind
}

// heldBack returns what stays off until the folder is trusted, and how
// to trust it: what the folder's settings hold back, and the language
// servers that would start for its files (none starts in an untrusted
// folder: they run the project's code); nil when there is nothing to ask.
func (s *Service) heldBack() ([]settings.HeldBack, *Trust) {
	s.mu.Lock()
	st, tr, base := s.cfg.Settings, s.cfg.Trust, s.cfg.LangServers
	s.mu.Unlock()
	if tr == nil || st == nil || !st.ProjectRestricted {
		return nil, nil
	}
	held := st.HeldBack
	if names := s.waitingLangServers(st, base); len(names) > 0 {
		held = append(slices.Clip(held), settings.HeldBack{LanguageServers: names, RunsCode: true})
	}
	if len(held) == 0 {
		return nil, nil
	}
	return held, tr
}

// waitingLangServers names the language servers that would start for the
// untrusted folder's files once it is trusted: the user's own or those
// found on PATH, serving a file type the folder holds.
func (s *Service) waitingLangServers(st *settings.Settings, base []langserver.ServerConfig) []string {
	if st.LSP.Disabled || st.Project == "" {
		return nil
	}
	servers := serverConfigs(st.LSP, base)
	if len(servers) == 0 {
		return nil
	}
	types := s.folderFiletypes(st.Project)
	var names []string
	for _, srv := range servers {
		for _, ft := range srv.Filetypes {
			if types[strings.ToLower(strings.TrimPrefix(ft, "."))] {
				names = append(names, filepath.Base(srv.Command[0]))
				break
			}
		}
	}
	return names
}

// folderScanLimit bounds the entries folderFiletypes looks at.
const folderScanLimit = 20000

// folderFiletypes returns the file name extensions (lower case, without
// the dot) of the files in folder, looked for once: hidden folders and
// dependency trees (node_modules, vendor, target) are skipped, and the
// walk stops after folderScanLimit entries.
func (s *Service) folderFiletypes(folder string) map[string]bool {
	s.folderTypesOnce.Do(func() {
		types := make(map[string]bool)
		seen := 0
		filepath.WalkDir(folder, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if seen++; seen > folderScanLimit {
				return filepath.SkipAll
			}
			if d.IsDir() {
				if path != folder && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "vendor" || d.Name() == "target") {
					return filepath.SkipDir
				}
				return nil
			}
			if ext := strings.TrimPrefix(filepath.Ext(d.Name()), "."); ext != "" {
				types[strings.ToLower(ext)] = true
			}
			return nil
		})
		s.folderTypes = types
	})
	return s.folderTypes
}

// settleTrust asks the user, before sess's turn starts, to trust the
// project folder when its settings hold something back and the user has
// not answered yet in this process. Concurrent prompts wait for the one
// question. After "trust" the service adopts the full configuration.
func (s *Service) settleTrust(ctx context.Context, sess *Session) {
	defer sess.catchUp()
	for {
		s.mu.Lock()
		settled := s.trust == trustRefused || s.trust == trustGranted
		s.mu.Unlock()
		if settled {
			return // before heldBack, which looks for language servers
		}
		held, tr := s.heldBack()
		if tr == nil {
			return
		}
		s.mu.Lock()
		switch s.trust {
		case trustRefused, trustGranted:
			s.mu.Unlock()
			return
		case trustAsking:
			wait := s.trustDone
			s.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return
			}
		}
		s.trust = trustAsking
		done := make(chan struct{})
		s.trustDone = done
		s.mu.Unlock()

		granted, answered := sess.askTrust(ctx, tr.Folder, held)
		next := trustUnasked // cancelled: ask again at the next prompt
		switch {
		case granted:
			next = trustGranted
			cfg, err := tr.Grant(ctx)
			if err != nil {
				s.cfg.Logf("trusting %s: %v", tr.Folder, err)
				sess.status(ctx, Status{Kind: StatusWarning, Message: fmt.Sprintf("trusting %s failed: %v; its settings stay off", tr.Folder, err)})
				next = trustRefused
			} else {
				s.adopt(cfg)
			}
		case answered:
			next = trustRefused
			sess.status(ctx, Status{Kind: StatusInfo, Message: fmt.Sprintf("%s stays untrusted: %s %s off in this session", tr.Folder, settings.DescribeHeldBack(held), stayOff(held))})
		}
		s.mu.Lock()
		s.trust = next
		s.trustDone = nil
		close(done)
		s.mu.Unlock()
		return
	}
}

// TrustGranted applies a trust the user gave outside this process's
// question: `agent-lsp trust`, or another agent-lsp recording the folder
// in the trust file while this one runs. It does what the answer "trust"
// does (the full configuration applies to the service and every open
// session, whose next model request has the tools they may use now);
// nothing when the folder is trusted already.
func (s *Service) TrustGranted(ctx context.Context) error {
	s.mu.Lock()
	tr := s.cfg.Trust
	if tr == nil || s.trust == trustGranted {
		s.mu.Unlock()
		return nil
	}
	was := s.trust
	s.trust = trustGranted
	s.mu.Unlock()
	cfg, err := tr.Grant(ctx)
	if err != nil {
		s.mu.Lock()
		if s.trust == trustGranted {
			s.trust = was
		}
		s.mu.Unlock()
		return fmt.Errorf("trusting %s: %w", tr.Folder, err)
	}
	s.adopt(cfg)
	return nil
}

// askTrust asks the user to trust folder with a permission request marked
// as a trust request. answered is false when the question was cancelled
// or could not be asked.
func (s *Session) askTrust(ctx context.Context, folder string, held []settings.HeldBack) (granted, answered bool) {
	title := settings.TrustQuestion(folder, held)
	detail := fmt.Sprintf("Until you trust this folder, agent-lsp uses only the deny and ask rules and sandbox restrictions of its settings. "+
		"Trusting it turns on %s, now and in later sessions. Trust it only if you trust where its files came from.", settings.DescribeHeldBack(held))
	var locations []schema.Location
	for _, h := range held {
		if h.File != "" {
			locations = append(locations, schema.Location{Path: folderFile(folder, h.File)})
		}
	}
	heldMeta := make([]map[string]any, 0, len(held))
	for _, h := range held {
		m := map[string]any{"file": h.File, "hooks": h.Hooks, "mcpServers": h.MCPServers, "other": h.Other, "runsCode": h.RunsCode}
		if len(h.LanguageServers) > 0 {
			m["languageServers"] = h.LanguageServers
		}
		heldMeta = append(heldMeta, m)
	}
	res, err := s.client.RequestPermission(ctx, &schema.RequestPermissionParams{
		SessionID: s.ID,
		ToolCall: schema.ToolCall{
			ToolCallID: "trust-" + uuid.NewString(),
			Title:      title,
			Kind:       schema.KindOther,
			Status:     schema.StatusPending,
			Content:    []schema.ToolCallContent{{Type: "content", Content: ptr(schema.TextBlock(detail))}},
			Locations:  locations,
			RawInput:   map[string]any{"folder": folder},
		},
		Options: []schema.PermissionOption{
			{OptionID: optTrust, Name: "Trust this folder", Kind: schema.AllowAlways},
			{OptionID: optNotNow, Name: "Not now", Kind: schema.RejectOnce},
		},
		Meta: map[string]any{TrustRequestKey: map[string]any{"kind": TrustRequestKind, "folder": folder, "heldBack": heldMeta}},
	})
	if err != nil {
		if ctx.Err() != nil {
			return false, false
		}
		s.svc.cfg.Logf("session %s: asking to trust %s: %v", s.ID, folder, err)
		return false, true
	}
	if res.Outcome.Outcome != "selected" {
		return false, ctx.Err() == nil
	}
	return res.Outcome.OptionID == optTrust, true
}

func ptr[T any](v T) *T { return &v }

func folderFile(folder, rel string) string {
	if strings.HasPrefix(rel, "/") {
		return rel
	}
	return strings.TrimSuffix(folder, "/") + "/" + rel
}

func stayOff(held []settings.HeldBack) string {
	if settings.IsSingular(held) {
		return "is"
	}
	return "are"
}

// noticeHeldBack tells the user, once per session, what the untrusted
// folder's settings hold that stays off.
func (s *Session) noticeHeldBack(st *settings.Settings) {
	if !st.ProjectRestricted || len(st.HeldBack) == 0 {
		return
	}
	s.notice(Status{Kind: StatusWarning, Message: fmt.Sprintf("%s %s off until you trust this folder", settings.DescribeHeldBack(st.HeldBack), stayOff(st.HeldBack))})
}

// adopt takes the configuration rebuilt for the trusted folder: its
// settings, provider and model apply to the service and to every open
// session, whose held-back MCP servers start.
func (s *Service) adopt(next Config) {
	s.mu.Lock()
	old := s.cfg
	s.cfg.Settings, s.cfg.Notices = next.Settings, next.Notices
	s.cfg.Provider, s.cfg.ProviderError = next.Provider, next.ProviderError
	if next.Model != "" {
		s.cfg.Model = next.Model
	}
	s.cfg.Trust = nil
	s.cfg.OnClose = next.OnClose
	open := make([]*Session, 0, len(s.sessions))
	for _, sess := range s.sessions {
		open = append(open, sess)
	}
	s.mu.Unlock()
	for _, f := range old.OnClose {
		f()
	}
	st := next.Settings
	if st == nil {
		return
	}
	for _, sess := range open {
		if sess.trusted(st) {
			for _, n := range next.Notices {
				sess.status(context.Background(), Status{Kind: StatusWarning, Message: n})
			}
		}
	}
}

// catchUp applies the trusted settings to a session that started with the
// restricted ones while the folder was being trusted.
func (s *Session) catchUp() {
	st, _ := s.svc.settings()
	if st != nil && !st.ProjectRestricted {
		s.trusted(st)
	}
}

// trusted applies the trusted folder's full settings to a session that
// started with the restricted ones; it reports false when the session
// has them already.
func (s *Session) trusted(st *settings.Settings) bool {
	start := s.tools.trust(st)
	if start == nil {
		return false
	}
	old := Config{Mode: s.svc.cfg.Mode, Settings: start}
	ctx := context.Background()
	s.pipe.gate.policy.Update(st)
	s.pipe.hooks.Update(st)
	s.setSandbox(st)
	// The project's defaultMode and model apply unless the session moved
	// away from the defaults it started with.
	if old.Mode == "" && old.Settings != nil && st.Permissions.DefaultMode != "" &&
		st.Permissions.DefaultMode != old.Settings.Permissions.DefaultMode && s.Mode() == startMode(old.Settings) {
		if err := s.SetMode(ctx, st.Permissions.DefaultMode); err != nil {
			s.status(ctx, Status{Kind: StatusWarning, Message: fmt.Sprintf("the folder's defaultMode: %v", err)})
		}
	}
	s.svc.mu.Lock()
	model := s.svc.cfg.Model
	s.svc.mu.Unlock()
	s.conv.followDefault(model)
	// The MCP servers held back (settings mcpServers, .mcp.json) start.
	servers, errs := s.collectMCP(st, s.tools.mcp.editor)
	for _, err := range errs {
		s.status(ctx, Status{Kind: StatusWarning, Message: fmt.Sprintf("MCP configuration: %v", err)})
	}
	var fresh = servers[:0:0]
	for _, srv := range servers {
		if !s.tools.mcp.names[srv.Name] {
			fresh = append(fresh, srv)
		}
	}
	if m := s.runMCP(st, fresh); m != nil {
		s.tools.mcp.setTrusted(m)
		if s.turn.isClosed() {
			m.Close()
		}
	}
	s.status(ctx, Status{Kind: StatusInfo, Message: "the folder is trusted: its settings are on"})
	return true
}

// startMode is the mode a session starts in under st.
func startMode(st *settings.Settings) string {
	m := st.Permissions.DefaultMode
	if _, err := permission.ParseMode(m); err != nil || m == "" || (m == string(permission.BypassPermissions) && st.Permissions.DisableBypassPermissions) {
		return string(permission.Default)
	}
	return m
}
