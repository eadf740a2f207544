# stand: the BIOS boot stage (owned by the stand work).
#   $(B)/stand/mbr.bin    512-byte protective-MBR boot code
#   $(B)/stand/stage.bin  flat binary loaded at 0:8000 by mbr.bin
SB := $(B)/stand

# i386, freestanding, general registers only: the stage never saves extended
# state. stand/start.S turns SSE on for the core's SHA-NI and SSSE3
# functions (their target attributes; docs/CONVENTIONS.md) and for the
# long-mode code (lm64.c, below).
STAND_CFLAGS := $(FREESTANDING_CFLAGS) -m32 -march=i686 -mgeneral-regs-only \
  -fno-asynchronous-unwind-tables -fno-unwind-tables -ffunction-sections \
  -fno-tree-loop-distribute-patterns -Ilinkkit
STAND_ASFLAGS := -m32

STAND_SRCS := start.S boot.c prompt.c host.c heap.c files.c handoff.c \
  bios_cons.c bios_disk.c bios_mem.c bios_acpi.c longmode.c mp.c lm64_blob.S
STAND_OBJS := $(patsubst %,$(SB)/%.o,$(basename $(STAND_SRCS)))

# The shared core, linked by path: linkkit/rules.mk's i386 objects when it
# provides them, else the same sources compiled here with our flags.
ifdef LINKKIT_FS32_OBJS
STAND_LK_OBJS := $(LINKKIT_FS32_OBJS)
else
STAND_LK_SRCS := $(LINKKIT_SRCS)
STAND_LK_OBJS := $(patsubst linkkit/%.c,$(SB)/lk/%.o,$(STAND_LK_SRCS))
endif

ALL += $(SB)/mbr.bin $(SB)/stage.bin

$(SB)/%.o: stand/%.S
	@mkdir -p $(@D)
	$(CC) $(STAND_ASFLAGS) -c $< -o $@

$(SB)/start.o: linkkit/asm_x86.h

$(SB)/%.o: stand/%.c stand/*.h $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(STAND_CFLAGS) -I $(B)/gen -c $< -o $@

$(SB)/boot.o: $(LK_PUBKEY_H)

$(SB)/lk/%.o: linkkit/%.c $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(STAND_CFLAGS) -c $< -o $@

# The long-mode half (stand/lm64.c): the kit's hash and inflate as x86-64
# code, from the core compiled as BOOTX64.EFI compiles it (EFI_CFLAGS, the
# same -O2 files), plus a section per function so that --gc-sections keeps
# only what the two calls reach (~30 KB). lm64.ld puts the entry at 0 and
# the blob runs wherever lm64_blob.S lands: a dynamic relocation left in
# the link (an absolute address) fails the build.
LM64_CORE := kit inflate blake3 sha256 sha256_ni cpu_x86 mem fmt
LM64_OBJS := $(SB)/lm64/lm64.o $(LM64_CORE:%=$(SB)/lm64/linkkit/%.o)
# -march pinned: a toolchain whose default is x86-64-v2 or later would put
# instructions into the blob that not every x86-64 CPU has.
LM64_CFLAGS := $(EFI_CFLAGS) -march=x86-64 -mtune=generic -ffunction-sections \
  -fdata-sections
$(LK_HOT_SRCS:%=$(SB)/lm64/linkkit/%.o): LM64_CFLAGS += -O2 -fno-tree-vectorize

$(SB)/lm64/linkkit/%.o: linkkit/%.c $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LM64_CFLAGS) -I linkkit -c $< -o $@

$(SB)/lm64/lm64.o: stand/lm64.c stand/lm64.h $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LM64_CFLAGS) -c $< -o $@

$(SB)/lm64.elf: $(LM64_OBJS) stand/lm64.ld
	ld -m elf_x86_64 -pie --no-dynamic-linker --gc-sections --no-warn-rwx-segments \
	  -T stand/lm64.ld -o $@ $(LM64_OBJS)
	@if readelf -rW $@ | grep -q R_X86_64; then \
	  echo "$@: dynamic relocations: not position-independent"; rm -f $@; exit 1; fi

$(SB)/lm64.bin: $(SB)/lm64.elf
	objcopy -O binary $< $@

$(SB)/lm64_blob.o: stand/lm64_blob.S $(SB)/lm64.bin
	@mkdir -p $(@D)
	$(CC) $(STAND_ASFLAGS) -DLM64_BIN='"$(SB)/lm64.bin"' -c $< -o $@

$(SB)/mbr.bin: $(SB)/mbr.o
	ld -m elf_i386 -Ttext 0 --oformat binary -o $@ $<
	@test $$(stat -c %s $@) -eq 512 || { echo "mbr.bin is not 512 bytes"; rm -f $@; exit 1; }

$(SB)/stage.elf: $(STAND_OBJS) $(STAND_LK_OBJS) stand/stage.ld
	ld -m elf_i386 -T stand/stage.ld --gc-sections -nostdlib --no-warn-rwx-segments -o $@ \
	  $(STAND_OBJS) $(STAND_LK_OBJS)

$(SB)/stage.bin: $(SB)/stage.elf
	objcopy -O binary $< $@

# Fault-injection builds for test-boot.sh only: the first application
# processor takes an item of the inflate (stage-stall1) or a part of the
# write (stage-stall2) and never finishes it (stand/mp.c).
ALL += $(SB)/stage-stall1.bin $(SB)/stage-stall2.bin

$(SB)/fault/mp-stall%.o: stand/mp.c stand/*.h $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(STAND_CFLAGS) -DSTAND_FAULT_AP_STALL=$* -I $(B)/gen -c $< -o $@

$(SB)/stage-stall%.elf: $(filter-out $(SB)/mp.o,$(STAND_OBJS)) $(SB)/fault/mp-stall%.o \
  $(STAND_LK_OBJS) stand/stage.ld
	ld -m elf_i386 -T stand/stage.ld --gc-sections -nostdlib --no-warn-rwx-segments -o $@ \
	  $(filter-out $(SB)/mp.o,$(STAND_OBJS)) $(SB)/fault/mp-stall$*.o $(STAND_LK_OBJS)

$(SB)/stage-stall%.bin: $(SB)/stage-stall%.elf
	objcopy -O binary $< $@

# Boot test: scratch kernel (as fallback ELF and as kit) under SeaBIOS.
ALL += $(SB)/testkern.o $(SB)/testkern.elf $(SB)/test-boot
TESTS += $(SB)/test-boot

$(SB)/testkern.o: stand/testkern.S
	@mkdir -p $(@D)
	$(CC) -c $< -o $@

$(SB)/testkern.elf: $(SB)/testkern.o stand/testkern.ld
	ld -m elf_x86_64 -T stand/testkern.ld -o $@ $<

$(SB)/test-boot: stand/test-boot.sh $(SB)/testkern.elf $(SB)/stage-stall1.bin $(SB)/stage-stall2.bin
	printf '#!/bin/sh\nexec stand/test-boot.sh %s\n' $(B) > $@
	chmod +x $@

# Leak-test stages (test/qemu/leak-tests.sh, never installed): the same
# objects plus stand/leaktest.c, whose stand_variant_init replaces the weak
# no-op in host.c; -neg is the negative control (forgotten frees).
$(SB)/leaktest.o $(SB)/leaktest-neg.o: test/qemu/leak-canary.h
$(SB)/leaktest-neg.o: stand/leaktest.c stand/*.h $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(STAND_CFLAGS) -DLEAKTEST_NEGATIVE -c $< -o $@
$(SB)/stage-leak%.elf: $(STAND_OBJS) $(STAND_LK_OBJS) $(SB)/leak%.o stand/stage.ld
	ld -m elf_i386 -T stand/stage.ld --gc-sections -nostdlib --no-warn-rwx-segments -o $@ \
	  $(STAND_OBJS) $(STAND_LK_OBJS) $(SB)/leak$*.o
$(SB)/stage-leak%.bin: $(SB)/stage-leak%.elf
	objcopy -O binary $< $@
ALL += $(SB)/stage-leaktest.elf $(SB)/stage-leaktest.bin $(SB)/stage-leaktest-neg.bin
