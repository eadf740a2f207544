# test/link: unit tests of the boot-side link (owned by the relinker core work).
# Built straight from the core's sources with ASan/UBSan, so they do not
# depend on how linkkit/rules.mk packages the library.
LINK_TEST_CORE := kit kit_prov link_open link_layout link_merge reloc_x86_64 \
  link_write link_elf elfload mem fmt sha256 sha256_ni blake3 chacha rng inflate \
  adler32 cpu_x86 obsd_syms mb2 obsd_boot config kitsig ed25519 sha512 \
  proto/proto proto/none proto/multiboot2 proto/openbsd proto/obsd_opts \
  proto/linux linux_sort linux_kallsyms linux_kallsyms_link
LINK_TEST_SRCS := $(addprefix linkkit/,$(addsuffix .c,$(LINK_TEST_CORE))) \
  test/link/link_test.c test/link/pb.c test/link/kit_test.c
LINK_TEST_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -fno-strict-aliasing \
  -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer

$(B)/test/link/link_test: $(LINK_TEST_SRCS) $(LINKKIT_HDRS) test/link/pb.h
	@mkdir -p $(@D)
	$(CC) $(LINK_TEST_CFLAGS) -o $@ $(LINK_TEST_SRCS) -lz

# The core as the i386 BIOS stage builds it: must not need libgcc.
$(B)/test/link/core-i386.o: $(addprefix linkkit/,$(addsuffix .c,kit kit_prov link_open link_layout link_merge reloc_x86_64 link_write link_elf elfload proto/proto linux_sort linux_kallsyms linux_kallsyms_link)) $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) -m32 $(FREESTANDING_CFLAGS) -r -o $@ $(filter %.c,$^)
	@if nm $@ | grep -E ' U __(u?div|u?mod)di3'; then echo "64-bit division in the i386 core" >&2; rm -f $@; exit 1; fi

TESTS += $(B)/test/link/link_test
ALL += $(B)/test/link/core-i386.o

LINK_BENCH_SRCS := $(addprefix linkkit/,$(addsuffix .c,$(LINK_TEST_CORE))) \
  test/link/bench_link.c test/link/pb.c
$(B)/test/link/bench_link: $(LINK_BENCH_SRCS) $(LINKKIT_HDRS) test/link/pb.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -DPB_MAX=120000 \
	  -DPB_DATA=25000000 -DPB_STR=40000 -o $@ $(LINK_BENCH_SRCS)
BENCH += $(B)/test/link/bench_link
ALL += $(B)/test/link/bench_link

# Differential test against GNU ld on the demo kernel (needs tools + demo).
$(B)/test/link/diff_demo: test/link/diff-demo.sh
	@mkdir -p $(@D)
	{ echo '#!/bin/sh'; echo 'cd $(CURDIR) && exec test/link/diff-demo.sh $(abspath $(B))'; } >$@
	chmod +x $@
TESTS += $(B)/test/link/diff_demo
ALL += $(B)/test/link/diff_demo

# The same tests built for i386 (the BIOS stage's core): 32-bit lk_size and
# pointers. No 32-bit zlib here, so kits use stored DEFLATE blocks.
LINK_TEST32_SRCS := $(addprefix linkkit/,$(addsuffix .c,$(LINK_TEST_CORE))) \
  test/link/link_test.c test/link/pb.c test/link/kit_stored.c
# Run through test/run-i386 (natively or under qemu-i386).
$(B)/test/link/link_test32.elf: $(LINK_TEST32_SRCS) $(LINKKIT_HDRS) test/link/pb.h
	@mkdir -p $(@D)
	$(CC) -m32 $(LINK_TEST_CFLAGS) -o $@ $(LINK_TEST32_SRCS)
$(B)/test/link/link_test32: $(B)/test/link/link_test32.elf test/run-i386 | $(I386_MODE)
	$(call i386_wrapper,$<)
TESTS += $(B)/test/link/link_test32

# Mutations of the demo kernel's real payload.
$(B)/test/link/fuzz_demo: $(B)/test/link/link_test
	{ echo '#!/bin/sh'; echo 'exec $(abspath $(B))/test/link/link_test --fuzz-kit $(abspath $(B))/demo/kernel.kit'; } >$@
	chmod +x $@
TESTS += $(B)/test/link/fuzz_demo
ALL += $(B)/test/link/fuzz_demo
