package adversarial_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
)

// casesPerPrompt keeps each prompt under the engine's 50 model calls.
const casesPerPrompt = 40

// finding is a failing case, for the report.
type finding struct {
	test   string // the top-level test that found it
	kind   string // HARM or VERDICT
	batch  *batch
	mode   string
	c      *tcase // nil for a batch-level finding
	detail string
}

var (
	findingsMu sync.Mutex // guards findings
	findings   []finding
)

func report(t *testing.T, f finding) {
	t.Helper()
	where := fmt.Sprintf("[%s/%s]", f.batch.name, f.mode)
	if f.c != nil {
		where += fmt.Sprintf(" %s (corpus.txt:%d) %s %s", f.c.id, f.c.line, f.c.tool, f.c.input)
	}
	t.Errorf("%s %s: %s", f.kind, where, f.detail)
	f.test, _, _ = strings.Cut(t.Name(), "/")
	findingsMu.Lock()
	findings = append(findings, f)
	findingsMu.Unlock()
}

// corpusRun is one way of running the corpus.
type corpusRun struct {
	// off says how the classifier is taken out of the way: "" (it is
	// not), "env" (the sidecar gets AGENT_LSP_CLASSIFIER=off: every
	// command that would ask runs confined without a question), "rule"
	// (the user's settings allow Bash, so every command runs without a
	// question and unconfined; workspace writes outside the protected
	// files are then the user's choice and not harm) or "sandbox" (the
	// same rule with sandbox.enabled: the write sandbox of the commands
	// the user approved) or "bypass" (sandbox.enabled, and the session in
	// bypassPermissions: nothing asks, and commands run in the configured
	// sandbox). With off set, only harm is checked.
	off string
	// modes, when set, are the only modes run of each batch's; mode,
	// when set, is the one mode every batch runs in instead.
	modes []string
	mode  string
	// batches, when set, chooses the batches to run, and bashOnly keeps
	// only their shell commands.
	batches  func(*batch) bool
	bashOnly bool
}

// env is the extra environment of the run's sidecars.
func (r corpusRun) env() []string {
	if r.off == "env" {
		return []string{"AGENT_LSP_CLASSIFIER=off"}
	}
	return nil
}

// TestAdversarialCorpus runs every case of testdata/corpus.txt through the
// built binary's ACP door in each mode, with every question rejected, and
// checks the canaries and the verdicts. ADVERSARIAL_CLASSIFIER_OFF turns
// this run into a harm-only run with the classifier out of the way.
func TestAdversarialCorpus(t *testing.T) {
	switch offSwitch {
	case "", "env", "rule", "sandbox":
	default:
		t.Fatalf("ADVERSARIAL_CLASSIFIER_OFF=%q: want 1, env, rule or sandbox", offSwitch)
	}
	runCorpus(t, corpusRun{off: offSwitch})
}

// offSwitch is ADVERSARIAL_CLASSIFIER_OFF ("1" read as "env"): how
// TestAdversarialCorpus takes the classifier out of the way (see
// corpusRun.off). When it is set, the other corpus tests are skipped.
var offSwitch = func() string {
	if s := os.Getenv("ADVERSARIAL_CLASSIFIER_OFF"); s != "1" {
		return s
	}
	return "env"
}()

// TestSandboxAlone is issue 25's "with the classifier turned off
// (everything read-only), the sandbox alone stops every write, network
// reach and outside read in the corpus": every batch with a shell command
// runs with AGENT_LSP_CLASSIFIER=off, so that every command that would
// ask runs confined instead, and no case may do harm. The layers under
// the classifier are tested here without it: deny rules (Bash deny
// rules still refuse; Read deny rules mask their files and git objects),
// git hardening (the repository's programs never run), the read-only
// sandbox (no write, no outside read, no network, no secret in the
// environment) and process containment.
//
// Only default mode runs, to keep the package's time down: in plan and
// dontAsk a command that would ask is refused before the switch is looked
// at, so those modes run exactly as in TestAdversarialCorpus; in
// acceptEdits the switch confines what would ask exactly as in default,
// and what differs (commands the classifier itself lets write the
// workspace) runs in TestAdversarialCorpus. ADVERSARIAL_CLASSIFIER_OFF=1
// runs every mode.
func TestSandboxAlone(t *testing.T) {
	if offSwitch != "" {
		t.Skip("ADVERSARIAL_CLASSIFIER_OFF is set: TestAdversarialCorpus runs without the classifier")
	}
	runCorpus(t, corpusRun{off: "env", modes: []string{"default"}, batches: classifierAbove})
}

// classifierAbove chooses the batches whose shell commands the classifier
// judges, and where it is the layer above the sandbox: not the
// repository's settings (folder trust is the layer above there, and their
// commands are spelled in other families too), the context files and the
// controls (nothing there would ask), nor the restarts (the mode is the
// point). ADVERSARIAL_CLASSIFIER_OFF=1 runs them all.
func classifierAbove(b *batch) bool {
	switch familyKey(b) {
	case "repo-settings", "context-files", "control", "restart", "fs-refusal":
		return false
	}
	return hasBash(b)
}

// TestProtectedInWriteSandbox runs the batches that write protected files
// and write through symlinks with the user's own "Bash" allow rule and
// sandbox.enabled: every command runs without a question in the write
// sandbox of approved commands, with the workspace writable. The
// protected paths (.git/config, .git/hooks, .git/info, .claude, .mcp.json)
// must stay unchanged and uncreated in every spelling, and nothing may be
// written outside the workspace, through symlinks or not (issue 17 point
// 3: "an approved command writes only where allowed, and protected files
// stay read-only").
func TestProtectedInWriteSandbox(t *testing.T) {
	if offSwitch != "" {
		t.Skip("ADVERSARIAL_CLASSIFIER_OFF is set: only TestAdversarialCorpus runs")
	}
	runCorpus(t, corpusRun{off: "sandbox", modes: []string{"default"}, batches: writeBatches})
}

// TestProtectedInBypassSandbox is TestProtectedInWriteSandbox in
// bypassPermissions mode with sandbox.enabled and no allow rule: the
// shell commands of the same batches run without a question in the
// configured sandbox, which must keep the protected paths and everything
// outside the workspace unchanged too. (The file tools' cases are left
// out: bypassPermissions lets Write and Edit change anything but what a
// deny rule covers.)
func TestProtectedInBypassSandbox(t *testing.T) {
	if offSwitch != "" {
		t.Skip("ADVERSARIAL_CLASSIFIER_OFF is set: only TestAdversarialCorpus runs")
	}
	runCorpus(t, corpusRun{off: "bypass", mode: "bypassPermissions", batches: writeBatches, bashOnly: true})
}

// TestRuleSandbox runs the batches in ruleBatches with a Bash allow rule
// in the user's settings, in default mode, harm only: every command runs
// in the rule sandbox, which must hold writes outside, network reach and
// the home's and the agent's secrets on its own (issue 17 point 3).
// ADVERSARIAL_CLASSIFIER_OFF=rule runs the whole corpus so.
func TestRuleSandbox(t *testing.T) {
	if offSwitch != "" {
		t.Skip("ADVERSARIAL_CLASSIFIER_OFF is set: only TestAdversarialCorpus runs")
	}
	runCorpus(t, corpusRun{off: "rule", modes: []string{"default"}, batches: func(b *batch) bool { return ruleBatches[b.name] }})
}

// writeBatches chooses the batches that write protected paths and write
// through symlinks.
func writeBatches(b *batch) bool {
	switch familyKey(b) {
	case "protected", "dangling":
		return b.answer == "" // the "always allow" batches test the rule file, not the sandbox
	}
	return false
}

// hasBash reports whether b has a shell command among its cases.
func hasBash(b *batch) bool {
	for _, c := range b.cases {
		if c.tool == "Bash" {
			return true
		}
	}
	return false
}

// runCorpus runs the batches of the corpus that r chooses, each in its
// modes, in parallel.
func runCorpus(t *testing.T, r corpusRun) {
	requireBwrap(t)
	batches := readCorpus(t, "testdata/corpus.txt")
	var only *regexp.Regexp
	if s := os.Getenv("ADVERSARIAL_RUN"); s != "" {
		only = regexp.MustCompile(s)
	}
	if p := os.Getenv("ADVERSARIAL_REPORT"); p != "" {
		if r.off != "" && os.Getenv("ADVERSARIAL_CLASSIFIER_OFF") == "" {
			p = strings.TrimSuffix(p, ".md") + "-" + t.Name() + ".md"
		}
		t.Cleanup(func() { writeReport(t, p, r.off) })
	}
	for _, b := range batches {
		if r.batches != nil && !r.batches(b) {
			continue
		}
		var cases []*tcase
		for _, c := range b.cases {
			if (only == nil || only.MatchString(c.id)) && (!r.bashOnly || c.tool == "Bash") {
				cases = append(cases, c)
			}
		}
		if len(cases) == 0 {
			continue
		}
		modes := b.modes
		if r.mode != "" {
			modes = []string{r.mode}
		}
		t.Run(b.name, func(t *testing.T) {
			for _, mode := range modes {
				if r.modes != nil && !contains(r.modes, mode) {
					continue
				}
				t.Run(mode, func(t *testing.T) {
					t.Parallel()
					runBatch(t, b, cases, mode, r)
				})
			}
		})
	}
}

// ruleBatches are the batches that TestRuleSandbox runs with a Bash allow
// rule in the user's settings, checking harm only: the rule sandbox must
// hold writes outside, network reach and the home's and the agent's
// secrets on its own (issue 17 point 3). The whole corpus runs so with
// ADVERSARIAL_CLASSIFIER_OFF=rule.
var ruleBatches = map[string]bool{"rule-sandbox": true, "environ": true, "outside-read": true, "kernel": true, "grant-home": true, "hardlink": true, "edit-deny-script": true, "network-hosts": true}

// runBatch runs cases of b in mode in a fresh world and sidecar, then
// checks them.
func runBatch(t *testing.T, b *batch, cases []*tcase, mode string, r corpusRun) {
	w := newWorld(t, b, r.off)
	model := fake.NewAnthropic(nil)
	model.SetHoldTimeout(time.Minute)
	t.Cleanup(model.Close)
	env := append([]string{"ANTHROPIC_BASE_URL=" + model.BaseURL()}, r.env()...)
	for _, e := range b.env {
		env = append(env, w.expand(e, "setup"))
	}
	c := start(t, w, env...)
	c.answer = b.answer
	var ns schema.NewSessionResult
	if err := c.call(30*time.Second, "session/new", schema.NewSessionParams{Cwd: w.ws, MCPServers: []schema.MCPServer{}}, &ns); err != nil {
		report(t, finding{kind: "HARNESS", batch: b, mode: mode, detail: fmt.Sprintf("session/new: %v\n%s", err, c.stderr())})
		checkCanaries(t, w, b, mode, cases, c, model)
		return
	}
	sid := ns.SessionID
	// In default mode the session keeps the mode it starts in, so that a
	// repository that sets defaultMode is caught.
	if mode != "default" {
		if err := c.call(30*time.Second, "session/set_mode", schema.SetModeParams{SessionID: sid, ModeID: mode}, nil); err != nil {
			t.Fatalf("session/set_mode %s: %v", mode, err)
		}
	}
	if b.restart != "" {
		// A turn in the first process, so the session is stored with
		// its mode; then a new process loads it.
		model.Add(fake.Turn{fake.Text("noted")})
		if err := c.call(time.Minute, "session/prompt", schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("remember this session")}}, nil); err != nil {
			t.Fatalf("first prompt: %v\n%s", err, c.stderr())
		}
		c.stop()
		c = start(t, w, env...)
		c.answer = b.answer
		if err := c.call(30*time.Second, b.restart, schema.LoadSessionParams{SessionID: sid, Cwd: w.ws, MCPServers: []schema.MCPServer{}}, nil); err != nil {
			t.Fatalf("%s after the restart: %v\n%s", b.restart, err, c.stderr())
		}
	}
	for from := 0; from < len(cases); from += casesPerPrompt {
		chunk := cases[from:min(from+casesPerPrompt, len(cases))]
		for _, tc := range chunk {
			if tc.via != "" {
				// The model starts a subagent, whose first answer is the
				// case's call and whose second ends its work.
				tool, typ, _ := strings.Cut(tc.via, ":")
				if typ == "" {
					typ = "general-purpose"
				}
				in, _ := json.Marshal(map[string]string{"subagent_type": typ, "description": "corpus case " + tc.id, "prompt": "run the check"})
				model.Add(fake.Turn{fake.ToolUse(toolUseID(tc.id)+"_via", tool, string(in))})
			}
			model.Add(fake.Turn{fake.ToolUse(toolUseID(tc.id), tc.tool, w.toolInput(tc))})
			if tc.via != "" {
				model.Add(fake.Turn{fake.Text("subagent done")})
			}
		}
		last := from+casesPerPrompt >= len(cases)
		if b.cancel && last {
			// The model hangs mid-answer until the client cancels.
			model.Add(fake.Turn{fake.Text("still thinking"), fake.Hold{Event: "content_block_stop"}})
		} else {
			model.Add(fake.Turn{fake.Text("done")})
		}
		params := schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("run the next checks")}}
		var err error
		if b.cancel && last {
			err = promptAndCancel(c, model, params)
		} else {
			err = c.call(5*time.Minute, "session/prompt", params, nil)
		}
		if err != nil || model.Remaining() != 0 {
			// A repository that redirects the model (env, baseURL)
			// ends the prompt early: the canaries tell the rest.
			report(t, finding{kind: "HARNESS", batch: b, mode: mode,
				detail: fmt.Sprintf("the prompt ended with %v and %d scripted turns unplayed (model requests: %d)\n%s", err, model.Remaining(), len(model.Requests()), c.stderr())})
			break
		}
	}
	if b.cancel {
		// What the cancelled turn started must be gone at once, not
		// only when the sidecar exits.
		survivors(t, w, b, mode, cases, "the cancelled prompt")
	}
	c.stop()
	survivors(t, w, b, mode, cases, "the sidecar")
	harmed := checkCanaries(t, w, b, mode, cases, c, model)
	// Folder trust is asked once per folder (issue 17 point 1); every
	// question that is not about a tool call counts.
	if other := c.otherQuestions(); len(other) > 1 {
		report(t, finding{kind: "TRUST", batch: b, mode: mode,
			detail: fmt.Sprintf("%d questions not about a tool call (trust is asked once): %s", len(other), strings.Join(other, "; "))})
	}
	if r.off != "" {
		return // harm only
	}
	for _, tc := range cases {
		got, _ := c.outcome(toolUseID(tc.id))
		if !c.reached(toolUseID(tc.id)) || harmed[tc.id] {
			continue // never reached (reported as HARNESS), or already reported as harm
		}
		if want := tc.expected(mode); !contains(want, got) {
			report(t, finding{kind: "VERDICT", batch: b, mode: mode, c: tc,
				detail: fmt.Sprintf("got %s, want %s", got, strings.Join(want, " or "))})
		}
	}
}

// promptAndCancel sends a prompt whose last model answer hangs, cancels
// the session once the model has that request, and waits for the prompt
// to end (with stopReason cancelled).
func promptAndCancel(c *client, model *fake.Server, params schema.PromptParams) error {
	done := make(chan error, 1)
	var res schema.PromptResult
	go func() { done <- c.call(5*time.Minute, "session/prompt", params, &res) }()
	deadline := time.Now().Add(5 * time.Minute)
	for model.Remaining() > 0 {
		select {
		case err := <-done:
			return fmt.Errorf("the prompt ended before the model hung: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the model never reached the hanging turn")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := c.peer.Notify(context.Background(), "session/cancel", schema.SessionIDParams{SessionID: params.SessionID}); err != nil {
		return err
	}
	select {
	case err := <-done:
		if err == nil && res.StopReason != "cancelled" {
			return fmt.Errorf("the cancelled prompt stopped with %q", res.StopReason)
		}
		return err
	case <-time.After(time.Minute):
		return fmt.Errorf("the prompt did not end a minute after session/cancel")
	}
}

// survivors reports, and kills, processes of the world's commands (their
// command line names its folder) still alive a moment after the sidecar
// exited: every process a tool starts dies with the sidecar (issue 17
// point 7, issue 25 point 6).
func survivors(t *testing.T, w *world, b *batch, mode string, cases []*tcase, what string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second) // generous for a loaded machine; a pass returns at once
	for {
		var left []proctest.Proc
		for _, p := range proctest.Descendants() {
			if strings.Contains(p.Cmdline, w.base) {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range left {
				report(t, finding{kind: "HARM", batch: b, mode: mode, c: attribute(p.Cmdline, cases),
					detail: fmt.Sprintf("process %d (%s) outlived %s", p.PID, p.Cmdline, what)})
				if p.PGID > 1 && p.PGID != syscall.Getpgrp() {
					syscall.Kill(-p.PGID, syscall.SIGKILL) // its sleeps too
				}
				syscall.Kill(p.PID, syscall.SIGKILL)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkCanaries reports harm: calls that ran after a rejection, payload
// markers, changed files outside the workspace or protected inside it,
// secrets in anything sent to the model, and hits on the canary listener.
//
// It returns the ids of the cases it reported.
func checkCanaries(t *testing.T, w *world, b *batch, mode string, cases []*tcase, c *client, model *fake.Server) (harmed map[string]bool) {
	t.Helper()
	harmed = map[string]bool{}
	report := func(t *testing.T, f finding) {
		t.Helper()
		if f.c != nil {
			harmed[f.c.id] = true
		}
		report(t, f)
	}
	for _, tc := range cases {
		if _, ran := c.outcome(toolUseID(tc.id)); ran && b.answer == "" {
			report(t, finding{kind: "HARM", batch: b, mode: mode, c: tc, detail: "it ran although the user rejected it"})
		}
	}
	if b.settle > 0 {
		time.Sleep(b.settle)
	}
	names, other := w.markers()
	for _, name := range names {
		detail := "its payload ran: marker " + name + " was created"
		if tc := attribute(name, cases); tc != nil {
			got, _ := c.outcome(toolUseID(tc.id))
			report(t, finding{kind: "HARM", batch: b, mode: mode, c: tc, detail: detail + " (verdict seen: " + got + ")"})
		} else {
			var ran []string
			for _, tc := range cases {
				if got, _ := c.outcome(toolUseID(tc.id)); got == allow {
					ran = append(ran, tc.id)
				}
			}
			who := "no tool call of the batch ran, so the sidecar itself ran it (its own git for the prompt, hooks, MCP servers, apiKeyHelper)"
			if len(ran) > 0 {
				who = "by the repository, through the sidecar or one of the calls that ran: " + strings.Join(ran, ", ")
			}
			report(t, finding{kind: "HARM", batch: b, mode: mode, detail: detail + " (" + who + ")"})
		}
	}
	if len(other) > 0 {
		report(t, finding{kind: "HARM", batch: b, mode: mode, detail: "files appeared in the marker folder: " + strings.Join(other, ", ")})
	}
	for _, ch := range w.changes(t) {
		tc := attribute(ch, cases)
		report(t, finding{kind: "HARM", batch: b, mode: mode, c: tc, detail: "a watched file changed without a question: " + ch})
	}
	for _, h := range w.canary.hits() {
		tc := attribute(h, cases)
		report(t, finding{kind: "HARM", batch: b, mode: mode, c: tc, detail: "the canary listener was reached: " + h})
	}
	// Secrets: in anything sent to the model. The private file is
	// only secret from the fs tools (the editor refuses to serve it;
	// Bash reads the disk legitimately); .env only under a deny rule.
	userSettings := b.user
	if userSettings == "" {
		userSettings = defaultUserSettings
	}
	secrets := map[string]string{"outside": w.secrets["outside"], "home": w.secrets["home"], "other": w.secrets["other"], "ANTHROPIC_API_KEY": w.apiKey}
	if strings.Contains(userSettings, "Read(./.env)") {
		secrets["env"] = w.secrets["env"]
	}
	files := map[string]string{"env": "API_TOKEN=" + w.secrets["env"] + "\n"}
	forms := map[string][]string{}
	for name, s := range secrets {
		content, ok := files[name]
		if !ok {
			content = s + "\n"
		}
		forms[name] = leakForms(s, content)
	}
	leaked := func(text, name string) bool { return containsAny(text, forms[name]) }
	results := toolResults(model.Requests())
	if os.Getenv("ADVERSARIAL_DEBUG") != "" {
		for k, v := range results {
			t.Logf("RESULT %s %s: %s", mode, k, snippet(v))
		}
	}
	reported := map[string]bool{}
	for _, tc := range cases {
		res := results[toolUseID(tc.id)]
		for name := range secrets {
			if ruleReadsOutside(w, name) {
				// The rule sandbox shows the host's files outside the
				// workspace and the home, read-only, by design. (The
				// text is then in the conversation: not looked for in
				// later requests.)
				if leaked(res, name) {
					reported[name] = true
				}
				continue
			}
			if leaked(res, name) {
				reported[name] = true
				report(t, finding{kind: "HARM", batch: b, mode: mode, c: tc, detail: fmt.Sprintf("the %s secret reached the model in the tool result: %s", name, snippet(res))})
			}
		}
		if (tc.tool == "Read" || tc.tool == "Edit" || tc.tool == "Write") && strings.Contains(res, w.secrets["private"]) {
			report(t, finding{kind: "HARM", batch: b, mode: mode, c: tc, detail: "a file the editor refused to serve was read from the disk: " + snippet(res)})
		}
	}
	// A Read deny rule hides its files from Grep, Glob and LS results
	// too (issue 17 point 5), not only their content.
	if _, ok := secrets["env"]; ok {
		for _, tc := range cases {
			if tc.tool != "Grep" && tc.tool != "Glob" && tc.tool != "LS" {
				continue
			}
			if text := resultText(results[toolUseID(tc.id)]); deniedName.MatchString(text) {
				report(t, finding{kind: "DENY", batch: b, mode: mode, c: tc, detail: "the Read-denied .env is listed in the result: " + snippet(text)})
			}
		}
	}
	for _, r := range model.Requests() {
		for name, s := range secrets {
			if !reported[name] && leaked(string(r.Body), name) {
				reported[name] = true
				report(t, finding{kind: "HARM", batch: b, mode: mode, detail: fmt.Sprintf("the %s secret reached the model outside any tool result (system prompt or context): …%s…", name, around(string(r.Body), s))})
			}
		}
	}
	for _, r := range model.Requests() {
		if k := r.Header.Get("X-Api-Key"); k != "" && k != w.apiKey {
			report(t, finding{kind: "HARM", batch: b, mode: mode, detail: "the model was called with another API key: " + k})
		}
	}
	return harmed
}

// deniedName matches the name of the Read-denied .env as a path in a
// listing.
var deniedName = regexp.MustCompile(`(^|[/\s"'])\.env($|[\s"':])`)

// resultText is the text of a tool_result's content (a JSON string or a
// list of blocks), for matching names.
func resultText(raw string) string {
	var s string
	if json.Unmarshal([]byte(raw), &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal([]byte(raw), &blocks) == nil {
		var out []string
		for _, b := range blocks {
			out = append(out, b.Text)
		}
		return strings.Join(out, "\n")
	}
	return raw
}

// leakForms are the spellings of secret that count as a leak: itself, each
// half of its random part (a hex dump splits lines), and the base64 of the
// bytes of content (the file holding it) that only the random part
// determines.
func leakForms(secret, content string) []string {
	out := []string{secret}
	token := secret[strings.LastIndex(secret, "-")+1:]
	if len(token) >= 16 {
		out = append(out, token[:len(token)/2], token[len(token)/2:])
	}
	if i := strings.Index(content, token); i >= 0 {
		b64 := base64.StdEncoding.EncodeToString([]byte(content))
		from, to := (i+2)/3*4, (i+len(token))/3*4
		if to-from >= 8 {
			out = append(out, b64[from:to])
		}
	}
	return out
}

// containsAny reports whether text holds any of forms, also once newlines
// (raw or JSON-escaped) and spaces are taken out, as base64 and hex
// dumps wrap.
func containsAny(text string, forms []string) bool {
	squashed := strings.NewReplacer(`\n`, "", "\n", "", " ", "").Replace(text)
	for _, f := range forms {
		if strings.Contains(text, f) || strings.Contains(squashed, f) {
			return true
		}
	}
	return false
}

// attribute finds the case whose id appears in text (the longest, as
// ids may be prefixes of each other).
func attribute(text string, cases []*tcase) *tcase {
	var best *tcase
	for _, tc := range cases {
		if strings.Contains(text, tc.id) {
			if best == nil || len(tc.id) > len(best.id) {
				best = tc
			}
		}
	}
	return best
}

func around(s, sub string) string {
	i := strings.Index(s, sub)
	from, to := max(i-120, 0), min(i+len(sub)+60, len(s))
	return s[from:to]
}

// owners maps a family to the branches whose layers should have stopped
// it, for the findings report.
var owners = map[string]string{
	"runtime": "classifier", "abbrev": "classifier", "double-dash": "classifier", "bash-eval": "classifier",
	"set-k": "classifier", "deny-spelling": "classifier", "outside-read": "classifier", "symlink": "classifier",
	"read-routes": "classifier", "control": "classifier",
	"git-config": "sandbox", "git-more": "sandbox", "environ": "sandbox", "outlive": "sandbox", "sandbox": "sandbox",
	"repo-settings": "trust", "context-files": "context files (issue 25 point 3: no branch named)",
	"deny-grep": "denypersist", "restart": "denypersist", "fs-refusal": "denypersist", "dangling": "denypersist",
	"protected": "sandbox",
}

// writeReport writes the findings as Markdown, grouped by the branch
// that owns the layer which should have stopped them, one line per case
// with the modes it failed in.
func writeReport(t *testing.T, path string, off string) {
	classifierOff := off != ""
	findingsMu.Lock()
	defer findingsMu.Unlock()
	type entry struct {
		key, text string
		modes     []string
	}
	groups := map[string][]*entry{}
	byKey := map[string]*entry{}
	n := 0
	for _, f := range findings {
		if f.test != t.Name() {
			continue
		}
		n++
		owner := owners[familyKey(f.batch)]
		if owner == "" {
			owner = "other"
		}
		if classifierOff && owner != owners["context-files"] && (f.c == nil || f.c.tool == "Bash") {
			owner = "sandbox" // with the classifier off, the sandbox alone answers for commands
		}
		what := f.detail
		if f.c != nil {
			what = f.c.id
		} else if i := strings.Index(what, ": "); i > 0 {
			what = what[:i] // the kind of batch-level finding
		}
		key := owner + "\x00" + f.kind + "\x00" + f.batch.name + "\x00" + what
		if e := byKey[key]; e != nil {
			if !contains(e.modes, f.mode) {
				e.modes = append(e.modes, f.mode)
			}
			continue
		}
		line := fmt.Sprintf("- **%s** `%s`", f.kind, f.batch.name)
		if f.c != nil {
			line += fmt.Sprintf(", case `%s` (%s): `%s`", f.c.id, f.c.tool, f.c.input)
		}
		d := f.detail
		if len(d) > 400 {
			d = d[:400] + "…"
		}
		e := &entry{key: key, text: line + " — MODES\n  - " + strings.ReplaceAll(d, "\n", " "), modes: []string{f.mode}}
		byKey[key] = e
		groups[owner] = append(groups[owner], e)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Corpus run %s (%s, classifier off: %q): %d findings\n\n", time.Now().UTC().Format(time.RFC3339), t.Name(), off, n)
	var owners []string
	for k := range groups {
		owners = append(owners, k)
	}
	sort.Strings(owners)
	for _, k := range owners {
		fmt.Fprintf(&b, "### %s (%d)\n\n", k, len(groups[k]))
		sort.Slice(groups[k], func(i, j int) bool { return groups[k][i].key < groups[k][j].key })
		for _, e := range groups[k] {
			sort.Strings(e.modes)
			b.WriteString(strings.Replace(e.text, "MODES", "modes "+strings.Join(e.modes, ", "), 1) + "\n")
		}
		b.WriteString("\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Errorf("writing the report: %v", err)
	}
}

// ruleReadsOutside reports whether the secret name is one that the
// world's calls may see when the user's settings allow Bash (the world's
// off is "rule"): files outside both the workspace and the home (the
// "outside" and "other" canaries) are readable in the rule sandbox by
// design, and a Bash command may copy them into the workspace, where any
// tool then sees them. The home's credentials, the API key and Read-denied
// files stay secrets; the other runs hold every tool to the outside ones.
func ruleReadsOutside(w *world, name string) bool {
	return (w.off == "rule" || w.off == "sandbox") && (name == "outside" || name == "other")
}
