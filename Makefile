# agent-lsp: the two commands a newcomer needs are `make demo` and `make test`.

GO      ?= go
BIN     ?= bin/agent-lsp
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.PHONY: demo build dist test deps vet test-go test-dist fuzz-short test-editors bench soak clean

# demo runs a scripted session offline through the real stdio protocol.
demo: build
	./$(BIN) demo

build:
	$(GO) build -trimpath -ldflags "-s -w -X main.version=$(VERSION)" -o $(BIN) ./cmd/agent-lsp

# dist cross-compiles release binaries for every target into dist/, with
# dist/checksums.txt (scripts/dist.sh says why not GoReleaser).
dist:
	scripts/dist.sh $(VERSION)

# test runs the whole test suite: what CI runs (.ci/run).
test: deps vet test-go test-dist fuzz-short test-editors

# deps installs what the tests need that a fresh machine lacks (ripgrep,
# bubblewrap, Neovim 0.10, code-server and chromium, npm packages), cached.
deps:
	scripts/install-tools.sh
	scripts/install-test-deps.sh

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

test-go:
	AGENT_LSP_REQUIRE_EDITORS=1 $(GO) test -race -count=1 ./...

# fuzz-short gives every fuzz target a few seconds beyond its seed corpus.
fuzz-short:
	scripts/fuzz-short.sh

# test-dist builds every release target and checks what `make dist` makes.
test-dist:
	scripts/test-dist.sh

test-editors:
	scripts/test-editors.sh

# bench measures speed and memory; results go in docs/benchmarks.md.
bench:
	scripts/bench.sh

soak:
	scripts/soak.sh

clean:
	rm -rf bin dist
