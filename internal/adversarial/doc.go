// Package adversarial holds the end-to-end adversarial corpus of issues 17
// and 25: attack cases, kept as data in testdata/corpus.txt, that a
// prompt-injected model or a malicious repository would try. The test
// builds the real binary, serves it the ACP door (agent-lsp acp) with a
// client that answers every session/request_permission with "reject", and
// a fake model that issues each case's tool call. Canaries outside the
// workspace (secret files, a marker directory, a loopback HTTP listener,
// the sidecar's own API key, the protected files of the workspace) show
// whether anything ran, was written or leaked without a question.
//
// Cases run in batches: one workspace and one sidecar process per batch
// and mode, many cases per process (one tool call per model turn).
// Repository-level cases (settings, .mcp.json, .git/config, symlinks)
// have batches of their own. A batch can also restart the sidecar between
// setting the mode and running its cases (session/load or session/resume),
// or cancel its last prompt and check that what it started is gone.
//
// Every case has an expected verdict (allow, ask or deny) that is checked
// against what happened, in each of the modes default, acceptEdits, plan
// and dontAsk. Harm without a question fails the test as "HARM"; a verdict
// that differs from the expected one fails it as "VERDICT"; a Read-denied
// file listed by Grep, Glob or LS as "DENY"; a folder asked about more
// than once as "TRUST"; a prompt that broke off as "HARNESS".
//
// The package has no code of its own beyond this comment; run its tests
// with
//
//	go test ./internal/adversarial/
//
// which runs five tests (docs/security.md says which layer each covers):
//   - TestAdversarialCorpus: every case in every mode; harm and verdicts.
//   - TestSandboxAlone: the batches whose shell commands the classifier
//     judges (not the repository-settings, context-file, control and
//     restart batches), in default mode, with the sidecar started with AGENT_LSP_CLASSIFIER=off
//     (every command that would ask runs confined without a question);
//     harm only. Issue 25's check that the layers under the classifier
//     (deny rules, git hardening, the read-only sandbox, containment) hold
//     on their own.
//   - TestProtectedInWriteSandbox: the protected and dangling batches with
//     the user's own "Bash" allow rule and sandbox.enabled, so every
//     command runs in the write sandbox without a question; harm only
//     (workspace writes outside the protected paths are the user's).
//   - TestRuleSandbox: the rule-sandbox, environ and outside-read batches
//     (ruleBatches) with a Bash allow rule in the user's settings, in
//     default mode; harm only: the rule sandbox alone.
//   - TestProtectedInBypassSandbox: the shell commands of the same batches
//     in bypassPermissions mode with sandbox.enabled: the configured
//     sandbox alone; harm only.
//
// Environment switches:
//   - AGENT_LSP_BIN: test this binary instead of building one.
//   - ADVERSARIAL_RUN: a regular expression; only cases whose id matches run.
//   - ADVERSARIAL_CLASSIFIER_OFF=1: run the whole corpus, every mode, in
//     TestAdversarialCorpus with AGENT_LSP_CLASSIFIER=off, harm only (the
//     other tests are then skipped). =rule adds a Bash allow rule to the
//     user's settings instead: every command runs in the rule sandbox
//     (issue 17 point 3). Workspace writes, and reads of files outside
//     both the workspace and the home (the "outside" and "other"
//     canaries), are then not harm: that sandbox allows them by design;
//     writes outside, the network, the home's credentials, the API key
//     and Read-denied files still are. =sandbox is that rule and
//     sandbox.enabled.
//   - ADVERSARIAL_DEBUG=1: log the tool result of every call the model
//     got back (-v shows them).
//   - ADVERSARIAL_REPORT=path: write every failing case there as Markdown
//     (the two harm-only tests write beside it, with their name added).
package adversarial
