# extensiond — set-up, demo, tests, install and packaging. See README.md.
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
CONFIG ?= config/extensiond.toml
# The name the CLI is installed as, and FORCE=1 to install it over (or in front of in
# PATH) a supervisorctl that is not ours; DEBUG_FILES=1 keeps the debug info apart.
CTL ?= supervisorctl
FORCE ?=
DEBUG_FILES ?=
RELEASE = -c release --static-swift-stdlib
# Widgets and apps that load the shared Swift runtime (the extensiond-swift-runtime
# package) from SHARED_RUNTIME instead of the toolchain's directory; README.md, "Deploy".
SHARED_RUNTIME = /usr/lib/extensiond/swift
# Built for size without the implicit imports of the concurrency and regex modules, as
# docs/PROTOCOL.md §5 tells widget authors.
RUNTIME_LINKED = -c release --scratch-path .build/shared-runtime -Xswiftc -no-toolchain-stdlib-rpath \
    -Xlinker -rpath -Xlinker $(SHARED_RUNTIME) -Xswiftc -Osize \
    -Xswiftc -Xfrontend -Xswiftc -disable-implicit-concurrency-module-import \
    -Xswiftc -Xfrontend -Xswiftc -disable-implicit-string-processing-module-import

.PHONY: deps build demo test lint format man browser-test python-test alert-rules-test sdk-package-test fuzz fuzz-short bench order release runtime-linked install deb clean vm-test

# Installs what a fresh Debian machine lacks (run as root, or with sudo available).
deps:
	@scripts/install-deps

build: deps
	$(SWIFT) build

# The daemon in the foreground with the demo config: the Today view, a text panel, three
# widgets and their app.
demo: build
	@echo "The Today view: http://127.0.0.1:8080/ (Ctrl-C stops the demo)"
	.build/debug/extensiond --foreground --config $(CONFIG)

# The whole test suite: what .ci/run calls. It ends with the browser tests and a short
# fuzzing run.
test: deps lint
	$(SWIFT) build --build-tests
	$(SWIFT) test --disable-xctest
	@$(MAKE) --no-print-directory browser-test python-test alert-rules-test sdk-package-test
	@$(MAKE) --no-print-directory fuzz-short

# The code's style is .swift-format's (swift format comes with the toolchain): lint fails on
# any finding, format rewrites the tree to it. Commit subjects are one line of at most 72
# characters (scripts/commit-subjects).
lint:
	$(SWIFT) format lint --strict --recursive --parallel Sources Tests fuzz
	@scripts/commit-subjects

format:
	$(SWIFT) format format --in-place --recursive --parallel Sources Tests fuzz

# extensiond(8) is what the daemon prints with --help-man (DaemonUsageTests fails until this
# has been run after a change of its options).
man:
	$(SWIFT) build --product extensiond
	.build/debug/extensiond --help-man > docs/man/extensiond.8

# The Today view in headless Chromium against a real daemon (tests/browser/README.md).
# pytest's exit codes: 0 passed, 1 tests failed, 2 interrupted, 3 internal error, 4 usage
# error, 5 no tests collected; every one but 0 fails the target, 5 with its own message.
browser-test:
	$(SWIFT) build --product extensiond
	$(SWIFT) build --product extensiond-today
	$(SWIFT) build --product supervisorctl
	@status=0; /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/browser || status=$$?; \
	    case $$status in \
	    0) ;; \
	    5) echo "browser-test: pytest collected no tests in tests/browser"; exit 1 ;; \
	    *) echo "browser-test: pytest exited with $$status"; exit 1 ;; \
	    esac

# The Python SDK's tests, its test kit and against the daemon that `swift build` made.
# pytest fails (exit 5) when it collects no test: that is a failure here too.
python-test:
	@status=0; cd sdk/python && /usr/bin/python3 -m pytest -p no:cacheprovider -q tests || status=$$?; \
	    case $$status in \
	    0) ;; \
	    5) echo "python-test: pytest collected no tests in sdk/python/tests"; exit 1 ;; \
	    *) echo "python-test: pytest exited with $$status"; exit 1 ;; \
	    esac

# A widget package outside the repository builds and tests against a clone's Swift SDK
# package, which brings nothing else (sdk/ExtensionSDK/test-outside-package).
sdk-package-test:
	sdk/ExtensionSDK/test-outside-package

# The operator's alerting rules: valid, and each alert fires where it should (ops/).
alert-rules-test:
	promtool check rules ops/prometheus/extensiond-alerts.yml
	cd ops/prometheus && promtool test rules extensiond-alerts.test.yml

# Structure-aware fuzzing of every protocol of a real daemon (docs/ARCHITECTURE.md).
FUZZ_MESSAGES ?= 1000000
FUZZ_SEED ?= 1
fuzz: deps
	$(SWIFT) build --product extensiond-fuzz
	$(SWIFT) build --product extensiond
	.build/debug/extensiond-fuzz --messages $(FUZZ_MESSAGES) --seed $(FUZZ_SEED)

# 20,000 messages over all four protocols in at most 100 s; the full output is kept in
# .build/fuzz-short.log and shown when the run fails.
fuzz-short:
	$(SWIFT) build --product extensiond-fuzz
	$(SWIFT) build --product extensiond
	@.build/debug/extensiond-fuzz --messages 20000 --seconds 100 --seed $(FUZZ_SEED) > .build/fuzz-short.log 2>&1 \
	    && grep -E '^(protocol|host|control|extension|config|cut short|ok:) ' .build/fuzz-short.log \
	    || { tail -60 .build/fuzz-short.log; exit 1; }

bench: deps
	bench/run

# Records linker/extensiond.order again (root and tracefs; about 40 minutes: bench/README.md,
# "The order file"), then drops the release daemon: SwiftPM does not relink for the file.
order: deps
	scripts/record-order
	rm -f .build/release/extensiond

release: deps
	$(SWIFT) build $(RELEASE) --product extensiond
	$(SWIFT) build $(RELEASE) --product supervisorctl
	$(SWIFT) build $(RELEASE) --product extensiond-today
	@$(MAKE) --no-print-directory runtime-linked

# The demo's widget and app, linked against the shared runtime (make deb, tests/vm/deb);
# the last line names their directory.
runtime-linked:
	$(SWIFT) build $(RUNTIME_LINKED) --product DemoWidget
	$(SWIFT) build $(RUNTIME_LINKED) --product DemoApp
	@echo "RUNTIME_BIN=$$($(SWIFT) build $(RUNTIME_LINKED) --show-bin-path)"

# Stripped binaries, man pages, completions, the unit, a config (never over an existing
# one) and the docs: scripts/install-files.
install: release
	BIN="$$($(SWIFT) build $(RELEASE) --show-bin-path)" DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" \
	    CTL="$(CTL)" FORCE="$(FORCE)" DEBUG_FILES="$(DEBUG_FILES)" scripts/install-files

# .build/deb/*.deb: scripts/build-deb.
deb: release
	BIN="$$($(SWIFT) build $(RELEASE) --show-bin-path)" RUNTIME_BIN="$$($(SWIFT) build $(RUNTIME_LINKED) --show-bin-path)" \
	    scripts/build-deb .build/deb

clean:
	rm -rf .build

# extensiond under a real systemd (PID 1) with cgroup v2, in a throw-away VM:
# tests/vm/README.md. TEST names a directory of tests/vm/ (default unit-smoke).
TEST ?= unit-smoke
vm-test:
	scripts/vm-test $(TEST)
