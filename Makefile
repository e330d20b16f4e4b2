# SPDX-License-Identifier: MIT
# The two commands of the README. Both install what is missing first
# (scripts/deps), then use Meson + Ninja in build/.
.PHONY: all run test deps build clean cross test-cross

all: build

deps:
	@scripts/deps

build: deps
	@if [ -f build/build.ninja ]; then :; else meson setup build; fi
	@meson compile -C build

# The main job: the whole-box profile in about a minute, after the box itself.
run: build
	./build/engpass info --no-calibrate --no-history
	@echo
	./build/engpass quick

test:
	@scripts/test

# Cross builds (mipsel, armhf, aarch64, static mipsel on musl) and their
# tests under qemu; see docs/embedded.md.
cross:
	@scripts/cross

test-cross:
	@scripts/cross --test

# Every parser of outside input under libFuzzer, FUZZ_SECONDS (default 60) each.
.PHONY: fuzz
fuzz: deps
	@scripts/fuzz

clean:
	rm -rf build build-asan build-cross-* build-footprint
