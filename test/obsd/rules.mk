# test/obsd: a small kernel speaking the OpenBSD amd64 boot protocol, laid
# out as an OpenBSD kernel compile directory ($(B)/obsd/compile: objects,
# a config(8)-shaped Makefile, ld.script, plus a gap.o that must be left
# out), its kit made by `linkkit create --openbsd`, a disk image, the boot
# test under OVMF and SeaBIOS, and the differential test against ld.lld.
OBSD_OBJ_NAMES := main cons checks rand sects syms
OBSD_EXTRA := param ioconf vers swapgeneric
OBSD_D := $(B)/obsd
OBSD_C := $(OBSD_D)/compile
OBSD_ALLOBJ := $(patsubst %,$(OBSD_C)/%.o,locore0 $(OBSD_OBJ_NAMES) $(OBSD_EXTRA) gap)
# No SHF_MERGE strings: ld.lld merges them its own way (docs/kit-format.md).
OBSD_CFLAGS := -std=gnu11 -O2 -ffreestanding -fno-builtin -nostdlib \
  -mcmodel=kernel -mno-red-zone -fno-pic -fno-pie -mno-sse -mno-mmx \
  -mno-80387 -fno-tree-loop-distribute-patterns -fno-strict-aliasing \
  -fno-stack-protector -fno-asynchronous-unwind-tables -fno-merge-constants \
  -fno-common -Wall -Wextra -Werror

$(OBSD_C)/%.o: test/obsd/%.c test/obsd/obsd.h
	@mkdir -p $(@D)
	$(CC) $(OBSD_CFLAGS) -c $< -o $@

$(OBSD_C)/%.o: test/obsd/%.S
	@mkdir -p $(@D)
	$(CC) -c -fno-pic -fno-pie -Wa,--fatal-warnings $< -o $@

$(OBSD_D)/nosects.o: test/obsd/nosects.c test/obsd/obsd.h
	$(CC) $(OBSD_CFLAGS) -c $< -o $@

# cons.c with an IBT .note.gnu.property, for test-lld.sh (lld drops it).
$(OBSD_D)/cons-cet.o: test/obsd/cons.c test/obsd/obsd.h
	$(CC) $(OBSD_CFLAGS) -fcf-protection=branch -c $< -o $@

$(OBSD_C)/ld.script: test/obsd/ld.script
	@mkdir -p $(@D)
	cp $< $@

# The OBJS line as config(8) writes it (tab, backslash continuations);
# locore0.o and gap.o are SYSTEM_HEAD, not in OBJS.
$(OBSD_C)/Makefile: test/obsd/rules.mk
	@mkdir -p $(@D)
	printf '# Generated for the relinkboot test kernel, shaped like config(8)s.\n\nOBJS=\tmain.o cons.o \\\n\tchecks.o rand.o \\\n\tsects.o syms.o\n\nSYSTEM_HEAD=\tlocore0.o gap.o\n\nall: bsd\n\nbsd: $${SYSTEM_DEP} swapgeneric.o vers.o\n\t$${SYSTEM_LD_HEAD}\n\t$${SYSTEM_LD} swapgeneric.o\n\t$${SYSTEM_LD_TAIL}\n\nbsd.gdb: swapbsd.o\n\t$${SYSTEM_LD} swapbsd.o\n' >$@

$(OBSD_D)/kernel.kit: $(B)/tools/linkkit $(OBSD_ALLOBJ) $(OBSD_C)/ld.script $(OBSD_C)/Makefile
	$(B)/tools/linkkit create --openbsd $(OBSD_C) -o $@

$(OBSD_D)/fallback.elf: $(B)/tools/linkkit $(OBSD_D)/kernel.kit
	$(B)/tools/linkkit link --random -o $@ $(OBSD_D)/kernel.kit

$(OBSD_D)/disk.img: tools/mkimage.sh test/obsd/relink.cfg $(B)/efi/BOOTX64.EFI \
  $(OBSD_D)/kernel.kit $(OBSD_D)/fallback.elf $(B)/stand/mbr.bin $(B)/stand/stage.bin
	tools/mkimage.sh create -o $@ --efi $(B)/efi/BOOTX64.EFI \
	  --kit $(OBSD_D)/kernel.kit --fallback $(OBSD_D)/fallback.elf \
	  --cfg test/obsd/relink.cfg --mbr $(B)/stand/mbr.bin --stage $(B)/stand/stage.bin

$(OBSD_D)/test-obsd: test/obsd/test-boot.sh test/qemu/boot.sh tools/mkimage.sh $(OBSD_D)/disk.img
	@mkdir -p $(@D)
	@printf '#!/bin/sh\ncd "%s" && B="%s" exec test/obsd/test-boot.sh\n' \
	  '$(CURDIR)' '$(abspath $(B))' >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@

# The OpenBSD root at boot (issue 25): stale kit, /bsd, boot.conf,
# random.seed, gzip'd /bsd.rd on FFS roots (11 boots, mostly SeaBIOS).
$(OBSD_D)/test-stale: test/obsd/test-stale.sh test/obsd/mkroot.sh test/qemu/boot.sh tools/mkimage.sh \
  $(OBSD_D)/kernel.kit $(OBSD_D)/fallback.elf $(B)/efi/BOOTX64.EFI $(B)/stand/stage.bin $(B)/stand/mbr.bin
	@mkdir -p $(@D)
	@printf '#!/bin/sh\ncd "%s" && B="%s" exec test/obsd/test-stale.sh\n' \
	  '$(CURDIR)' '$(abspath $(B))' >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@
TESTS += $(OBSD_D)/test-stale

$(OBSD_D)/test-lld: test/obsd/test-lld.sh test/obsd/segcmp.py test/obsd/symcmp.py test/obsd/mkgap.py \
  $(OBSD_D)/kernel.kit $(OBSD_D)/nosects.o $(OBSD_D)/cons-cet.o test/obsd/policy
	@mkdir -p $(@D)
	@printf '#!/bin/sh\ncd "%s" && B="%s" exec test/obsd/test-lld.sh\n' \
	  '$(CURDIR)' '$(abspath $(B))' >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@

ALL += $(OBSD_ALLOBJ) $(OBSD_D)/kernel.kit $(OBSD_D)/fallback.elf \
  $(OBSD_D)/disk.img $(OBSD_D)/test-obsd $(OBSD_D)/test-lld
TESTS += $(OBSD_D)/test-lld $(OBSD_D)/test-obsd

# The real OpenBSD GENERIC kernel (test/corpora/rules.mk) booted under both
# firmwares: relinked, fallback, with and without a DUID, -smp 2.
$(OBSD_REAL)/test-real: test/obsd/test-real.sh test/qemu/boot.sh tools/mkimage.sh \
  $(OBSD_REAL)/kit.done $(B)/efi/BOOTX64.EFI $(B)/stand/mbr.bin $(B)/stand/stage.bin
	@mkdir -p $(@D)
	@printf '#!/bin/sh\ncd "%s" && B="%s" exec test/obsd/test-real.sh\n' \
	  '$(CURDIR)' '$(abspath $(B))' >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@
ALL += $(OBSD_REAL)/test-real
TESTS += $(OBSD_REAL)/test-real

# A stale kit never boots (issue 25), host side: the real GENERIC kit's
# record against the corpus and changed copies (`verify --against`).
$(OBSD_REAL)/test-prov: test/obsd/test-prov.sh $(OBSD_REAL)/kit.done $(B)/tools/linkkit
	@mkdir -p $(@D)
	@printf '#!/bin/sh\ncd "%s" && B="%s" exec test/obsd/test-prov.sh\n' \
	  '$(CURDIR)' '$(abspath $(B))' >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@
ALL += $(OBSD_REAL)/test-prov
TESTS += $(OBSD_REAL)/test-prov
