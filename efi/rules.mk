# efi: build rules (owned by the efi work)
# BOOTX64.EFI: gnu-efi PIC shared object + objcopy to a PE32+ EFI app. The
# freestanding core (linkkit/*.c) is compiled by path with the EFI flags.
EFI_INC := -I/usr/include/efi -I/usr/include/efi/x86_64
EFI_CFLAGS := -std=gnu11 -Os -fpic -ffreestanding -fno-builtin \
  -fno-stack-protector -fno-strict-aliasing -fshort-wchar -mno-red-zone \
  -maccumulate-outgoing-args -DGNU_EFI_USE_MS_ABI -Wall -Wextra -Werror
EFI_LDFLAGS := -nostdlib -znocombreloc -z defs -T /usr/lib/elf_x86_64_efi.lds \
  -shared -Bsymbolic -L/usr/lib
EFI_SRCS := $(wildcard efi/*.c)
EFI_SRCS := $(filter-out efi/test_%.c efi/leaktest.c efi/hangtest.c,$(EFI_SRCS))
EFI_CORE_SRCS := $(LINKKIT_SRCS)
EFI_OBJS := $(patsubst %.c,$(B)/efi/obj/%.o,$(EFI_SRCS) $(EFI_CORE_SRCS)) \
  $(B)/efi/obj/efi/trampoline.o
EFI_HDRS := $(wildcard efi/*.h) $(LINKKIT_HDRS)

$(B)/efi/obj/%.o: %.c $(EFI_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(EFI_CFLAGS) $(EFI_INC) -I $(B)/gen -c $< -o $@

$(B)/efi/obj/efi/boot.o: $(LK_PUBKEY_H)

$(B)/efi/obj/efi/trampoline.o: efi/trampoline.S linkkit/asm_x86.h
	@mkdir -p $(dir $@)
	$(CC) -c $< -o $@

$(B)/efi/bootx64.so: $(EFI_OBJS)
	ld $(EFI_LDFLAGS) /usr/lib/crt0-efi-x86_64.o $(EFI_OBJS) -lefi -lgnuefi -o $@

$(B)/efi/BOOTX64.EFI: $(B)/efi/bootx64.so
	objcopy -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel \
	  -j .rela -j '.rel.*' -j '.rela.*' -j .reloc \
	  --target efi-app-x86_64 --subsystem=10 $< $@

# Leak-test stages (test/qemu/leak-tests.sh, never installed): the same
# objects plus efi/leaktest.c, whose eb_variant_init replaces the weak no-op;
# -neg is the negative control (a forgotten scrub).
$(B)/efi/obj/efi/leaktest.o $(B)/efi/obj/efi/leaktest-neg.o: test/qemu/leak-canary.h
$(B)/efi/obj/efi/leaktest-neg.o: efi/leaktest.c $(EFI_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(EFI_CFLAGS) $(EFI_INC) -DLEAKTEST_NEGATIVE -c $< -o $@
$(B)/efi/bootx64-leak%.so: $(EFI_OBJS) $(B)/efi/obj/efi/leak%.o
	ld $(EFI_LDFLAGS) /usr/lib/crt0-efi-x86_64.o $^ -lefi -lgnuefi -o $@
$(B)/efi/BOOTX64-leak%.EFI: $(B)/efi/bootx64-leak%.so
	objcopy -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel \
	  -j .rela -j '.rel.*' -j '.rela.*' -j .reloc \
	  --target efi-app-x86_64 --subsystem=10 $< $@
ALL += $(B)/efi/BOOTX64-leaktest.EFI $(B)/efi/BOOTX64-leaktest-neg.EFI

# Hang-test stage (efi/test-uefi-boot.sh, never installed): efi/hangtest.c's
# eb_variant_init gives the watchdog 5 s and makes the inflate spin.
$(B)/efi/bootx64-hangtest.so: $(EFI_OBJS) $(B)/efi/obj/efi/hangtest.o
	ld $(EFI_LDFLAGS) /usr/lib/crt0-efi-x86_64.o $^ -lefi -lgnuefi -o $@
$(B)/efi/BOOTX64-hangtest.EFI: $(B)/efi/bootx64-hangtest.so
	objcopy -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel \
	  -j .rela -j '.rel.*' -j '.rela.*' -j .reloc \
	  --target efi-app-x86_64 --subsystem=10 $< $@
ALL += $(B)/efi/BOOTX64-hangtest.EFI

# Host unit test of the shared boot-protocol code (config.c, mb2.c).
$(B)/efi/test_boot: efi/test_boot.c linkkit/config.c linkkit/mb2.c \
  linkkit/config.h linkkit/mb2.h $(B)/linkkit/liblinkkit.a
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=all \
	  efi/test_boot.c linkkit/config.c linkkit/mb2.c $(B)/linkkit/liblinkkit.a -o $@

ALL += $(B)/efi/BOOTX64.EFI
TESTS += $(B)/efi/test_boot

# QEMU/OVMF boots of the stage itself (~30 s): debug_seed relink equals the
# host link, config warnings, phase timings, the one fallback line.
$(B)/efi/test-uefi-boot: efi/test-uefi-boot.sh $(B)/efi/BOOTX64.EFI $(B)/efi/BOOTX64-hangtest.EFI
	@mkdir -p $(@D)
	@printf '#!/bin/sh\ncd "%s" && B="%s" exec efi/test-uefi-boot.sh\n' \
	  '$(CURDIR)' '$(abspath $(B))' >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@
TESTS += $(B)/efi/test-uefi-boot

# UEFI Secure Boot (issue 17): `make sign SB_KEY=db.key SB_CERT=db.crt`
# signs BOOTX64.EFI with sbsign into BOOTX64.signed.EFI and checks it with
# sbverify against the same certificate. Always re-signed (the key is not
# a prerequisite make could see change). Add RELINK_PUBKEY=k.pub so the
# signed stage carries the kit key (README, "UEFI Secure Boot").
.PHONY: sign
sign: $(B)/efi/BOOTX64.EFI
	@test -n "$(SB_KEY)" && test -n "$(SB_CERT)" || \
	  { echo "make sign: set SB_KEY=db.key SB_CERT=db.crt" >&2; exit 1; }
	sbsign --key '$(SB_KEY)' --cert '$(SB_CERT)' \
	  --output $(B)/efi/BOOTX64.signed.EFI.tmp $<
	sbverify --cert '$(SB_CERT)' $(B)/efi/BOOTX64.signed.EFI.tmp
	mv $(B)/efi/BOOTX64.signed.EFI.tmp $(B)/efi/BOOTX64.signed.EFI
