# bench: `make bench` (issue 6). The bench program links the core objects
# BOOTX64.EFI links (efi/rules.mk's flags: -Os, SSE allowed, so SHA-NI
# when the CPU has it), so it measures the boot code itself.
# bench/run.sh builds the corpora (cached under cache/, git-ignored) and
# times GNU ld, ld.lld, zlib and memcpy against it. Not part of `make test`.
BENCH_CORE_OBJS := $(patsubst %.c,$(B)/efi/obj/%.o,$(EFI_CORE_SRCS))
# libdeflate (Debian libdeflate-dev, bench/deps.sh) times the gzip -9
# prelinked kernel's decompression (issue 16); without it that row is left out.
BENCH_LIBDEFLATE := $(if $(wildcard /usr/include/libdeflate.h),-DBENCH_LIBDEFLATE)
$(B)/bench/bench: bench/bench.c $(BENCH_CORE_OBJS) $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(BENCH_LIBDEFLATE) -no-pie -fno-pie -I linkkit -o $@ bench/bench.c \
	  $(BENCH_CORE_OBJS) -lz $(if $(BENCH_LIBDEFLATE),-ldeflate) -lpthread
ALL += $(B)/bench/bench

# The same bench on the BIOS stage's own i386 objects, one processor.
$(B)/bench/bench-bios: bench/bench.c $(LINKKIT_FS32_OBJS) $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) -m32 $(HOST_CFLAGS) -DBENCH_BIOS -no-pie -fno-pie -I linkkit -o $@ bench/bench.c \
	  $(LINKKIT_FS32_OBJS) -lpthread
ALL += $(B)/bench/bench-bios

$(B)/bench/run-bench: bench/run.sh $(OBSD_REAL)/kit.done
	@mkdir -p $(@D)
	{ echo '#!/bin/sh'; echo 'cd $(CURDIR) && exec bench/run.sh $(abspath $(B))'; } >$@
	chmod +x $@
ALL += $(B)/bench/run-bench
BENCH += $(B)/bench/run-bench
