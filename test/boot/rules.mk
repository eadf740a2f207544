# test/boot: the shared boot sequence (linkkit/boot/) against a fake stage
# table, on the host with ASan+UBSan: test_boot_seq KIT FALLBACK NONE.KIT.
BOOT_T := $(B)/test/boot

$(BOOT_T)/test_boot_seq.bin: test/boot/test_boot_seq.c test/unit/tap.h $(LINKKIT_ASAN_LIB) $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(ASAN_FLAGS) -I linkkit -I test/unit $< $(LINKKIT_ASAN_LIB) -o $@

# The demo kernel's kit with `protocol none` (no boot information).
$(BOOT_T)/none.kit: $(B)/tools/linkkit $(DEMO_OBJS) $(DEMO_LD) $(DEMO_POLICY)
	@mkdir -p $(@D)
	sed 's/^protocol multiboot2$$/protocol none/' $(DEMO_POLICY) >$(BOOT_T)/none.policy
	grep -q '^protocol none$$' $(BOOT_T)/none.policy
	$(B)/tools/linkkit create -o $@ -T $(DEMO_LD) -P $(BOOT_T)/none.policy $(DEMO_OBJS)

$(BOOT_T)/test_boot_seq: $(BOOT_T)/test_boot_seq.bin $(BOOT_T)/none.kit $(DEMO_D)/kernel.kit $(DEMO_D)/fallback.elf
	printf '#!/bin/sh\nexec %s %s %s %s\n' $(abspath $<) $(abspath $(DEMO_D)/kernel.kit) \
	  $(abspath $(DEMO_D)/fallback.elf) $(abspath $(BOOT_T)/none.kit) >$@
	chmod +x $@

ALL += $(BOOT_T)/test_boot_seq
TESTS += $(BOOT_T)/test_boot_seq
