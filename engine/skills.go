package engine

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Skills are Claude Code's: a folder under .claude/skills (the project's,
// then the user's ~/.claude/skills) holding a SKILL.md whose frontmatter
// names and describes it. The names and descriptions go into the system
// prompt; the Skill tool loads a skill's body when the model picks it,
// and the user may invoke one as a slash command. Files beside SKILL.md
// are read with Read: a loaded skill's folder is readable without asking
// (read-only, Read deny and ask rules still apply) even when it lies
// outside the workspace. A skill's allowed-tools narrows the tools for the
// rest of the turn, as a command's does (see restrictTools).

// maxSkills bounds the skills read from one folder.
const maxSkills = 200

// skill is one SKILL.md.
type skill struct {
	name  string
	scope string // "project" or "user"
	path  string // of SKILL.md
	meta  mdMeta
	body  string
}

func (k *skill) dir() string { return filepath.Dir(k.path) }

// skills returns the skills, project ones first; a name already taken is
// skipped.
func (s *Session) skills() []skill {
	var out []skill
	taken := map[string]bool{}
	for _, d := range s.commandDirs("skills") {
		entries, err := os.ReadDir(d.dir)
		if err != nil {
			continue
		}
		for i, e := range entries {
			if i >= maxSkills {
				break
			}
			path := filepath.Join(d.dir, e.Name(), "SKILL.md")
			if _, err := os.Stat(path); err != nil {
				continue
			}
			text, ok := s.readExtensionFile(d.dir, d.scope, path)
			if !ok {
				continue
			}
			k := skill{scope: d.scope, path: path}
			k.meta, k.body = splitMeta(text)
			k.name = k.meta.get("name")
			if k.name == "" {
				k.name = e.Name()
			}
			if taken[k.name] {
				continue
			}
			taken[k.name] = true
			out = append(out, k)
		}
	}
	return out
}

// skillsPrompt is the system prompt's list of skills, or "".
func (s *Session) skillsPrompt() string {
	list := s.skills()
	if len(list) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Skills are instructions for particular tasks. When a task matches a skill's description, load the skill with the Skill tool before doing the task, and follow it.\n\nAvailable skills:\n")
	for _, k := range list {
		if k.meta.get("disable-model-invocation") == "true" {
			continue
		}
		fmt.Fprintf(&b, "- %s: %s (%s)\n", k.name, k.meta.get("description"), k.scope)
	}
	return b.String()
}

// activateSkill makes a loaded skill's folder readable and applies its
// allowed-tools to the turn.
func (s *Session) activateSkill(ctx context.Context, k *skill) {
	dir := k.dir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	s.tools.addSkillDir(dir)
	if allowed := k.meta.list("allowed-tools"); len(allowed) > 0 {
		s.restrictTools("the skill "+k.name, append(allowed, "Skill"))
	}
}

// skillRead reports whether a Read call only reads files of loaded
// skills that no Read rule hides: such a call runs without asking.
func (s *Session) skillRead(tool string, paths []string) bool {
	if tool != "Read" || len(paths) == 0 {
		return false
	}
	// Through env: a subagent's env shares its parent's skill folders.
	var dirs []string
	if s.tools.env.ReadOnlyRoots != nil {
		dirs = s.tools.env.ReadOnlyRoots()
	}
	for _, p := range paths {
		if !slices.ContainsFunc(dirs, func(d string) bool { return tools.Within(d, p) }) || s.pipe.gate.policy.Hides("Read", p) {
			return false
		}
	}
	return true
}

//go:embed skill.md
var skillDescription string

// skillTool is the Skill tool: it loads a skill's instructions.
type skillTool struct{ s *Session }

// skillInput is the Skill tool's input.
type skillInput struct {
	Skill string `json:"skill" jsonschema:"The skill name (no arguments). E.g., \"pdf\" or \"xlsx\""`
	Args  string `json:"args,omitempty" jsonschema:"Optional arguments for the skill"`
}

var skillSchema = tools.InputSchema[skillInput](nil)

func (t *skillTool) Spec() tools.Spec {
	return tools.Spec{
		Name:        "Skill",
		Description: skillDescription,
		InputSchema: skillSchema(),
		Kind:        schema.KindRead,
		ReadOnly:    true,
		// It reads only the instructions of the skills the session
		// offers; the Read tool reaching into a skill's folder is
		// checked on its own.
		Access: tools.AccessNone,
	}
}

func (t *skillTool) Run(ctx context.Context, input json.RawMessage) *tools.Result {
	var in struct {
		skillInput
		Command string `json:"command"` // Claude Code's earlier name for skill
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return tools.Errorf("invalid input: %v", err)
	}
	name := strings.TrimPrefix(strings.TrimSpace(firstNonEmpty(in.Skill, in.Command)), "/")
	if name == "" {
		return tools.Errorf("invalid input: skill: required field is missing")
	}
	list := t.s.skills()
	i := slices.IndexFunc(list, func(k skill) bool { return k.name == name })
	if i < 0 {
		names := make([]string, len(list))
		for j, k := range list {
			names[j] = k.name
		}
		return tools.Errorf("unknown skill %q; the skills are: %s", name, strings.Join(names, ", "))
	}
	k := &list[i]
	t.s.activateSkill(ctx, k)
	body := k.body
	if in.Args != "" {
		body = substituteArgs(body, in.Args)
	}
	return &tools.Result{
		Title:     "Skill " + k.name,
		Content:   fmt.Sprintf("Base directory for this skill: %s\n\n%s", k.dir(), strings.TrimSpace(body)),
		Locations: []schema.Location{{Path: k.path}},
	}
}

// extensionChanged re-announces the commands when a command or skill file
// of the project changes, and makes the next model call see the skills
// as they are now.
func (s *Session) extensionChanged(ctx context.Context, path string) {
	for _, sub := range []string{"commands", "skills"} {
		for _, d := range s.commandDirs(sub) {
			if tools.Within(d.dir, path) {
				s.ReloadInstructions()
				s.announceCommandList(ctx)
				return
			}
		}
	}
}

// userExtensionDirs are the user's command and skill folders that exist
// and lie outside the workspace (which is watched already).
func (s *Session) userExtensionDirs() []string {
	var out []string
	for _, sub := range []string{"commands", "skills"} {
		for _, d := range s.commandDirs(sub) {
			if d.scope != "user" {
				continue
			}
			real, err := filepath.EvalSymlinks(d.dir)
			if err != nil || slices.ContainsFunc(s.tools.env.Roots, func(r string) bool { return tools.Within(r, real) }) {
				continue
			}
			out = append(out, real)
		}
	}
	return out
}
