# linkkit: build rules (owned by the linkkit work)
# Every linkkit/*.c and linkkit/*/*.c (the boot, protocol and file-system
# layers) joins automatically. Three builds of the same sources:
#  host   -> $(B)/linkkit/liblinkkit.a       (tools, benchmarks)
#  asan   -> $(B)/linkkit/liblinkkit-asan.a  (unit tests)
#  fs64/fs32 -> freestanding objects for the boot stages (the BIOS stage
#  links $(LINKKIT_FS32_OBJS)); test/unit/freestanding-check proves they
#  need nothing from outside the core.
LINKKIT_SRCS := $(wildcard linkkit/*.c linkkit/*/*.c)
LINKKIT_HDRS := $(wildcard linkkit/*.h linkkit/*/*.h)
LINKKIT_HOST_OBJS := $(patsubst linkkit/%.c,$(B)/linkkit/host/%.o,$(LINKKIT_SRCS))
LINKKIT_ASAN_OBJS := $(patsubst linkkit/%.c,$(B)/linkkit/asan/%.o,$(LINKKIT_SRCS))
LINKKIT_FS64_OBJS := $(patsubst linkkit/%.c,$(B)/linkkit/fs64/%.o,$(LINKKIT_SRCS))
LINKKIT_FS32_OBJS := $(patsubst linkkit/%.c,$(B)/linkkit/fs32/%.o,$(LINKKIT_SRCS))
LINKKIT_LIB := $(B)/linkkit/liblinkkit.a
LINKKIT_ASAN_LIB := $(B)/linkkit/liblinkkit-asan.a

ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
  -fno-sanitize-recover=undefined
# Loop idioms must not become memcpy/memset calls; no SSE/x87 state is
# touched so the code runs wherever a boot stage calls it.
LINKKIT_FS_CFLAGS := $(FREESTANDING_CFLAGS) -fno-tree-loop-distribute-patterns \
  -mgeneral-regs-only -I linkkit

ALL += $(LINKKIT_LIB) $(LINKKIT_ASAN_LIB) $(LINKKIT_FS64_OBJS) $(LINKKIT_FS32_OBJS)

# Hot loops of the per-boot relink, built -O2 in every boot-stage build
# (the later -O2 wins over -Os). inflate: ~5% faster, +2.5 KB (docs/bench.md);
# adler32 (UEFI build, 60 MB): portable 11.2 -> 6.9 ms, AVX2 2.3 -> 2.0 ms,
# +0.6 KB. The link (OpenBSD GENERIC kit, parse+place+write): 5.4 -> 5.0 ms,
# parse alone 0.86 -> 0.60 ms, +5.9 KB. blake3 (the kit's hash): its
# rounds unrolled. The Linux kallsyms and table sorts (Linux 6.1
# defconfig kit, bench's write-1cpu, two alternating rounds of 7 runs):
# x86-64 20.59/20.67 -> 20.00/19.92 ms, i386 (bench-bios) 26.46/26.10 ->
# 24.87/24.87 ms, stage.bin +4.2 KB. The other files stay -Os.
LK_HOT_SRCS := inflate adler32 link_open link_layout link_merge link_write \
  linux_kallsyms linux_kallsyms_link linux_sort \
  reloc_x86_64 blake3
$(foreach d,linkkit/fs64 linkkit/fs32,$(LK_HOT_SRCS:%=$(B)/$(d)/%.o)): \
  LK_HOT_CFLAGS := -O2
# The UEFI stage compiles the core with its own EFI_CFLAGS (efi/rules.mk).
# No vectorizer there: gcc's -O2 put SSE code into the inflate loops, which
# QEMU's TCG emulates so slowly that the OVMF inflate phase took ~10x longer.
$(LK_HOT_SRCS:%=$(B)/efi/obj/linkkit/%.o): EFI_CFLAGS += -O2 -fno-tree-vectorize

# RELINK_PUBKEY=path.pub builds that signify public key into both boot
# stages ($(LK_PUBKEY_H), rewritten only when the key changes). Only the
# base64 alphabet is kept, so the file cannot inject C.
RELINK_PUBKEY ?=
LK_PUBKEY_H := $(B)/gen/relink-pubkey.h
.PHONY: lk-pubkey-force
$(LK_PUBKEY_H): lk-pubkey-force
	@mkdir -p $(@D)
	@{ echo '/* generated: RELINK_PUBKEY=$(RELINK_PUBKEY) */'; \
	  if [ -n '$(RELINK_PUBKEY)' ]; then \
	    k=$$(sed -n 2p '$(RELINK_PUBKEY)' | tr -cd 'A-Za-z0-9+/='); \
	    [ -n "$$k" ] || { echo 'RELINK_PUBKEY: not a signify public key' >&2; exit 1; }; \
	    printf '#define RELINK_PUBKEY_B64 "%s"\n' "$$k"; \
	  fi; } >$@.tmp
	@cmp -s $@.tmp $@ 2>/dev/null && rm -f $@.tmp || mv $@.tmp $@

$(B)/linkkit/host/%.o: linkkit/%.c $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -I linkkit -c $< -o $@

$(B)/linkkit/asan/%.o: linkkit/%.c $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(ASAN_FLAGS) -I linkkit -c $< -o $@

$(B)/linkkit/fs64/%.o: linkkit/%.c $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LINKKIT_FS_CFLAGS) $(LK_HOT_CFLAGS) -m64 -c $< -o $@

$(B)/linkkit/fs32/%.o: linkkit/%.c $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LINKKIT_FS_CFLAGS) $(LK_HOT_CFLAGS) -m32 -c $< -o $@

$(LINKKIT_LIB): $(LINKKIT_HOST_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(LINKKIT_ASAN_LIB): $(LINKKIT_ASAN_OBJS)
	@rm -f $@
	ar rcs $@ $^
