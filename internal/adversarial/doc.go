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
// Every case has an expected verdict (allow, ask or deny) that is checked
// against what happened, in each of the modes default, acceptEdits, plan
// and dontAsk. Harm without a question fails the test as "HARM"; a verdict
// that differs from the expected one fails it as "VERDICT".
//
// The package has no code of its own beyond this comment; run its tests
// with
//
//	go test ./internal/adversarial/
//
// Environment switches:
//   - AGENT_LSP_BIN: test this binary instead of building one.
//   - ADVERSARIAL_RUN: a regular expression; only cases whose id matches run.
//   - ADVERSARIAL_CLASSIFIER_OFF=1: start the sidecar with
//     AGENT_LSP_CLASSIFIER=off (every command treated read-only), check
//     harm only: issue 25's "the sandbox alone" check.
//   - ADVERSARIAL_REPORT=path: write every failing case there as Markdown.
package adversarial
