package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/rpc"
	"github.com/agent-lsp/agent-lsp/session"
)

// A connection's sessions run in session services. On the LSP door there
// is one, for the workspace initialize names. On the ACP door each
// session's cwd is its project: the first session in a directory builds
// that directory's service, so its .claude/settings.json (rules, hooks,
// model, apiKeyHelper) and CLAUDE.md apply to its sessions, as they would
// to claude started there. The service initialize builds is the one of
// the agent's own working directory; it also answers authenticate and
// session/list.

// serviceSet holds the session services of one connection: the one
// initialize built and, on the ACP door, those of other projects.
type serviceSet struct {
	build func(InitOptions) (*engine.Service, error)

	mu       sync.Mutex                 // guards the fields below and the projects' svc and err
	first    *engine.Service            // built by initialize
	root     string                     // the project of first
	projects map[string]*projectService // the services of other session cwds
	closed   bool                       // set once the connection shuts down
}

// projectService is the service of one project directory, built once.
type projectService struct {
	once sync.Once
	svc  *engine.Service // guarded by serviceSet.mu
	err  error           // guarded by serviceSet.mu
}

// setMain records the service initialize built for root.
func (s *serviceSet) setMain(svc *engine.Service, root string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.first, s.root = svc, root
}

// main returns the service initialize built.
func (s *serviceSet) main() *engine.Service {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.first
}

// forProject returns the service that sessions in cwd run in, building
// it on first use. Its error is the client's: cwd is not an absolute
// path to a directory.
func (s *serviceSet) forProject(cwd string) (*engine.Service, error) {
	if err := engine.CheckCwd(cwd); err != nil {
		return nil, err
	}
	root := filepath.Clean(cwd)
	s.mu.Lock()
	if s.first != nil && root == s.root {
		svc := s.first
		s.mu.Unlock()
		return svc, nil
	}
	p := s.projects[root]
	if p == nil {
		if s.projects == nil {
			s.projects = make(map[string]*projectService)
		}
		p = &projectService{}
		s.projects[root] = p
	}
	s.mu.Unlock()
	// Building a service reads settings and may run an apiKeyHelper:
	// other directories' sessions do not wait for it.
	p.once.Do(func() {
		svc, err := s.build(InitOptions{Roots: []string{root}})
		s.mu.Lock()
		p.svc, p.err = svc, err
		closed := s.closed
		s.mu.Unlock()
		if err == nil && closed {
			// The connection ended while it was being built.
			svc.Close()
		}
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("the agent is shutting down")
	}
	if p.err != nil {
		return nil, fmt.Errorf("starting the agent for %s: %w", root, p.err)
	}
	return p.svc, nil
}

// all returns every session service.
func (s *serviceSet) all() []*engine.Service {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*engine.Service
	if s.first != nil {
		out = append(out, s.first)
	}
	for _, p := range s.projects {
		// A service still being built is not listed; it has no session.
		if p.svc != nil {
			out = append(out, p.svc)
		}
	}
	return out
}

// close closes every session service; services built later close at
// once.
func (s *serviceSet) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	for _, svc := range s.all() {
		svc.Close()
	}
}

// openSession returns the open session with id and its service.
func (s *serviceSet) openSession(id string) (*engine.Session, *engine.Service, error) {
	err := fmt.Errorf("%w %q", engine.ErrUnknownSession, id)
	for _, svc := range s.all() {
		sess, serr := svc.Session(id)
		if serr == nil {
			return sess, svc, nil
		}
		err = serr
	}
	return nil, nil, err
}

// codeResourceNotFound is ACP's error for a session (or other resource)
// that does not exist.
const codeResourceNotFound = -32002

// codeSessionInUse is the error of loading or resuming a session whose
// file another process (or another connection of this one) holds open
// for writing. It is ours, in JSON-RPC's server range, on both doors.
const codeSessionInUse jsonrpc2.Code = -32010

// sessionInUseData is the data of a codeSessionInUse error.
type sessionInUseData struct {
	SessionID string `json:"sessionId"`
	// PID is the process holding the session; omitted when unknown.
	PID int `json:"pid,omitempty"`
	// Command is that process's command line, when known.
	Command string `json:"command,omitempty"`
	// Path is the session file.
	Path string `json:"path"`
}

// sessionError is the error for a request naming a session it cannot use:
// on the ACP door, an unknown session is ACP's -32002 "resource not found"
// with data.sessionId; on the LSP door (where -32002 means "server not
// initialized") it is invalid params. A session held by another process
// is codeSessionInUse on both. Other failures are invalid params.
func (c *core) sessionError(method, id string, err error) error {
	var inUse *session.InUseError
	if errors.As(err, &inUse) {
		holder := "another process"
		switch {
		case inUse.PID == os.Getpid():
			holder = fmt.Sprintf("another connection of this agent-lsp process (pid %d)", inUse.PID)
		case inUse.PID != 0 && inUse.Command != "":
			holder = fmt.Sprintf("process %d (%s)", inUse.PID, inUse.Command)
		case inUse.PID != 0:
			holder = fmt.Sprintf("process %d", inUse.PID)
		}
		data, _ := json.Marshal(sessionInUseData{SessionID: id, PID: inUse.PID, Command: inUse.Command, Path: inUse.Path})
		return &jsonrpc2.Error{
			Code:    codeSessionInUse,
			Message: fmt.Sprintf("session %s is open in %s; close it there (or end that process) and try again", id, holder),
			Data:    data,
		}
	}
	if c.codes.unknownSessionNotFound && errors.Is(err, engine.ErrUnknownSession) {
		data, _ := json.Marshal(map[string]string{"sessionId": id})
		return &jsonrpc2.Error{Code: codeResourceNotFound, Message: err.Error(), Data: data}
	}
	return rpc.InvalidParams("%s: %v", method, err)
}
