#!/usr/bin/env bash
# Cross-compiles agent-lsp for every release target into dist/ with the
# version stamped in (-X main.version), and writes dist/checksums.txt
# (sha256, the format `sha256sum -c` reads).
#
# This does what GoReleaser's snapshot build would (same names:
# agent-lsp_<version>_<os>_<arch>/agent-lsp[.exe]), without it: installing
# GoReleaser from the Go module proxy means downloading and compiling more
# than 300 modules, over 10 minutes on the project's 2-core machines
# before a single build, and every fresh machine running `make deps`
# would pay it again. A Go toolchain already cross-compiles.
#
# Usage: scripts/dist.sh [VERSION]   (default: git describe, else "dev")
# Env: DIST (output directory, default dist), TARGETS (space-separated
# os/arch list, default the release targets below).
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}"
dist="${DIST:-dist}"
targets="${TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64}"

rm -rf "$dist"
mkdir -p "$dist"
for t in $targets; do
  os=${t%/*} arch=${t#*/}
  exe=agent-lsp
  [ "$os" = windows ] && exe=agent-lsp.exe
  dir="$dist/agent-lsp_${version}_${os}_${arch}"
  mkdir -p "$dir"
  echo "dist: $os/$arch" >&2
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath \
    -ldflags "-s -w -X main.version=$version" -o "$dir/$exe" ./cmd/agent-lsp
done
(cd "$dist" && find . -type f -name 'agent-lsp*' ! -name '*.txt' | sed 's|^\./||' | sort | xargs sha256sum > checksums.txt)
echo "dist: $(wc -l < "$dist/checksums.txt") binaries and $dist/checksums.txt (version $version)" >&2
