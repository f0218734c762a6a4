# strom — make targets. `make demo` and `make test` do all their own set-up.
GO      ?= go
# Without the symbol table and DWARF (-s -w) the binary starts 0.3 to 0.9 ms
# sooner and with 50 page faults fewer (BENCHMARKS.md), which every command an
# agent runs pays for; a panic still names its functions and lines. STRIP= keeps
# them, for perf or a debugger.
STRIP   ?= -s -w
# The build's version, commit and date (internal/buildinfo): a build at a release
# tag vX.Y.Z is X.Y.Z, any other 0.0.0-dev; the commit is +dirty with changes.
BUILD   := github.com/strom-research/strom/internal/buildinfo
VERSION := $(patsubst v%,%,$(shell git describe --tags --exact-match --match 'v[0-9]*' 2>/dev/null))
COMMIT  := $(shell git rev-parse --short=7 HEAD 2>/dev/null)$(if $(shell git status --porcelain --untracked-files=no 2>/dev/null),+dirty)
DATE    := $(shell git log -1 --format=%cI 2>/dev/null)
LDFLAGS := $(STRIP) -X $(BUILD).version=$(VERSION) -X $(BUILD).commit=$(COMMIT) -X $(BUILD).date=$(DATE)
# strom needs no C: a static binary starts faster (no dynamic loader, no libc
# threads), which every command an agent runs pays for. Tests keep cgo for -race.
NOCGO   := CGO_ENABLED=0

.PHONY: build install release release-tool test lint bench demo e2e screenshot fuzz soak clean man

# strom, and the faces it runs in its place (cmd/strom/face.go): strom-app for
# strom app, strom-menu for the menu and strom setup. The web server and the
# terminal forms are programs of their own, so that no other command starts them.
build:
	$(GO) generate ./messages ./statefiles ./harness/agents
	$(NOCGO) $(GO) build -ldflags "$(LDFLAGS)" -o bin/ ./cmd/strom ./cmd/strom-app ./cmd/strom-menu

# The manual pages strom(1) and strom-COMMAND(1), made from the help texts (strom
# man), and the shells' completions in English, as the releases ship them;
# TestManPage and TestCompletionsCommitted fail when man/ or completions/ does not
# hold what the current texts make.
man:
	rm -f man/*.1 completions/*
	STROM_SESSION= $(GO) run ./cmd/strom man --dir man
	mkdir -p completions
	for s in bash:strom.bash zsh:_strom fish:strom.fish powershell:strom.ps1; do \
		STROM_SESSION= LANG=C.UTF-8 LC_ALL= LC_MESSAGES= XDG_CONFIG_HOME=/nonexistent \
			$(GO) run ./cmd/strom completion $${s%%:*} > completions/$${s#*:} || exit 1; \
	done

install:
	$(NOCGO) $(GO) install -ldflags "$(LDFLAGS)" ./cmd/strom ./cmd/strom-app ./cmd/strom-menu

# The release's files, as a snapshot in dist/, published nowhere: the archives for
# linux and darwin on amd64 and arm64, the .deb, the Homebrew formula and
# checksums.txt (.goreleaser.yaml). GoReleaser is built from the Go module proxy at
# the version pinned here on first use.
GORELEASER ?= $(GO) run github.com/goreleaser/goreleaser/v2@v2.17.0
release:
	$(GORELEASER) release --snapshot --clean

# GoReleaser alone, built into Go's cache (.ci/run, before make test, whose release
# test runs it).
release-tool:
	$(GORELEASER) --version

# Two passes. The race detector's pass runs every package's tests; in cmd/strom it
# leaves to the second pass the tests whose work is strom processes by the hundred
# (SLOW: kills at every write point, the crash and kill campaigns, the simulated
# night of 3 hours, several machines, the real clients), which the detector would
# slow several times over and which look for lost state, not for races between
# goroutines (withoutRace in cmd/strom/passes_test.go). The second pass runs them
# without it, and so the menu driven by keys, whose terminal reader races inside
# bubbletea v2 (bubbletea#1599). `make soak` runs the 12-hour night, 1,000 kills and
# TestSyncMachines in full (5 machines, 30 tasks).
SLOW = ^(TestSync|TestNight|TestCrashResume|TestKillAtEveryWrite|TestClaude|TestCodex|TestOpenCode|TestGrok|TestMenuWorkInOrder|TestMenuWorkPickedKeys|TestMenuEscAndCtrlC)
test:
	$(GO) mod download
	$(GO) vet ./...
	$(GO) test -race -short -count=1 -timeout 25m ./...
	$(GO) test -short -count=1 -timeout 25m -run '$(SLOW)' ./cmd/strom/

# The real clients — Claude Code (the pinned version and the newest npm served when
# its flags were measured), Codex, OpenCode, Grok CLI (pinned, installed by npm into
# .cache/ on first use) — under strom, against a scripted model server; `make test`
# runs them too.
e2e:
	$(GO) test -count=1 -timeout 15m -run 'TestClaude|TestCodex|TestOpenCode|TestGrok' ./cmd/strom/
	$(GO) test -count=1 ./internal/fakemodel/

# Every fuzz target for FUZZTIME each (default 30s), one `go test -fuzz` at a time
# (JOBS=n: n at a time; scripts/fuzz.sh says more).
FUZZTIME ?= 30s
fuzz:
	FUZZTIME=$(FUZZTIME) ./scripts/fuzz.sh

# The long simulated night: 12 hours, at least 200 sessions, every fault (TestNight);
# 1,000 rounds of killing a --loop run, its agent and the agent's strom commands
# (TestCrashResume); 1,000 kills of strom, its agent, both or its git across 5 clones
# of one research over a path and a git daemon that goes and comes back
# (TestSyncKillCampaign, which stops killing 15 minutes before its deadline).
soak:
	$(GO) test -count=1 -timeout 60m -run '^TestNight$$' -v ./cmd/strom/ -soak
	$(GO) test -count=1 -timeout 90m -run '^TestCrashResume$$' -v ./cmd/strom/ -soak
	$(GO) test -count=1 -timeout 30m -run '^TestSyncMachines$$' -v ./cmd/strom/
	$(GO) test -count=1 -timeout 120m -run '^TestSyncKillCampaign$$' -v ./cmd/strom/ -soak

# The layering of AGENTS.md, checked against go list's import graph
# (internal/layers); `make test` runs it too, with every package's tests.
lint:
	$(GO) vet ./...
	$(GO) test -count=1 -run 'TestLayers|TestCheck' ./internal/layers
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change: $$out"; exit 1; fi
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

bench: build
	$(GO) test -run '^$$' -bench . -benchtime 1x ./...
	./scripts/bench-cli.sh
	./scripts/bench-big-queue.sh
	./scripts/bench-age.sh
	./scripts/bench-sync.sh
	./scripts/bench-files.sh

# The README's picture of the app's overview, taken by its browser test.
screenshot:
	STROM_SCREENSHOT=$(CURDIR)/docs/overview.png $(GO) test -count=1 -run 'TestAppFinishAndStop' ./cmd/strom/

demo: build
	./scripts/demo.sh

clean:
	rm -rf bin dist
