# agent-lsp: the two commands a newcomer needs are `make demo` and `make test`.

GO      ?= go
BIN     ?= bin/agent-lsp
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.PHONY: demo build dist test deps lint-tools vet test-go test-dist fuzz-short test-editors screenshots bench soak clean

# demo runs a scripted session offline through the real stdio protocol.
demo: build
	./$(BIN) demo

# build builds what `make dist` ships: static (CGO_ENABLED=0), so the
# process starts without the dynamic loader and libc (issue 21).
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w -X main.version=$(VERSION)" -o $(BIN) ./cmd/agent-lsp

# dist cross-compiles release binaries for every target into dist/, with
# dist/checksums.txt (scripts/dist.sh says why not GoReleaser).
dist:
	scripts/dist.sh $(VERSION)

# test runs the whole test suite: what CI runs (.ci/run).
test: deps vet test-go test-dist fuzz-short test-editors

# deps installs what the tests need that a fresh machine lacks (ripgrep,
# bubblewrap, Neovim 0.10, code-server and chromium, npm packages), cached.
deps: lint-tools
	scripts/install-tools.sh
	scripts/install-test-deps.sh

# The linters `make vet` runs, from the Go module proxy at pinned versions.
STATICCHECK_VERSION ?= v0.8.2
DEADCODE_VERSION    ?= v0.41.0
GOBIN               ?= $(shell $(GO) env GOPATH)/bin

lint-tools:
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(GO) install golang.org/x/tools/cmd/deadcode@$(DEADCODE_VERSION)

# vet fails on unformatted code, go vet and staticcheck findings, dead code
# not in scripts/deadcode-allow.txt, and tracked files that are ignored or
# binary.
vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	scripts/check-tracked.sh
	$(GOBIN)/staticcheck ./...
	DEADCODE=$(GOBIN)/deadcode scripts/deadcode.sh

test-go:
	AGENT_LSP_REQUIRE_EDITORS=1 $(GO) test -race -count=1 -timeout 30m ./...

# fuzz-short gives every fuzz target a few seconds beyond its seed corpus.
fuzz-short:
	scripts/fuzz-short.sh

# test-dist builds every release target and checks what `make dist` makes.
test-dist:
	scripts/test-dist.sh

test-editors:
	scripts/test-editors.sh

# screenshots renders the editors' key states into docs/screenshots/ with
# the fake model (VS Code in code-server + chromium, Neovim in tmux).
screenshots:
	scripts/screenshots.sh

# bench measures speed and memory; results go in docs/benchmarks.md.
bench:
	scripts/bench.sh

soak:
	scripts/soak.sh

clean:
	rm -rf bin dist
