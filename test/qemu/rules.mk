# test/qemu: build rules (owned by the test/qemu work). Needs tools/mkimage.mk
# (included before this file). Each test program is a small wrapper in
# $(B)/test/qemu that runs a script from here with B set; the wrappers
# depend on the products so `make test` builds them first.
QEMU_T := $(B)/test/qemu
QEMU_TESTS := $(QEMU_T)/test-mkimage $(QEMU_T)/test-runner $(QEMU_T)/test-uefi \
  $(QEMU_T)/test-bios
TESTS += $(QEMU_TESTS)

# Products the boot tests use, when some rule registers them.
QEMU_PRODUCTS := $(filter $(IMAGE) $(B)/tools/linkkit $(B)/demo/objects.txt \
  $(B)/demo/kernel.kit $(B)/demo/fallback.elf $(B)/stand/stage.bin,$(ALL))

# qemu_wrapper SCRIPT ARGS: writes the wrapper $@ running SCRIPT.
define qemu_wrapper
	@mkdir -p $(@D)
	@printf '#!/bin/sh\ncd "%s" && B="%s" exec %s %s\n' '$(CURDIR)' \
	  '$(abspath $(B))' '$(1)' '$(2)' >$@.tmp
	@chmod +x $@.tmp && mv $@.tmp $@
endef

$(QEMU_T)/test-mkimage: test/qemu/test-mkimage.sh $(MKIMAGE)
	$(call qemu_wrapper,test/qemu/test-mkimage.sh,)
$(QEMU_T)/test-runner: test/qemu/test-runner.sh test/qemu/boot.sh
	$(call qemu_wrapper,test/qemu/test-runner.sh,)
$(QEMU_T)/test-uefi: test/qemu/boot-tests.sh test/qemu/boot.sh \
  test/qemu/kit-undefine.py test/qemu/kitedit.py $(QEMU_PRODUCTS)
	$(call qemu_wrapper,test/qemu/boot-tests.sh,uefi)
$(QEMU_T)/test-bios: test/qemu/boot-tests.sh test/qemu/boot.sh \
  test/qemu/kit-undefine.py test/qemu/kitedit.py $(QEMU_PRODUCTS)
	$(call qemu_wrapper,test/qemu/boot-tests.sh,bios)

# Signed boots (issue 7): signed kit, unsigned kit, bad signature, refused
# fallback, under each firmware (4 boots each, two at a time).
QEMU_SIG_TESTS := $(QEMU_T)/test-sig-uefi $(QEMU_T)/test-sig-bios
TESTS += $(QEMU_SIG_TESTS)
$(QEMU_T)/test-sig-uefi: test/qemu/sig-tests.sh test/qemu/boot.sh $(QEMU_PRODUCTS)
	$(call qemu_wrapper,test/qemu/sig-tests.sh,uefi)
$(QEMU_T)/test-sig-bios: test/qemu/sig-tests.sh test/qemu/boot.sh $(QEMU_PRODUCTS)
	$(call qemu_wrapper,test/qemu/sig-tests.sh,bios)

# Hostile kits (issue 7): truncated, huge header sizes, flipped zlib bit,
# bad table offset, fuzzed payloads -> fallback with a reason, never a hang.
TESTS += $(QEMU_T)/test-hostile
$(QEMU_T)/test-hostile: test/qemu/hostile-tests.sh test/qemu/kit-hostile.py test/qemu/kitedit.py \
  test/qemu/kit-gaps.py test/qemu/boot.sh $(QEMU_PRODUCTS)
	$(call qemu_wrapper,test/qemu/hostile-tests.sh,)

# The boot prompt (timeout = N): f boots the fallback, other keys open the
# boot> prompt (boot, a bad command, boot fallback), no key the relinked
# kernel after the timeout (7 boots, two at a time).
TESTS += $(QEMU_T)/test-prompt
$(QEMU_T)/test-prompt: test/qemu/prompt-tests.sh test/qemu/serial-send.py \
  test/qemu/boot.sh $(QEMU_PRODUCTS)
	$(call qemu_wrapper,test/qemu/prompt-tests.sh,)

# UEFI Secure Boot (issue 17): the snakeoil Secure Boot firmware (an SMM
# build: ACPI NVS over 16 MiB), a stage with a built-in kit key signed by
# `make sign`, refusals by the firmware and by the stage (9 boots, two at
# a time, plus a private build of the keyed stage).
TESTS += $(QEMU_T)/test-sb
$(QEMU_T)/test-sb: test/qemu/sb-tests.sh test/qemu/boot.sh $(QEMU_PRODUCTS) \
  $(B)/efi/BOOTX64.EFI
	$(call qemu_wrapper,test/qemu/sb-tests.sh,)
include test/qemu/leak.mk
