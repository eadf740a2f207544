# test/qemu/leak.mk: the leak proof (issue 7; included by test/qemu/rules.mk).
# leak-scan repeats a debug_seed link on the host with the core's own code
# and searches a guest RAM dump for its secrets and for the leak-test
# stages' canaries; the wrappers boot each firmware once plus its controls
# (test/qemu/leak-tests.sh, docs/CONVENTIONS.md "Leak test").
LEAK_SCAN := $(QEMU_T)/leak-scan
$(LEAK_SCAN): test/qemu/leak-scan.c test/qemu/leak-canary.h $(LINKKIT_HDRS) $(LINKKIT_LIB)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -I linkkit -o $@ test/qemu/leak-scan.c $(LINKKIT_LIB)
ALL += $(LEAK_SCAN)

LEAK_DEPS := test/qemu/leak-run.sh test/qemu/leak-tests.sh \
  test/qemu/leak-gdb.py test/qemu/kit-overflow.py test/qemu/kit-early.py \
  test/qemu/kitedit.py $(LEAK_SCAN) \
  $(B)/demo/kernel.kit $(B)/demo/fallback.elf $(B)/stand/testkern.elf \
  $(B)/obsd/kernel.kit $(B)/obsd/fallback.elf test/obsd/relink.cfg \
  $(B)/stand/mbr.bin $(B)/stand/stage-leaktest.elf $(B)/stand/stage-leaktest.bin \
  $(B)/stand/stage-leaktest-neg.bin $(B)/efi/BOOTX64-leaktest.EFI \
  $(B)/efi/BOOTX64-leaktest-neg.EFI
$(QEMU_T)/test-leak-uefi: $(LEAK_DEPS)
	$(call qemu_wrapper,test/qemu/leak-run.sh,uefi)
$(QEMU_T)/test-leak-bios: $(LEAK_DEPS)
	$(call qemu_wrapper,test/qemu/leak-run.sh,bios)
TESTS += $(QEMU_T)/test-leak-uefi $(QEMU_T)/test-leak-bios
