# SPDX-License-Identifier: MIT
# The two commands of the README, with Meson + Ninja in build/. Each installs
# the Debian packages it needs when they are missing (scripts/deps, root):
# `make run` the build set only, `make test` (and `make fuzz`) the test set
# too. `make` and `make build` install nothing: they stop and name what is
# missing.
.PHONY: all run test deps build clean cross test-cross compare deb

all: build

# Everything `make test` needs, without running it.
deps:
	@scripts/deps test

# `scripts/deps $(DEPS)` checks or installs the packages. `make run` sets DEPS
# to install the build set; as a target-specific variable it applies to this
# prerequisite too.
DEPS = --check build
build:
	@scripts/deps $(DEPS)
	@if [ -f build/build.ninja ]; then :; else meson setup build; fi
	@meson compile -C build

# The main job: the whole-box profile in about a minute, after the box itself.
# The HTML report goes under reports/ of the working directory (ignored by
# git), never into the checkout's top level; quick prints its path.
REPORTS = reports
run: DEPS = build
run: build
	./build/engpass info --no-calibrate --no-history
	@echo
	@mkdir -p $(REPORTS)
	./build/engpass quick --report "$(REPORTS)/engpass-quick-$$(date -u +%Y%m%dT%H%M%SZ).html"

# scripts/test installs the test set itself (scripts/deps test).
test:
	@scripts/test

# The Debian package, built out of tree in build-deb/ (docs/build.md). Not
# part of make test: it takes 3.5-6 minutes on the 2-core VM.
deb:
	@scripts/deb

# Cross builds (mipsel, armhf, aarch64, static mipsel on musl) and their
# tests under qemu; see docs/embedded.md.
cross:
	@scripts/cross

test-cross:
	@scripts/cross --test

# Every compare/ script against its anchor tool, bounded to 15 minutes, ending
# with the table of targets (ratio, 95 % interval, met or not); the full log
# goes under reports/. FOOTPRINT=1 adds compare/footprint (cross builds, longer).
compare: DEPS = test
compare: build
	@scripts/compare

# Every parser of outside input under libFuzzer, FUZZ_SECONDS (default 60) each.
.PHONY: fuzz
fuzz: deps
	@scripts/fuzz

clean:
	rm -rf build build-asan build-cross-* build-footprint build-deb
