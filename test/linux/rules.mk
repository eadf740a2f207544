# test/linux: the Linux boot protocol (issue 26). test_linux checks
# linkkit/proto/linux.c against the corpus' real bzImage and vmlinux
# (skips with one line without the corpus).
LINUX_UNIT := $(B)/test/linux/test_linux
ALL += $(LINUX_UNIT)
TESTS += $(LINUX_UNIT)

$(LINUX_UNIT): test/linux/test_linux.c test/unit/tap.h $(LINKKIT_ASAN_LIB) $(LINKKIT_HDRS) $(LINUX_CORPUS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) $(ASAN_FLAGS) -DLINUX_CORPUS='"$(abspath $(LINUX_CORPUS))"' \
	  $< $(LINKKIT_ASAN_LIB) -lz -o $@

# The boots (test-boot.sh): both stages, both firmwares, the SMM and
# Secure Boot builds of OVMF, and the refusals; the corpus relinked at
# boot (issue 27, $(LINUX_REAL)'s kit). LINUX_TESTS=REGEX picks.
LINUX_BOOT := $(B)/test/linux/test-boot
ALL += $(LINUX_BOOT)
TESTS += $(LINUX_BOOT)
$(LINUX_BOOT): test/linux/test-boot.sh test/linux/init.sh test/linux/mkinitramfs.py \
  test/linux/efault.c test/linux/kallsyms-list.py $(LINUX_REAL)/kit.done \
  $(LINUX_CORPUS_STAMP) $(B)/efi/BOOTX64.EFI $(B)/stand/mbr.bin $(B)/stand/stage.bin \
  $(B)/demo/kernel.kit $(B)/demo/fallback.elf $(B)/demo/objects.txt $(B)/tools/linkkit \
  tools/relinkboot-install
	@mkdir -p $(@D)
	{ echo '#!/bin/sh'; echo 'exec $(CURDIR)/test/linux/test-boot.sh $(abspath $(B)) "$$@"'; } >$@
	chmod +x $@

# Issue 27: linkkit/linux_sort.c (scripts/sorttable's ORC and __ex_table
# sorts) on synthetic tables, and the differential test of `create
# --linux` (test-diff.sh: the corpus kit linked with 3 seeds against ld.bfd
# and the corpus' sorttable, every loaded section; skips without the corpus).
LINUX_SORT_UNIT := $(B)/test/linux/test_linux_sort
ALL += $(LINUX_SORT_UNIT)
TESTS += $(LINUX_SORT_UNIT)
$(LINUX_SORT_UNIT): test/linux/test_linux_sort.c test/unit/tap.h $(LINKKIT_ASAN_LIB) $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) $(ASAN_FLAGS) $< $(LINKKIT_ASAN_LIB) -o $@

LINUX_DIFF := $(B)/test/linux/test-diff
ALL += $(LINUX_DIFF)
TESTS += $(LINUX_DIFF)
$(LINUX_DIFF): test/linux/test-diff.sh test/linux/seccmp.py test/linux/keeporder.py \
  $(LINUX_CORPUS_STAMP) $(B)/tools/linkkit
	@mkdir -p $(@D)
	{ echo '#!/bin/sh'; echo 'exec $(CURDIR)/test/linux/test-diff.sh $(abspath $(B)) "$$@"'; } >$@
	chmod +x $@

# Issue 27: the boot-time kallsyms (linkkit/linux_kallsyms.c, host half
# tools/kbkallsyms.c) against the corpus' own scripts/kallsyms on the
# build's layout and on shuffled ones, refusals and broken blobs (skips
# with one line without the corpus; needs gcc, ld, objcopy, nm, gzip).
LINUX_KALLSYMS_UNIT := $(B)/test/linux/test_kallsyms
ALL += $(LINUX_KALLSYMS_UNIT)
TESTS += $(LINUX_KALLSYMS_UNIT)
$(LINUX_KALLSYMS_UNIT): test/linux/test_kallsyms.c tools/kbkallsyms.c tools/kbkallsyms.h \
  test/unit/tap.h $(LINKKIT_ASAN_LIB) $(LINKKIT_HDRS) $(LINUX_CORPUS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) $(ASAN_FLAGS) -I tools \
	  -DLINUX_CORPUS='"$(abspath $(LINUX_CORPUS))"' \
	  $< tools/kbkallsyms.c $(LINKKIT_ASAN_LIB) -o $@

# `create --linux` on small synthetic trees: the inputs, the names, and
# each refusal (LTO, IBT, BTF, no modules, vmlinux.o, bad thin archives).
LINUX_CREATE := $(B)/test/linux/test-create
ALL += $(LINUX_CREATE)
TESTS += $(LINUX_CREATE)
$(LINUX_CREATE): test/linux/test-create.sh $(B)/tools/linkkit
	@mkdir -p $(@D)
	{ echo '#!/bin/sh'; echo 'exec $(CURDIR)/test/linux/test-create.sh $(abspath $(B)) "$$@"'; } >$@
	chmod +x $@
