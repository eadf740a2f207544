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
# Secure Boot builds of OVMF, and the refusals. LINUX_TESTS=REGEX picks.
LINUX_BOOT := $(B)/test/linux/test-boot
ALL += $(LINUX_BOOT)
TESTS += $(LINUX_BOOT)
$(LINUX_BOOT): test/linux/test-boot.sh test/linux/init.sh test/linux/mkinitramfs.py \
  $(LINUX_CORPUS_STAMP) $(B)/efi/BOOTX64.EFI $(B)/stand/mbr.bin $(B)/stand/stage.bin \
  $(B)/demo/kernel.kit $(B)/demo/fallback.elf $(B)/demo/objects.txt $(B)/tools/linkkit \
  tools/relinkboot-install
	@mkdir -p $(@D)
	{ echo '#!/bin/sh'; echo 'exec $(CURDIR)/test/linux/test-boot.sh $(abspath $(B)) "$$@"'; } >$@
	chmod +x $@
