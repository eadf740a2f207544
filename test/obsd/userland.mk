# test/obsd/userland: our own static /sbin/init for OpenBSD/amd64 (clang's
# OpenBSD target, no libc, raw system calls), the FFS1 and FFS2 root
# images holding it (test/obsd/mkroot.sh, Debian's makefs), and the boot
# test that runs it under the relinked real GENERIC kernel
# (test/obsd/test-userland.sh; the corpus from test/corpora/rules.mk).
OBSD_UL := $(B)/obsd-userland
OBSD_UL_CC := clang --target=x86_64-unknown-openbsd7.3
# The OpenBSD target turns the stack protector on (no libc to back it).
OBSD_UL_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -fno-stack-protector \
  -ffreestanding -fno-builtin -nostdlib -static -fno-pic -fno-pie

$(OBSD_UL)/%.o: test/obsd/userland/%.c
	@mkdir -p $(@D)
	$(OBSD_UL_CC) $(OBSD_UL_CFLAGS) -c $< -o $@

$(OBSD_UL)/%.o: test/obsd/userland/%.S
	@mkdir -p $(@D)
	$(OBSD_UL_CC) $(OBSD_UL_CFLAGS) -c $< -o $@

# ET_EXEC without PT_INTERP: exec lets its text make system calls as is.
$(OBSD_UL)/init: $(OBSD_UL)/start.o $(OBSD_UL)/init.o
	ld.lld -static -nostdlib -e _start -o $@ $^

# Roots for the real GENERIC boots: init, the kernel's link directory
# under the name its kit records (the stages refuse a kit that does not
# match it: a stale kit) and ld.lld's link of it as /bsd. Empty files when
# there is no corpus (kit.done says absent; the test skips).
$(OBSD_UL)/root-real-ffs%.img: test/obsd/mkroot.sh $(OBSD_UL)/init $(OBSD_REAL)/kit.done
	@mkdir -p $(@D)
	@if [ "$$(cat $(OBSD_REAL)/kit.done)" = ok ]; then \
	  echo "test/obsd/mkroot.sh $@ $* ..."; \
	  test/obsd/mkroot.sh $@ $* --init $(OBSD_UL)/init --bsd $(OBSD_REAL)/bsd.lld \
	    --relink-dir $(OBSD_CORPUS) $(OBSD_CORPUS_NAME); \
	else : >$@; fi

OBSD_UL_ROOTS := $(OBSD_UL)/root-real-ffs1.img $(OBSD_UL)/root-real-ffs2.img
$(OBSD_UL)/test-userland: test/obsd/test-userland.sh test/qemu/boot.sh test/qemu/lib.sh \
  tools/mkimage.sh $(OBSD_REAL)/kit.done $(OBSD_UL_ROOTS) \
  $(B)/efi/BOOTX64.EFI $(B)/stand/mbr.bin $(B)/stand/stage.bin
	@mkdir -p $(@D)
	@printf '#!/bin/sh\ncd "%s" && B="%s" exec test/obsd/test-userland.sh\n' \
	  '$(CURDIR)' '$(abspath $(B))' >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@

ALL += $(OBSD_UL)/init $(OBSD_UL_ROOTS) $(OBSD_UL)/test-userland
TESTS += $(OBSD_UL)/test-userland
