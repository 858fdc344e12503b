# Lumen: `make run` starts lumend on the embedded demo home; `make test` installs what is missing, builds and
# runs every test. Both work on a fresh Debian 12 machine with the Swift toolchain.

SWIFT      ?= swift
DEB_PKGS   := libsystemd-dev libedit-dev libgnutls28-dev pkg-config systemd zsh fish scdoc python3 python3-pytest python3-jsonschema python3-zeroconf python3-venv lintian mmdebstrap socat
BUILD_DIR  := .build
LUMEND     := $(BUILD_DIR)/debug/lumend
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Debian's Python, with Debian's pytest (make deps installs both): the Python client's tests run on it.
PYTHON     ?= /usr/bin/python3

# make install: where things go, as Debian lays them out (PREFIX=/usr for a package; DESTDIR to stage).
PREFIX     ?= /usr/local
DESTDIR    ?=
CONFIG     ?= release
# What `swift build` is given for install, and where the binaries it installs are: linked as the package is,
# the Swift runtime inside, so that what is installed runs without the toolchain (a plain build's binaries find
# the runtime through a RUNPATH into the toolchain, and stop working once it is gone or moves).
SWIFT_BUILD_FLAGS ?= --static-swift-stdlib --build-path $(BUILD_DIR)/static
BINARIES   ?= $(BUILD_DIR)/static/$(CONFIG)
BINDIR     := $(PREFIX)/bin
DATADIR    := $(PREFIX)/share
DOCDIR     := $(DATADIR)/doc/lumen
MANDIR     := $(DATADIR)/man
UNITDIR    := $(PREFIX)/lib/systemd/system
USERUNITDIR := $(PREFIX)/lib/systemd/user
SYSUSERSDIR := $(PREFIX)/lib/sysusers.d
# Where Debian's Python finds modules: a package's own under /usr/lib/python3/dist-packages, a local install's
# under PREFIX/lib/python3.X/dist-packages (X being the minor version of the Python that will import them).
PYTHON_VERSION := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYTHONDIR  ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/python3/dist-packages,$(PREFIX)/lib/python$(PYTHON_VERSION)/dist-packages)
MANPAGES   := lumend.8 lumenctl.1 lumen-fixture.5 lumen-protocol.7

FUZZ_SECONDS   ?= 60
FUZZ_RUNS      ?= -1
FUZZ_SEED      ?= 0
FUZZ_TARGETS   ?= snapshot journal fixture rpc http lifx mdns
FUZZ_BUILD     := $(BUILD_DIR)/fuzz
CRASHSIM_WORKLOADS ?= 10000
CRASHSIM_SEED  ?= 1
LIFECYCLE_ROUNDS ?= 20

SOAK_MINUTES   ?= 10

.PHONY: all deps deps-browser install-missing test-browser build run test test-swift test-python python-api interop ha-venv check-units deb check-deb bench completions man install uninstall fmt lint clean crashsim fuzz lifecycle hostile soak sanitize release

all: build

## deps: install the Debian packages Lumen needs, when they are missing.
deps:
	@$(MAKE) --no-print-directory install-missing PKGS="$(DEB_PKGS)"

## deps-browser: what the browser tests need besides: Debian's Chromium, its driver, and Selenium.
BROWSER_PKGS := chromium chromium-driver python3-selenium
deps-browser:
	@$(MAKE) --no-print-directory install-missing PKGS="$(BROWSER_PKGS)"

install-missing:
	@missing=""; \
	for pkg in $(PKGS); do \
	  dpkg-query -W -f='$${Status}' $$pkg 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$pkg"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

## build: build everything (debug).
build: deps
	$(SWIFT) build

## run: build and start lumend on the embedded demo home, in the foreground.
run: build
	@socket=$$($(LUMEND) $(ARGS) --print-socket 2>/dev/null); \
	echo "Starting lumend on the embedded demo home."; \
	echo "  socket:  $$socket"; \
	echo "  talk:    $(BUILD_DIR)/debug/lumenctl status"; \
	echo "           socat - UNIX-CONNECT:$$socket   then type {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hello\"}"; \
	echo "  browser: make run ARGS='--http 127.0.0.1:8080', then open the address the log names"; \
	echo "  stop:    Ctrl-C"; \
	exec $(LUMEND) $(ARGS)

## test: install what is missing, build, run every test, and check the systemd units.
test: deps
	$(SWIFT) build --build-tests
	$(MAKE) --no-print-directory check-units
	$(SWIFT) test --skip-build
	$(MAKE) --no-print-directory test-python
	$(MAKE) --no-print-directory check-deb

## test-python: the Python client's and pytest plugin's tests, and the fixture schema's (every home shipped and a
## snapshot lumend writes follow it), against the lumend just built.
test-python: build
	cd clients/python && LUMEND=$(abspath $(LUMEND)) PYTHONPATH=$(abspath clients/python) \
		$(PYTHON) -m pytest -q -rs -p no:cacheprovider tests
	cd tests/schema && LUMEND=$(abspath $(LUMEND)) PYTHONPATH=$(abspath clients/python) \
		$(PYTHON) -m pytest -q -rs -p no:cacheprovider .

## python-api: write docs/python-api.md, the Python client's API reference, from its docstrings (make
## test-python fails while it is not current).
python-api:
	$(PYTHON) scripts/python-api.py

## interop: the HTTP fronts driven by clients Lumen did not write (aiohue, phue, qhue, python-hue-v2 and huesdk for the
## Hue bridge), from
## PyPI in a virtual environment of their own, against the lumend just built; then the LIFX clients (lifxlan,
## aiolifx, lifx-async, photons), and Home Assistant's own Hue and LIFX integrations (on Python 3.13 or newer, in
## .build/ha-venv; see ha-venv), each in a network namespace of their own. The packages are installed into the
## environment until each has its pinned version. bitstring is pinned for lifxlan 1.2.9, which cannot read a
## bulb's Wi-Fi signal with bitstring 5. time-machine is there for the pytest plugin's tests of application code
## that reads the system clock (it is on PyPI, not in Debian). The mDNS announcement, found by python-zeroconf, is
## checked too. LUMEN_INTEROP=1 makes a test whose client or tool is missing fail rather than skip. Where a group
## cannot run, make interop fails unless told to skip that group by name: LIFX_INTEROP=skip (the LIFX clients,
## without unshare -rn), HUESDK_INTEROP=skip (huesdk, without unshare -rn), HA_INTEROP=skip (Home Assistant,
## without unshare -rn or without .build/ha-venv, that is without Python 3.13 or newer).
INTEROP_VENV := $(BUILD_DIR)/interop-venv
INTEROP_PKGS := aiohue==4.9.0 phue==1.1 qhue==2.0.1 python-hue-v2==2.3.1 huesdk==1.8 lifxlan==1.2.9 aiolifx==1.2.2 lifx-async==7.13.1 lifx-photons-core==0.44.1 \
	bitstring==4.4.0 time-machine==3.6.0 pytest==8.3.4
HA_VENV      := $(BUILD_DIR)/ha-venv
interop: build ha-venv
	@$(INTEROP_VENV)/bin/python -c 'import sys; from importlib.metadata import version; \
		sys.exit(any(version(name) != pinned for name, pinned in (pin.split("==") for pin in sys.argv[1:])))' \
		$(INTEROP_PKGS) 2>/dev/null || { { [ -x $(INTEROP_VENV)/bin/pip ] || $(PYTHON) -m venv $(INTEROP_VENV); } && \
		$(INTEROP_VENV)/bin/pip install -q $(INTEROP_PKGS); }
	@# LUMEN_INTEROP=1: a test whose client or tool is missing fails here, where it is meant to run, rather than skip.
	cd tests/interop && LUMEN_INTEROP=1 LUMEND=$(abspath $(LUMEND)) PYTHONPATH=$(abspath clients/python) \
		$(abspath $(INTEROP_VENV))/bin/pytest -q -p no:cacheprovider --ignore=lifx --ignore=homeassistant --ignore=huesdk .
	@# huesdk reads over HTTPS and writes over HTTP to one host without a port: lumend takes 80 and 443 in a
	@# network namespace of its own.
	@if unshare -rn true 2>/dev/null; then \
		cd tests/interop && unshare -rn sh -c 'ip link set lo up && \
			LUMEN_INTEROP=1 LUMEND=$(abspath $(LUMEND)) PYTHONPATH=$(abspath clients/python) \
			$(abspath $(INTEROP_VENV))/bin/pytest -q -p no:cacheprovider huesdk'; \
	elif [ "$(HUESDK_INTEROP)" = skip ]; then \
		echo "SKIPPED: the huesdk interop test needs a network namespace of its own (unshare -rn), not permitted here"; \
	else echo "the huesdk interop test needs unshare -rn (user namespaces); HUESDK_INTEROP=skip skips it"; exit 1; fi
	cd clients/python && LUMEND=$(abspath $(LUMEND)) PYTHONPATH=$(abspath clients/python) \
		$(abspath $(INTEROP_VENV))/bin/pytest -q -p no:cacheprovider tests/test_app_code.py
	@# The mDNS announcement found by python-zeroconf, in a network namespace of its own: it fails here when either
	@# is missing (make deps installs python3-zeroconf).
	LUMEN_INTEROP=1 $(SWIFT) test --filter MDNSTests
	@# LIFX clients broadcast to port 56700: their tests run in a network namespace of their own.
	@if unshare -rn true 2>/dev/null; then \
		cd tests/interop/lifx && unshare -rn sh -c 'ip link set lo up && \
			ip addr add 10.77.0.1/24 brd 10.77.0.255 dev lo && \
			for bulb in 10 11 12; do ip addr add 10.77.0.$$bulb/24 dev lo; done && \
			ip route add 255.255.255.255/32 dev lo && \
			LUMEND=$(abspath $(LUMEND)) PYTHONPATH=$(abspath clients/python) \
			$(abspath $(INTEROP_VENV))/bin/pytest -q -p no:cacheprovider .'; \
	elif [ "$(LIFX_INTEROP)" = skip ]; then \
		echo "SKIPPED: the LIFX interop tests need a network namespace of their own (unshare -rn), not permitted here"; \
	else echo "the LIFX interop tests need unshare -rn (user namespaces); LIFX_INTEROP=skip skips them"; exit 1; fi
	@# Home Assistant looks for Hue bridges in the vendor's cloud and for LIFX bulbs by broadcast: in a
	@# namespace of its own nothing leaves the machine, and port 56700 is the tests' own (its bulbs are on
	@# 127.0.0.10 and on); loopback takes multicast there, as Home Assistant's HTTP client starts an mDNS resolver.
	@if [ ! -f $(HA_VENV)/lumen-requirements.txt ] && [ "$(HA_INTEROP)" = skip ]; then \
		echo "SKIPPED: the Home Assistant interop tests need $(HA_VENV), which make ha-venv makes on Python 3.13 or newer"; \
	elif [ ! -f $(HA_VENV)/lumen-requirements.txt ]; then \
		echo "the Home Assistant interop tests need $(HA_VENV), which make ha-venv makes on Python 3.13 or newer; HA_INTEROP=skip skips them"; \
		exit 1; \
	elif unshare -rn true 2>/dev/null; then \
		cd tests/interop/homeassistant && unshare -rn sh -c 'ip link set lo up && \
			ip addr add 10.77.0.1/24 brd 10.77.0.255 dev lo && \
			ip route add 255.255.255.255/32 dev lo && \
			ip link set lo multicast on && ip route add 224.0.0.0/4 dev lo && \
			LUMEN_INTEROP=1 LUMEND=$(abspath $(LUMEND)) PYTHONPATH=$(abspath clients/python) \
			$(abspath $(HA_VENV))/bin/pytest -q -p no:cacheprovider -rxX .'; \
	elif [ "$(HA_INTEROP)" = skip ]; then \
		echo "SKIPPED: the Home Assistant interop tests need a network namespace of their own (unshare -rn), not permitted here"; \
	else echo "the Home Assistant interop tests need unshare -rn (user namespaces); HA_INTEROP=skip skips them"; exit 1; fi

## ha-venv: Home Assistant (pinned, with what its Hue and LIFX integrations need, and pytest) in .build/ha-venv,
## on Python 3.13 or newer: HA_PYTHON, else python3.14, python3.13 or python3 on PATH, else pyenv's. Made once
## and kept until tests/interop/homeassistant/requirements.txt changes. With no such Python it fails, or says
## SKIPPED with HA_INTEROP=skip.
ha-venv:
	@HA_INTEROP='$(HA_INTEROP)' scripts/ha-venv.sh $(HA_VENV)

## test-browser: the dashboard in headless Chromium, driven by Selenium, against the lumend just built; keeps
## the screenshot the README shows at docs/dashboard.png.
test-browser: build deps-browser
	cd tests/browser && LUMEND=$(abspath $(LUMEND)) PYTHONPATH=$(abspath clients/python) \
		DASHBOARD_SCREENSHOT=$(abspath docs/dashboard.png) $(PYTHON) -m pytest -q -p no:cacheprovider .

## check-units: install into a temporary prefix; the units as installed must pass systemd-analyze verify and
## rate 2.0 or below for exposure; uninstall must leave nothing behind.
check-units: build
	@scripts/check-units.sh

## bench: build in release mode and run the benchmarks (BENCH_ARGS="--quick --only writes" narrows them).
bench: deps
	$(SWIFT) build -c release --product lumend
	$(SWIFT) build -c release --product lumen-bench
	$(BUILD_DIR)/release/lumen-bench $(BENCH_ARGS)

## completions: write the shell completion scripts lumend and lumenctl print into completions/.
completions: build
	@for shell in bash zsh fish; do \
		$(BUILD_DIR)/debug/lumenctl completion $$shell > completions/lumenctl.$$shell; \
		$(BUILD_DIR)/debug/lumend --completion $$shell > completions/lumend.$$shell; \
	done

## man: build the manual pages (man/*.scd, with scdoc, their paths filled in for PREFIX) into .build/man.
man: deps
	@mkdir -p $(BUILD_DIR)/man
	@for page in $(MANPAGES); do \
		sed -e 's|@docdir@|$(DOCDIR)|g' -e 's|@datadir@|$(DATADIR)|g' man/$$page.scd | scdoc > $(BUILD_DIR)/man/$$page; \
	done

## install: install lumend and lumenctl (one binary, lumen, which runs as the one it is called by: lumenctl is
## a link to lumend), the units (their paths filled in for PREFIX), the sysusers.d file for
## group lumen, completions, manual pages, docs and fixtures under $(DESTDIR)$(PREFIX). uninstall removes
## exactly that.
## release: build what make install puts in place, as yourself (make install as root then only copies it).
release:
	$(SWIFT) build -c $(CONFIG) $(SWIFT_BUILD_FLAGS) --product lumen

install: man
	@# Brought up to date where the toolchain is found; under sudo, whose PATH may not find it, what make release
	@# built is installed.
	@if command -v $(SWIFT) >/dev/null; then $(SWIFT) build -c $(CONFIG) $(SWIFT_BUILD_FLAGS) --product lumen; \
	elif [ ! -x $(BINARIES)/lumen ]; then echo "no $(SWIFT) on PATH: run make release first, as yourself"; exit 1; fi
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(USERUNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(DATADIR)/lumen/fixtures $(DESTDIR)$(DATADIR)/bash-completion/completions \
		$(DESTDIR)$(DATADIR)/zsh/vendor-completions $(DESTDIR)$(DATADIR)/fish/vendor_completions.d
	install -m 0755 $(BINARIES)/lumen $(DESTDIR)$(BINDIR)/lumend
	ln -sf lumend $(DESTDIR)$(BINDIR)/lumenctl
	@for unit in systemd/*.service systemd/*.socket; do \
		sed -e 's|@bindir@|$(BINDIR)|g' -e 's|@docdir@|$(DOCDIR)|g' $$unit > $(DESTDIR)$(UNITDIR)/$$(basename $$unit); \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$(basename $$unit); \
	done
	@for unit in systemd/user/*; do \
		sed -e 's|@bindir@|$(BINDIR)|g' -e 's|@docdir@|$(DOCDIR)|g' $$unit > $(DESTDIR)$(USERUNITDIR)/$$(basename $$unit); \
		chmod 0644 $(DESTDIR)$(USERUNITDIR)/$$(basename $$unit); \
	done
	install -m 0644 systemd/lumen.sysusers $(DESTDIR)$(SYSUSERSDIR)/lumen.conf
	@for page in $(MANPAGES); do \
		section=$${page##*.}; install -d $(DESTDIR)$(MANDIR)/man$$section; \
		gzip -9n < $(BUILD_DIR)/man/$$page > $(DESTDIR)$(MANDIR)/man$$section/$$page.gz; \
		chmod 0644 $(DESTDIR)$(MANDIR)/man$$section/$$page.gz; \
	done
	install -m 0644 README.md docs/*.md docs/*.png $(DESTDIR)$(DOCDIR)/
	install -d $(DESTDIR)$(DOCDIR)/examples
	sed -e 's|@bindir@|$(BINDIR)|g' systemd/examples/lumend-lifx.conf > $(DESTDIR)$(DOCDIR)/examples/lumend-lifx.conf
	chmod 0644 $(DESTDIR)$(DOCDIR)/examples/lumend-lifx.conf
	install -m 0644 fixtures/*.json $(DESTDIR)$(DATADIR)/lumen/fixtures/
	install -m 0644 completions/lumenctl.bash $(DESTDIR)$(DATADIR)/bash-completion/completions/lumenctl
	install -m 0644 completions/lumend.bash $(DESTDIR)$(DATADIR)/bash-completion/completions/lumend
	install -m 0644 completions/lumenctl.zsh $(DESTDIR)$(DATADIR)/zsh/vendor-completions/_lumenctl
	install -m 0644 completions/lumend.zsh $(DESTDIR)$(DATADIR)/zsh/vendor-completions/_lumend
	install -m 0644 completions/lumenctl.fish completions/lumend.fish $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/
	install -d $(DESTDIR)$(PYTHONDIR)/lumen $(DESTDIR)$(PYTHONDIR)/lumen_client-0.1.0.dist-info
	install -m 0644 clients/python/lumen/*.py $(DESTDIR)$(PYTHONDIR)/lumen/
	printf 'Metadata-Version: 2.1\nName: lumen-client\nVersion: 0.1.0\nSummary: Python client for lumend, and a pytest plugin\n' \
		> $(DESTDIR)$(PYTHONDIR)/lumen_client-0.1.0.dist-info/METADATA
	printf '[pytest11]\nlumen = lumen.pytest_plugin\n' > $(DESTDIR)$(PYTHONDIR)/lumen_client-0.1.0.dist-info/entry_points.txt
	printf 'lumen\n' > $(DESTDIR)$(PYTHONDIR)/lumen_client-0.1.0.dist-info/top_level.txt
	chmod 0644 $(DESTDIR)$(PYTHONDIR)/lumen_client-0.1.0.dist-info/*

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/lumend $(DESTDIR)$(BINDIR)/lumenctl
	@for unit in systemd/*.service systemd/*.socket; do rm -f $(DESTDIR)$(UNITDIR)/$$(basename $$unit); done
	@for unit in systemd/user/*; do rm -f $(DESTDIR)$(USERUNITDIR)/$$(basename $$unit); done
	rm -f $(DESTDIR)$(SYSUSERSDIR)/lumen.conf
	@for page in $(MANPAGES); do rm -f $(DESTDIR)$(MANDIR)/man$${page##*.}/$$page.gz; done
	rm -rf $(DESTDIR)$(DOCDIR) $(DESTDIR)$(DATADIR)/lumen
	rm -f $(DESTDIR)$(DATADIR)/bash-completion/completions/lumenctl $(DESTDIR)$(DATADIR)/bash-completion/completions/lumend
	rm -f $(DESTDIR)$(DATADIR)/zsh/vendor-completions/_lumenctl $(DESTDIR)$(DATADIR)/zsh/vendor-completions/_lumend
	rm -f $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/lumenctl.fish $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/lumend.fish
	rm -rf $(DESTDIR)$(PYTHONDIR)/lumen $(DESTDIR)$(PYTHONDIR)/lumen_client-0.1.0.dist-info

## deb: build a Debian package of lumen (the Swift runtime linked in, so it needs only Debian's libraries)
## into .build/, and check it with lintian.
deb: deps
	@scripts/make-deb.sh

## check-deb: build the package, install it with apt on a clean Debian 12 (mmdebstrap; a temporary root with
## dpkg where none can be made), and use it as a user would.
check-deb: deb
	@scripts/check-deb.sh

## fmt: format the sources with swift-format (.swift-format).
fmt:
	$(SWIFT) format --in-place --recursive --configuration .swift-format Package.swift Sources Tests

## lint: report formatting problems without changing anything.
lint:
	$(SWIFT) format lint --recursive --configuration .swift-format Package.swift Sources Tests

## crashsim: the crash-point simulation at length (CRASHSIM_WORKLOADS=10000 workloads from CRASHSIM_SEED).
crashsim: deps
	$(SWIFT) build --build-tests
	LUMEN_CRASHSIM_WORKLOADS=$(CRASHSIM_WORKLOADS) LUMEN_CRASHSIM_SEED=$(CRASHSIM_SEED) \
	  $(SWIFT) test --skip-build --filter CrashSimulationTests

## lifecycle: SIGTERM and SIGINT at every moment from start-up to well after READY=1, LIFECYCLE_ROUNDS times.
lifecycle: deps
	$(SWIFT) build --build-tests
	LUMEN_LIFECYCLE_ROUNDS=$(LIFECYCLE_ROUNDS) $(SWIFT) test --skip-build --filter StopSignalTests

## hostile: the hostile-client suites (the socket, HTTP, LIFX) against a release lumend, also holding the good client's p99 during the attack to 3× its p99 before.
hostile: deps
	$(SWIFT) build --build-tests
	$(SWIFT) build -c release --product lumend
	LUMEN_LUMEND_BINARY=$(CURDIR)/.build/release/lumend LUMEN_HOSTILE_STRICT=1 \
	  $(SWIFT) test --skip-build --filter 'HostileLoadTests|HostileHTTPTests|HostileLIFXTests'

## soak: a mixed load with faults and kill -9 restarts for SOAK_MINUTES, checking every acknowledged write.
soak: deps
	$(SWIFT) build --build-tests
	LUMEN_SOAK_MINUTES=$(SOAK_MINUTES) $(SWIFT) test --skip-build --filter SoakTests

## sanitize: every test under AddressSanitizer, then under ThreadSanitizer, one test at a time (sanitizers slow
## everything several times over, and tests that drive many sockets at once then starve each other) and with
## shorter simulations. Every lock is a pthread mutex (Locked), which ThreadSanitizer sees, so nothing is
## suppressed: Tests/Sanitizers/tsan.supp takes only what the toolchain itself needs, each with the reason. Each
## build starts clean: an incremental one over a change to a stored type's layout has given failures that were not
## in the code. Every process writes its reports to a file in SAN_REPORTS, and any file there fails the run: a
## lumend a test starts writes its stderr into the test's temporary directory, which goes with the test, so a
## report from a daemon whose exit the test never looks at would otherwise pass unseen.
SAN_REPORTS = $(abspath $(BUILD_DIR))/sanitizer-reports
# Prints the reports and fails when any process wrote one; otherwise exits with the test run's status.
SAN_CHECK = if ls $(SAN_REPORTS)/* >/dev/null 2>&1; then cat $(SAN_REPORTS)/*; \
	  echo "sanitizer reports in $(SAN_REPORTS)"; exit 1; fi; exit $$status
sanitize: deps
	rm -rf $(BUILD_DIR)/asan $(BUILD_DIR)/tsan $(SAN_REPORTS)
	mkdir -p $(SAN_REPORTS)
	$(SWIFT) build --build-tests --sanitize=address --build-path $(BUILD_DIR)/asan
	ASAN_OPTIONS=detect_leaks=0:log_path=$(SAN_REPORTS)/asan LUMEN_CRASHSIM_WORKLOADS=20 \
	  $(SWIFT) test --skip-build --no-parallel --sanitize=address --build-path $(BUILD_DIR)/asan; \
	  status=$$?; $(SAN_CHECK)
	$(SWIFT) build --build-tests --sanitize=thread --build-path $(BUILD_DIR)/tsan
	TSAN_OPTIONS="halt_on_error=1 suppressions=$(CURDIR)/Tests/Sanitizers/tsan.supp log_path=$(SAN_REPORTS)/tsan" \
	  LUMEN_CRASHSIM_WORKLOADS=20 \
	  $(SWIFT) test --skip-build --no-parallel --sanitize=thread --build-path $(BUILD_DIR)/tsan; \
	  status=$$?; $(SAN_CHECK)

## fuzz: libFuzzer with AddressSanitizer on each target of FUZZ_TARGETS (the loaders, the JSON-RPC reader, the
## fronts) until FUZZ_SECONDS or FUZZ_RUNS inputs, whichever comes first, from FUZZ_SEED (0: a random one); crash
## inputs land in Tests/Fuzz/crashes (named after their target), which make test replays.
fuzz: deps
	$(SWIFT) build -c release --product lumen-fuzz --build-path $(FUZZ_BUILD) \
	  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DLUMEN_FUZZING -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld
	@mkdir -p Tests/Fuzz/crashes
	@for target in $(FUZZ_TARGETS); do \
	  work=$(FUZZ_BUILD)/corpus/$$target; mkdir -p $$work; cp Tests/Fuzz/corpus/$$target/* $$work/; \
	  echo "fuzzing $$target: up to $(FUZZ_SECONDS) s"; \
	  LUMEN_FUZZ_TARGET=$$target SWIFT_BACKTRACE=enable=no $(FUZZ_BUILD)/release/lumen-fuzz \
	    -max_total_time=$(FUZZ_SECONDS) -runs=$(FUZZ_RUNS) -seed=$(FUZZ_SEED) -report_slow_units=100000 -print_final_stats=1 -artifact_prefix=Tests/Fuzz/crashes/$$target- \
	    $$work > $(FUZZ_BUILD)/$$target.log 2>&1; status=$$?; \
	  grep -E "^(stat::number_of_executed_units|stat::new_units_added|==[0-9]+==ERROR|SUMMARY)" $(FUZZ_BUILD)/$$target.log; \
	  if [ $$status -ne 0 ]; then echo "lumen-fuzz $$target failed: see $(FUZZ_BUILD)/$$target.log and Tests/Fuzz/crashes"; exit 1; fi; \
	done

clean:
	rm -rf $(BUILD_DIR)
