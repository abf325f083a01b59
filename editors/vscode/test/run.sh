#!/usr/bin/env bash
# The VS Code extension's whole test suite:
#   1. npm ci (skipped while package-lock.json and Node are unchanged)
#   2. build: esbuild bundles, tsc type check + test compile, the .vsix
#   3. unit tests (mocha, no VS Code): webview rendering and DOM, protocol layer
#   4. integration (mocha): the real agent-lsp over stdio with the fake model
#   5. end to end: the linux-x64 platform .vsix (agent-lsp inside) in
#      code-server + chromium, no serverPath and no agent-lsp on PATH
#      (scripts/install-code-server.sh)
#   6. screenshots: the same harness through the chat's key states
#      (test/e2e/screenshots.cjs, what `make screenshots` commits), written to
#      $VSCODE_ARTIFACTS/screenshots: a view that breaks fails here
# Exits non-zero if anything fails; the last line is "vscode: N passed, N failed".
#
# Env: VSCODE_E2E=0 skips steps 5 and 6, VSCODE_SCREENSHOTS=0 step 6;
# AGENT_LSP_BIN / FAKEMODEL_BIN use prebuilt
# binaries; VSCODE_ARTIFACTS is where screenshots go
# (default ${TMPDIR:-/tmp}/agent-lsp-artifacts/vscode).
set -euo pipefail
ext="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
repo="$(cd "$ext/../.." && pwd)"
cd "$ext"
# One run at a time per checkout: another run's "rm -rf dist" would pull
# the .vsix from under this one.
lock="${TMPDIR:-/tmp}/agent-lsp-vscode-test-$(printf %s "$ext" | sha256sum | cut -c1-12).lock"
exec 9>"$lock"
if ! flock -n 9; then
  echo "vscode: another test/run.sh is running in $ext; waiting for it" >&2
  flock 9
fi
artifacts="${VSCODE_ARTIFACTS:-${TMPDIR:-/tmp}/agent-lsp-artifacts/vscode}"
mkdir -p "$artifacts"
say() { printf '== vscode: %s\n' "$*" >&2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/agent-lsp-vscode-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

# 1. Node dependencies (the machine's Node; code-server brings its own).
command -v npm >/dev/null || { echo "vscode: npm not found" >&2; exit 1; }
stamp="$(sha256sum package-lock.json | cut -c1-16) node$(node --version)"
if [ "$(cat node_modules/.agent-lsp-stamp 2>/dev/null)" != "$stamp" ]; then
  say "npm ci"
  npm ci --no-audit --no-fund --loglevel=error >&2
  echo "$stamp" > node_modules/.agent-lsp-stamp
fi

# 2. Build.
say "build"
rm -rf out dist
node esbuild.mjs
npx tsc -p .
npx vsce package --no-dependencies --skip-license -o dist/agent-lsp.vsix >"$work/vsce.log" 2>&1 \
  || { cat "$work/vsce.log" >&2; exit 1; }
# The linux-x64 platform package, agent-lsp inside (what the e2e test installs).
node scripts/package-all.mjs linux-x64 >"$work/package-all.log" 2>&1 \
  || { cat "$work/package-all.log" >&2; exit 1; }
node -e '
  const b = require("fs").readFileSync(process.argv[1]);
  if (!b.includes("extension/server/agent-lsp")) { console.error("vscode: the linux-x64 .vsix lacks extension/server/agent-lsp"); process.exit(1); }
' dist/agent-lsp-linux-x64.vsix

if [ -z "${AGENT_LSP_BIN:-}" ] || [ -z "${FAKEMODEL_BIN:-}" ]; then
  say "go build agent-lsp and fakemodel"
  (cd "$repo" && go build -o "$work/bin/agent-lsp" ./cmd/agent-lsp && go build -o "$work/bin/fakemodel" ./internal/cmd/fakemodel)
  AGENT_LSP_BIN="$work/bin/agent-lsp" FAKEMODEL_BIN="$work/bin/fakemodel"
fi
export AGENT_LSP_BIN FAKEMODEL_BIN

passed=0 failed=0 status=0
# count FILE: adds mocha's "N passing" / "N failing" to the totals.
count() {
  local p f
  p=$(sed -n 's/^ *\([0-9][0-9]*\) passing.*/\1/p' "$1" | tail -1)
  f=$(sed -n 's/^ *\([0-9][0-9]*\) failing.*/\1/p' "$1" | tail -1)
  passed=$((passed + ${p:-0})) failed=$((failed + ${f:-0}))
}

say "unit tests"
if npx mocha --config test/.mocharc.unit.json 2>&1 | tee "$work/unit.log"; then :; else status=1; fi
count "$work/unit.log"
grep -q ' passing' "$work/unit.log" || { failed=$((failed + 1)); status=1; }

say "integration tests (real agent-lsp, fake model)"
if npx mocha --config test/.mocharc.integration.json 2>&1 | tee "$work/integration.log"; then :; else status=1; fi
count "$work/integration.log"
grep -q ' passing' "$work/integration.log" || { failed=$((failed + 1)); status=1; }

if [ "${VSCODE_E2E:-1}" != 0 ]; then
  say "end to end (code-server + chromium)"
  if test/e2e/run-e2e.sh "$ext/dist/agent-lsp-linux-x64.vsix" "$AGENT_LSP_BIN" "$FAKEMODEL_BIN" "$artifacts"; then
    passed=$((passed + 1))
    say "screenshots: $artifacts/e2e-diff.png $artifacts/e2e-after.png $artifacts/e2e-history.png"
  else
    failed=$((failed + 1)) status=1
  fi
  if [ "${VSCODE_SCREENSHOTS:-1}" != 0 ]; then
    say "screenshots of the key states (code-server + chromium)"
    if E2E_MODE=screenshots E2E_TIMEOUT=900 test/e2e/run-e2e.sh "$ext/dist/agent-lsp-linux-x64.vsix" "$AGENT_LSP_BIN" "$FAKEMODEL_BIN" "$artifacts/screenshots"; then
      passed=$((passed + 1))
      say "screenshots: $artifacts/screenshots"
    else
      failed=$((failed + 1)) status=1
    fi
  fi
fi

echo "vscode: $passed passed, $failed failed"
[ "$failed" -eq 0 ] || status=1
exit $status
