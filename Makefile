# relinkboot: one top-level Makefile. Each directory owns a rules.mk that
# appends to ALL (build products), TESTS (test programs, see test/run-tests)
# and BENCH. `make test` runs every test; `make run` boots the demo kernel.
.DEFAULT_GOAL := all
SHELL := /bin/bash

B ?= build
FIRMWARE ?= uefi
ALL :=
TESTS :=
SLOW_TESTS :=
BENCH :=

include mk/common.mk
include linkkit/rules.mk
include tools/rules.mk
include test/rules.mk
include test/fs/rules.mk
include test/demo/rules.mk
include test/boot/rules.mk
include efi/rules.mk
include stand/rules.mk
include tools/mkimage.mk
include test/qemu/rules.mk
include test/corpora/rules.mk
include test/linux/rules.mk
include test/obsd/rules.mk
include test/obsd/lld-real.mk
include test/obsd/userland.mk
include bench/rules.mk
include fuzz/rules.mk
include mk/install.mk
include test/install/rules.mk

.PHONY: all deps test run bench clean format install uninstall deb
all: deps-ok $(ALL)

deps:
	@mk/deps.sh
deps-ok: deps

test: deps-ok $(ALL) $(TESTS)
	@TEST_LOG_DIR=$(B)/test-logs TEST_NOTES="$$(test/run-i386 --describe $(I386_MODE))" \
	  test/run-tests $(TESTS)

# Boots the demo image in QEMU, serial console here (FIRMWARE=bios: SeaBIOS).
run: deps-ok $(ALL)
	$(RUN_CMD)

bench: deps-ok $(ALL) $(BENCH)
	@set -e; for b in $(BENCH); do echo "== $$b"; $$b; done

clean:
	rm -rf $(B)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')
