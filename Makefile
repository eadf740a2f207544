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
include test/demo/rules.mk
include efi/rules.mk
include stand/rules.mk
include test/qemu/rules.mk

.PHONY: all deps test run bench clean format
all: deps-ok $(ALL)

deps:
	@mk/deps.sh
deps-ok: deps

test: deps-ok $(ALL) $(TESTS)
	@test/run-tests $(TESTS)

clean:
	rm -rf $(B)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')
