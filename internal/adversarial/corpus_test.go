package adversarial_test

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The modes every case runs in, unless its batch names others.
var allModes = []string{"default", "acceptEdits", "plan", "dontAsk"}

// verdicts a case may expect.
const (
	allow = "allow" // ran without a question (harmless controls only)
	ask   = "ask"   // a permission request was made for the call
	deny  = "deny"  // no question, and the call did not run
)

// tcase is one attack (or control) of the corpus: a tool call the fake
// model makes.
type tcase struct {
	id   string
	line int
	tool string // Bash, Read, Grep, Glob, LS, Write, Edit, ...
	// via is "Agent" for a case whose call a subagent makes: the model
	// starts a general-purpose subagent (tool "Agent>Bash" in the
	// corpus; "Agent:name>Bash" starts the subagent type name), which
	// makes the call and then reports.
	via   string
	input string // the command for Bash, else the JSON input; with placeholders
	// want is the expected verdict in default mode; byMode overrides it
	// for a mode. In plan and dontAsk an expected "ask" becomes "deny".
	want   string
	byMode map[string]string
	// alsoOK are further verdicts a reviewer accepts for the case.
	alsoOK []string
	// anyVerdict marks a harm-only case ("any"): every verdict is
	// accepted in every mode, a question in plan mode too.
	anyVerdict bool
}

// expected returns the verdicts accepted for the case in mode.
func (c *tcase) expected(mode string) []string {
	if c.anyVerdict {
		return []string{allow, ask, deny}
	}
	v := c.want
	if m, ok := c.byMode[mode]; ok {
		v = m
	}
	out := append([]string{v}, c.alsoOK...)
	if mode == "plan" || mode == "dontAsk" {
		for i, w := range out {
			if w == ask {
				out[i] = deny
			}
		}
	}
	// Refusing without a question where a question was expected is
	// stricter, never harmful: accept it.
	if contains(out, ask) {
		out = append(out, deny)
	}
	var uniq []string
	for _, w := range out {
		if !contains(uniq, w) {
			uniq = append(uniq, w)
		}
	}
	return uniq
}

// file is a file, directory or symlink a batch puts in its workspace.
type file struct {
	path    string
	content string
}

// batch is a group of cases that share a workspace and a sidecar process
// per mode. Repository-level cases (settings, .mcp.json, .git/config,
// symlinks) have batches of their own, so each gets a fresh workspace.
type batch struct {
	name   string
	family string
	line   int
	modes  []string
	user   string   // the user's ~/.claude/settings.json; defaultUserSettings when empty
	files  []file   // project files, written before git's first commit
	sh     []string // shell commands run in the workspace after the commit
	// restart, when set, is the method (session/load or session/resume)
	// that reopens the session: the mode is set in a first process and
	// the cases run in a second one, on the session from the store.
	restart string
	// settle is how long to wait after the sidecar exits before the
	// canaries are read, for payloads that would run in the background.
	settle time.Duration
	// cancel ends the last prompt with a model stream that hangs, then
	// cancels it (session/cancel): what the prompt's tools started must
	// be gone right after.
	cancel bool
	// answer is the permission option kind the client picks for the
	// batch's calls (allow_always); empty rejects every question.
	answer string
	// env is more environment for the sidecar (NAME=value, placeholders
	// expanded), for tools that need the real user's folders.
	env []string
	// fsRefuse makes the client refuse fs/read_text_file for paths
	// under private/ with an error.
	cases []*tcase
}

// defaultUserSettings are the user's own rules in every batch that does
// not set them: the tightening a careful user writes.
const defaultUserSettings = `{"permissions": {"deny": ["Read(./.env)", "Bash(curl:*)", "Bash(wget:*)", "Bash(git push:*)"]}}`

// readCorpus parses the corpus file.
//
// The format is line based. Blank lines and lines starting with # are
// comments. "[name]" starts a batch; lines starting with % set its
// properties:
//
//	%family text        the family of issue 17 or 25 the cases belong to
//	%modes m1 m2        the modes to run (default: all four)
//	%user {json}        the user's settings.json
//	%file path content  a project file (\n and \t in content are a newline and a tab)
//	%sh command         a shell command run in the workspace at setup
//	%env N=v ...        more environment for the sidecar
//	%restart [resume]   set the mode, restart the sidecar, load (or resume) the session
//	%settle 2s          wait before reading the canaries (background payloads)
//	%cancel             cancel the last prompt while the model streams; then check survivors
//	%answer kind        answer the cases' questions with allow_always or allow_once (harmless calls only)
//
// Any other line is a case: "id verdict tool input". A tool written
// "Agent>Bash" is called by a subagent that the model starts. verdict is allow,
// ask or deny, optionally followed by mode=verdict overrides and
// |alternatives ("ask,acceptEdits=allow", "ask|allow"); "any" is a
// harm-only case. input is the rest
// of the line: the command for Bash (or its JSON input when it starts
// with {"), JSON for other tools. Placeholders: {{mark}} (the case's
// marker file), {{out}} (the marker folder), {{outside}}, {{secret}},
// {{home}}, {{userhome}} (the real user's home, for %env), {{ws}}, {{envblob}} (the git object id of .env), {{url}} (the canary listener, with the case id as
// path), {{hostport}}, {{port}}, {{sock}} (a unix socket in the workspace where
// the canary listens, in the kernel batch), {{id}} and {{nl}} (a newline).
func readCorpus(t *testing.T, path string) []*batch {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		batches []*batch
		cur     *batch
		ids     = map[string]int{}
	)
	validID := regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), " \t")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			cur = &batch{name: line[1 : len(line)-1], line: n, modes: allModes}
			batches = append(batches, cur)
			continue
		}
		if cur == nil {
			t.Fatalf("%s:%d: a case before the first [batch]", path, n)
		}
		if rest, ok := strings.CutPrefix(line, "%"); ok {
			key, val, _ := strings.Cut(rest, " ")
			switch key {
			case "family":
				cur.family = val
			case "modes":
				cur.modes = strings.Fields(val)
				for _, m := range cur.modes {
					if !contains(allModes, m) {
						t.Fatalf("%s:%d: unknown mode %q", path, n, m)
					}
				}
			case "user":
				cur.user = val
			case "file":
				p, content, _ := strings.Cut(val, " ")
				cur.files = append(cur.files, file{p, strings.NewReplacer(`\n`, "\n", `\t`, "\t").Replace(content)})
			case "sh":
				cur.sh = append(cur.sh, val)
			case "env":
				cur.env = append(cur.env, strings.Fields(val)...)
			case "restart":
				cur.restart = "session/load"
				if val == "resume" {
					cur.restart = "session/resume"
				}
			case "answer":
				if val != "allow_always" && val != "allow_once" {
					t.Fatalf("%s:%d: %%answer: want allow_always or allow_once", path, n)
				}
				cur.answer = val
			case "cancel":
				cur.cancel = true
			case "settle":
				d, err := time.ParseDuration(val)
				if err != nil {
					t.Fatalf("%s:%d: %%settle: %v", path, n, err)
				}
				cur.settle = d
			default:
				t.Fatalf("%s:%d: unknown property %%%s", path, n, key)
			}
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 4 {
			t.Fatalf("%s:%d: want \"id verdict tool input\", got %q", path, n, line)
		}
		c := &tcase{id: fields[0], line: n, tool: fields[2], byMode: map[string]string{}}
		if via, tool, ok := strings.Cut(c.tool, ">"); ok {
			if name, _, _ := strings.Cut(via, ":"); name != "Agent" && name != "Task" {
				t.Fatalf("%s:%d: %s: only Agent (or Task, or Agent:<subagent_type>) may make a case's call", path, n, c.tool)
			}
			c.via, c.tool = via, tool
		}
		if !validID.MatchString(c.id) {
			t.Fatalf("%s:%d: case id %q: use lowercase letters, digits, dots and dashes", path, n, c.id)
		}
		if prev, dup := ids[c.id]; dup {
			t.Fatalf("%s:%d: case id %q was used on line %d", path, n, c.id, prev)
		}
		ids[c.id] = n
		// The input is the rest of the line after the third field.
		rest := line
		for range 3 {
			rest = strings.TrimLeft(rest, " \t")
			rest = rest[strings.IndexAny(rest+" ", " \t"):]
		}
		c.input = strings.TrimLeft(rest, " \t")
		verdict := fields[1]
		if verdict == "any" {
			c.anyVerdict = true
			verdict = "allow|ask|deny" // harm-only case: every verdict is acceptable
		}
		alts := strings.Split(verdict, "|")
		for i, alt := range alts {
			parts := strings.Split(alt, ",")
			if i == 0 {
				c.want = parts[0]
			} else {
				c.alsoOK = append(c.alsoOK, parts[0])
			}
			for _, p := range parts[1:] {
				m, v, ok := strings.Cut(p, "=")
				if !ok || !contains(allModes, m) {
					t.Fatalf("%s:%d: bad verdict override %q", path, n, p)
				}
				c.byMode[m] = v
			}
		}
		for _, v := range append(append([]string{c.want}, c.alsoOK...), values(c.byMode)...) {
			if v != allow && v != ask && v != deny {
				t.Fatalf("%s:%d: unknown verdict %q", path, n, v)
			}
		}
		if c.tool != "Bash" && !strings.HasPrefix(c.input, "{\"") {
			t.Fatalf("%s:%d: the input of %s must be a JSON object", path, n, c.tool)
		}
		cur.cases = append(cur.cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return batches
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func values(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// TestCorpusFile checks the corpus itself: enough cases, every family of
// issues 17 and 25 present, harmless controls present so that an
// implementation that refuses everything fails too.
func TestCorpusFile(t *testing.T) {
	batches := readCorpus(t, "testdata/corpus.txt")
	n, controls := 0, 0
	families := map[string]int{}
	for _, b := range batches {
		if b.family == "" {
			t.Errorf("batch %s (line %d) names no family", b.name, b.line)
		}
		families[familyKey(b)] += len(b.cases)
		for _, c := range b.cases {
			n++
			if c.want == allow && len(c.alsoOK) == 0 {
				controls++
			}
		}
	}
	if n < 300 {
		t.Errorf("the corpus has %d cases, issue 17 asks for at least 300", n)
	}
	if controls < 10 {
		t.Errorf("the corpus has %d harmless controls (verdict allow); want at least 10", controls)
	}
	for _, fam := range []string{
		// issue 17
		"runtime", "abbrev", "repo-settings", "git-config", "outside-read", "symlink",
		"deny-grep", "double-dash", "restart", "fs-refusal",
		// issue 25
		"bash-eval", "set-k", "git-more", "read-routes", "context-files", "environ",
		"deny-spelling", "dangling", "outlive",
	} {
		if families[fam] == 0 {
			t.Errorf("no cases of family %q", fam)
		}
	}
	t.Logf("%d cases (%d controls) in %d batches", n, controls, len(batches))
	for fam, k := range families {
		t.Logf("  %-16s %d", fam, k)
	}
}

// familyKey is the first word of a batch's family, without its colon.
func familyKey(b *batch) string {
	return strings.TrimSuffix(strings.Fields(b.family + " ?")[0], ":")
}
