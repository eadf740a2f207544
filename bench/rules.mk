# bench: `make bench` (issue 6). The bench program links the core objects
# BOOTX64.EFI links (efi/rules.mk's flags: -Os, SSE allowed, so SHA-NI
# when the CPU has it), so it measures the boot code itself.
# bench/run.sh builds the corpora (cached under cache/, git-ignored) and
# times GNU ld, ld.lld, zlib and memcpy against it. Not part of `make test`.
BENCH_CORE_OBJS := $(patsubst %.c,$(B)/efi/obj/%.o,$(EFI_CORE_SRCS))
$(B)/bench/bench: bench/bench.c $(BENCH_CORE_OBJS) $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -no-pie -fno-pie -I linkkit -o $@ bench/bench.c $(BENCH_CORE_OBJS) -lz
ALL += $(B)/bench/bench

$(B)/bench/run-bench: bench/run.sh
	@mkdir -p $(@D)
	{ echo '#!/bin/sh'; echo 'cd $(CURDIR) && exec bench/run.sh $(abspath $(B))'; } >$@
	chmod +x $@
ALL += $(B)/bench/run-bench
BENCH += $(B)/bench/run-bench
