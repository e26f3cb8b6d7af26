# extensiond — set-up, demo, tests and install. See README.md.
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
CONFIG ?= config/extensiond.toml

.PHONY: deps build demo test bench install clean

# Installs what a fresh Debian machine lacks (run as root, or with sudo available).
deps:
	@scripts/install-deps

build: deps
	$(SWIFT) build

# The daemon in the foreground with the demo config: a host panel, a widget, its app.
demo: build
	.build/debug/extensiond --foreground --config $(CONFIG)

# The whole test suite: what .ci/run calls.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --disable-xctest

bench: deps
	bench/run

install: deps
	$(SWIFT) build -c release --static-swift-stdlib --product extensiond
	$(SWIFT) build -c release --static-swift-stdlib --product supervisorctl
	install -D -m 0755 .build/release/extensiond $(DESTDIR)$(PREFIX)/bin/extensiond
	install -D -m 0755 .build/release/supervisorctl $(DESTDIR)$(PREFIX)/bin/supervisorctl
	install -d $(DESTDIR)/etc/extensiond/extensiond.d
	test -e $(DESTDIR)/etc/extensiond/extensiond.toml || install -m 0644 config/system.toml $(DESTDIR)/etc/extensiond/extensiond.toml
	sed 's|/usr/local|$(PREFIX)|g' units/extensiond.service > units/.extensiond.service.tmp
	install -D -m 0644 units/.extensiond.service.tmp $(DESTDIR)$(PREFIX)/lib/systemd/system/extensiond.service
	rm -f units/.extensiond.service.tmp
	install -D -m 0644 README.md $(DESTDIR)$(PREFIX)/share/doc/extensiond/README.md

clean:
	rm -rf .build
# extensiond under a real systemd (PID 1) with cgroup v2, in a throw-away VM: tests/vm/README.md.
vm-test:
	scripts/vm-test
