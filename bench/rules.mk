# bench: `make bench` (issue 6). The bench program links the freestanding
# core objects the UEFI stage uses, so it measures the boot code itself.
# bench/run.sh builds the corpora (cached under cache/, git-ignored) and
# times GNU ld, ld.lld, zlib and memcpy against it. Not part of `make test`.
$(B)/bench/bench: bench/bench.c $(LINKKIT_FS64_OBJS) $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -no-pie -fno-pie -I linkkit -o $@ bench/bench.c $(LINKKIT_FS64_OBJS) -lz
ALL += $(B)/bench/bench

$(B)/bench/run-bench: bench/run.sh
	@mkdir -p $(@D)
	{ echo '#!/bin/sh'; echo 'cd $(CURDIR) && exec bench/run.sh $(abspath $(B))'; } >$@
	chmod +x $@
ALL += $(B)/bench/run-bench
BENCH += $(B)/bench/run-bench
