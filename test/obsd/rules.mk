# test/obsd: a small kernel speaking the OpenBSD amd64 boot protocol, its
# link kit (ld.script in OpenBSD's style, policy `protocol openbsd`), a
# disk image with it, and the boot test under OVMF and SeaBIOS.
OBSD_NAMES := locore0 main cons checks rand
OBSD_D := $(B)/obsd
OBSD_OBJS := $(patsubst %,$(OBSD_D)/objs/%.o,$(OBSD_NAMES))
OBSD_CFLAGS := -std=gnu11 -O2 -ffreestanding -fno-builtin -nostdlib \
  -mcmodel=kernel -mno-red-zone -fno-pic -fno-pie -mno-sse -mno-mmx \
  -mno-80387 -fno-tree-loop-distribute-patterns -fno-strict-aliasing \
  -fno-stack-protector -fno-asynchronous-unwind-tables -Wall -Wextra -Werror

$(OBSD_D)/objs/%.o: test/obsd/%.c test/obsd/obsd.h
	@mkdir -p $(@D)
	$(CC) $(OBSD_CFLAGS) -c $< -o $@

$(OBSD_D)/objs/%.o: test/obsd/%.S
	@mkdir -p $(@D)
	$(CC) -c -fno-pic -fno-pie -Wa,--fatal-warnings $< -o $@

# Reference link with GNU ld: the script works on its own.
$(OBSD_D)/kernel-ld.elf: $(OBSD_OBJS) test/obsd/ld.script
	ld -nostdlib -static --build-id=none -z max-page-size=0x1000 \
	  -z noexecstack -T test/obsd/ld.script -o $@ $(OBSD_OBJS)

$(OBSD_D)/kernel.kit: $(B)/tools/linkkit $(OBSD_OBJS) test/obsd/ld.script test/obsd/policy
	$(B)/tools/linkkit create -o $@ -T test/obsd/ld.script -P test/obsd/policy $(OBSD_OBJS)

$(OBSD_D)/fallback.elf: $(B)/tools/linkkit $(OBSD_D)/kernel.kit
	$(B)/tools/linkkit link --random -o $@ $(OBSD_D)/kernel.kit

$(OBSD_D)/disk.img: tools/mkimage.sh test/obsd/relink.cfg $(B)/efi/BOOTX64.EFI \
  $(OBSD_D)/kernel.kit $(OBSD_D)/fallback.elf $(B)/stand/mbr.bin $(B)/stand/stage.bin
	tools/mkimage.sh create -o $@ --efi $(B)/efi/BOOTX64.EFI \
	  --kit $(OBSD_D)/kernel.kit --fallback $(OBSD_D)/fallback.elf \
	  --cfg test/obsd/relink.cfg --mbr $(B)/stand/mbr.bin --stage $(B)/stand/stage.bin

$(OBSD_D)/test-obsd: test/obsd/test-boot.sh test/qemu/boot.sh $(OBSD_D)/disk.img
	@mkdir -p $(@D)
	@printf '#!/bin/sh\ncd "%s" && B="%s" exec test/obsd/test-boot.sh\n' \
	  '$(CURDIR)' '$(abspath $(B))' >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@

ALL += $(OBSD_OBJS) $(OBSD_D)/kernel-ld.elf $(OBSD_D)/kernel.kit \
  $(OBSD_D)/fallback.elf $(OBSD_D)/disk.img $(OBSD_D)/test-obsd
TESTS += $(OBSD_D)/test-obsd
