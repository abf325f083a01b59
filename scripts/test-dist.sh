#!/usr/bin/env bash
# Checks the release: every target builds (go build ./... per GOOS/GOARCH,
# tests excluded, so an OS-specific call outside a per-OS file fails here),
# then `make dist` gives one binary per target with a checksum each, and
# this machine's (linux) one runs `version` with the version stamped in.
set -euo pipefail
cd "$(dirname "$0")/.."
targets="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64"
status=0
for t in $targets; do
  if ! GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0 go build ./... ; then
    echo "test-dist: FAIL: go build ./... for $t" >&2
    status=1
  fi
done
[ $status -eq 0 ] || exit 1

out=$(mktemp -d "${TMPDIR:-/tmp}/agent-lsp-dist.XXXXXX")
trap 'rm -rf "$out"' EXIT
DIST="$out" scripts/dist.sh 9.9.9-test
for t in $targets; do
  os=${t%/*} arch=${t#*/} exe=agent-lsp
  [ "$os" = windows ] && exe=agent-lsp.exe
  f="agent-lsp_9.9.9-test_${os}_${arch}/$exe"
  [ -s "$out/$f" ] || { echo "test-dist: FAIL: $f missing" >&2; exit 1; }
  grep -q "  $f\$" "$out/checksums.txt" || { echo "test-dist: FAIL: no checksum for $f" >&2; exit 1; }
done
(cd "$out" && sha256sum -c --quiet checksums.txt) || { echo "test-dist: FAIL: checksums do not match" >&2; exit 1; }
host="$(go env GOOS)_$(go env GOARCH)" # the linux binary this machine runs
got=$("$out/agent-lsp_9.9.9-test_${host}/agent-lsp" version)
[ "$got" = "agent-lsp 9.9.9-test" ] || { echo "test-dist: FAIL: version printed \"$got\"" >&2; exit 1; }
echo "test-dist: OK: $(echo $targets | wc -w) targets build; dist binaries, checksums and version stamp good"
