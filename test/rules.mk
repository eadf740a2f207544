# test: build rules (owned by the test work)
# Unit tests of the core (test/unit/test_*.c), built with ASan+UBSan against
# liblinkkit-asan.a and zlib; bench_*.c are host benchmarks (make bench).
UNIT_SRCS := $(wildcard test/unit/test_*.c)
UNIT_TESTS := $(patsubst test/unit/%.c,$(B)/test/unit/%,$(UNIT_SRCS))
UNIT_BENCH := $(patsubst test/unit/%.c,$(B)/test/unit/%,$(wildcard test/unit/bench_*.c))
UNIT_CFLAGS := $(HOST_CFLAGS) -I linkkit -I test/unit

ALL += $(UNIT_TESTS) $(UNIT_BENCH) $(B)/test/unit/freestanding-check
TESTS += $(UNIT_TESTS) $(B)/test/unit/freestanding-check
BENCH += $(UNIT_BENCH)

$(B)/test/unit/test_%: test/unit/test_%.c test/unit/tap.h $(LINKKIT_ASAN_LIB) $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) $(ASAN_FLAGS) $< $(LINKKIT_ASAN_LIB) -lz -o $@

$(B)/test/unit/bench_%: test/unit/bench_%.c $(LINKKIT_LIB) $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) $< $(LINKKIT_LIB) -lz -o $@

# The check runs on the exact object lists the boot stages link.
$(B)/test/unit/freestanding-check: test/unit/freestanding-check.sh $(LINKKIT_FS32_OBJS) $(LINKKIT_FS64_OBJS)
	@mkdir -p $(@D)
	{ echo '#!/bin/sh'; \
	  echo 'exec $(CURDIR)/test/unit/freestanding-check.sh fs32 $(abspath $(LINKKIT_FS32_OBJS)) -- fs64 $(abspath $(LINKKIT_FS64_OBJS))'; } >$@
	chmod +x $@

include test/i386/rules.mk
include test/ldscript/rules.mk
include test/link/rules.mk
include test/diff/rules.mk
include test/fs/fat.mk

# The i386 freestanding core objects, run in 32-bit mode against vectors
# from the 64-bit host build.
I386_CORE := mem fmt sha256 sha256_ni blake3 chacha rng inflate adler32 sha512 ed25519 kitsig cpu_x86
$(B)/test/unit/gen_i386_vectors: test/unit/gen_i386_vectors.c test/unit/tap.h $(LINKKIT_LIB)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) $< $(LINKKIT_LIB) -lz -o $@

$(B)/test/unit/i386-vectors.bin: $(B)/test/unit/gen_i386_vectors
	$< $@

# Run through test/run-i386 (natively or under qemu-i386).
$(B)/test/unit/test_i386_core.elf: test/unit/i386_core.c $(I386_CORE:%=$(B)/linkkit/fs32/%.o) $(B)/test/unit/i386-vectors.bin
	$(CC) -m32 -no-pie $(HOST_CFLAGS) -I linkkit \
	  -DVECTORS='"$(abspath $(B)/test/unit/i386-vectors.bin)"' \
	  $< $(I386_CORE:%=$(B)/linkkit/fs32/%.o) -o $@
$(B)/test/unit/test_i386_core: $(B)/test/unit/test_i386_core.elf test/run-i386 | $(I386_MODE)
	$(call i386_wrapper,$<)

ALL += $(B)/test/unit/test_i386_core
TESTS += $(B)/test/unit/test_i386_core
