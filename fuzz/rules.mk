# fuzz: libFuzzer targets for every parser of untrusted input (issue 7).
# The core is rebuilt with clang + -fsanitize=fuzzer-no-link,address,
# undefined; each target links it with its harness. Seed corpora are made
# at build time from the demo kit, fallback, scripts and config
# (fuzz/gen-seeds.py). `make test` fuzzes each target FUZZ_TEST_SECONDS
# and replays fuzz/regressions/; `make fuzz` fuzzes FUZZ_SECONDS each and
# keeps the grown corpus in $(B)/fuzz/work/.
FUZZ_CC := clang
FUZZ_SECONDS ?= 60
FUZZ_TEST_SECONDS ?= 10
FUZZ_TARGETS := kit payload plan elf inflate config ldscript mb2 sig fat ffs \
  linux ksyms
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all \
  -fno-omit-frame-pointer
FUZZ_CFLAGS := -O1 -g -std=gnu11 -Wall -Wextra -Werror -fno-strict-aliasing \
  -I linkkit -I tools $(FUZZ_SAN)
FUZZ_LK_OBJS := $(patsubst linkkit/%.c,$(B)/fuzz/lk/%.o,$(LINKKIT_SRCS))
FUZZ_LS_OBJS := $(patsubst tools/%.c,$(B)/fuzz/ls/%.o,$(LDSCRIPT_SRCS))
# The BIOS stage's file reads, built for the host (the FAT reader and
# the partition walker are linkkit/fs/, in FUZZ_LK_OBJS).
FUZZ_ST_OBJS := $(B)/fuzz/st/files.o
FUZZ_BINS := $(FUZZ_TARGETS:%=$(B)/fuzz/fuzz_%)
FUZZ_SEEDS := $(B)/fuzz/corpus/.stamp
FUZZ_SCRIPTS := test/demo/kernel.ld test/ldscript/bsd.ld \
  test/ldscript/linux.ld test/ldscript/diff/diff.ld

ALL += $(FUZZ_BINS) $(FUZZ_SEEDS) $(B)/fuzz/test-fuzz
TESTS += $(B)/fuzz/test-fuzz

$(B)/fuzz/lk/%.o: linkkit/%.c $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(B)/fuzz/ls/%.o: tools/%.c $(LDSCRIPT_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(B)/fuzz/st/%.o: stand/%.c stand/stand.h $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(B)/fuzz/fuzz_fat: fuzz/fuzz_fat.c fuzz/fz_host.h $(FUZZ_LK_OBJS) $(FUZZ_ST_OBJS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I stand -fsanitize=fuzzer $< $(FUZZ_LK_OBJS) $(FUZZ_ST_OBJS) -o $@

$(B)/fuzz/fuzz_ldscript: fuzz/fuzz_ldscript.c fuzz/fz_host.h $(FUZZ_LK_OBJS) $(FUZZ_LS_OBJS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_LK_OBJS) $(FUZZ_LS_OBJS) -o $@

$(B)/fuzz/fuzz_%: fuzz/fuzz_%.c fuzz/fz_host.h $(FUZZ_LK_OBJS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_LK_OBJS) -o $@

$(FUZZ_SEEDS): fuzz/gen-seeds.py fuzz/gen-fat-seeds.py fuzz/gen-ffs-seeds.py tools/mkimage.sh $(B)/tools/linkkit \
  $(B)/demo/kernel.kit $(B)/demo/fallback.elf test/qemu/relink.cfg $(FUZZ_SCRIPTS) \
  fuzz/gen-linux-seeds.py fuzz/gen-ksyms-seeds.py $(LINUX_CORPUS_STAMP)
	rm -rf $(B)/fuzz/corpus && mkdir -p $(B)/fuzz/corpus
	fuzz/gen-seeds.py $(B)/fuzz/corpus $(B)/demo/kernel.kit $(B)/demo/fallback.elf test/qemu/relink.cfg $(FUZZ_SCRIPTS)
	fuzz/gen-fat-seeds.py $(B)/fuzz/corpus tools/mkimage.sh $(B)/demo/kernel.kit test/qemu/relink.cfg $(B)/tools/linkkit
	fuzz/gen-ffs-seeds.py $(B)/fuzz/corpus
	fuzz/gen-linux-seeds.py $(B)/fuzz/corpus $(LINUX_CORPUS)/arch/x86/boot/bzImage $(LINUX_CORPUS)/vmlinux
	fuzz/gen-ksyms-seeds.py $(B)/fuzz/corpus
	touch $@

$(B)/fuzz/test-fuzz: fuzz/run-fuzz.sh $(FUZZ_BINS) $(FUZZ_SEEDS)
	@mkdir -p $(@D)
	{ echo '#!/bin/sh'; \
	  echo 'exec $(CURDIR)/fuzz/run-fuzz.sh $(abspath $(B)) $(FUZZ_TEST_SECONDS) $(FUZZ_TARGETS)'; } >$@
	chmod +x $@

.PHONY: fuzz
fuzz: $(FUZZ_BINS) $(FUZZ_SEEDS)
	@fuzz/run-fuzz.sh $(abspath $(B)) $(FUZZ_SECONDS) --keep $(FUZZ_TARGETS)
