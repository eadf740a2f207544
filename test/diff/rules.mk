# test/diff: differential tests of the kit builder and `linkkit link`
# against ld.bfd and ld.lld, and tests of the linkkit command line.
# The programs are tiny wrappers so the scripts know the build directory.
DIFF_TEST_PROGS := $(B)/diff/run-diff $(B)/diff/cli-test $(B)/diff/fuzz-test

$(DIFF_TEST_PROGS): $(B)/diff/%: test/diff/%.sh
	@mkdir -p $(@D)
	printf '#!/bin/sh\ncd %s && exec %s %s\n' '$(CURDIR)' '$<' '$(abspath $(B))' >$@
	chmod +x $@

ALL += $(DIFF_TEST_PROGS)
TESTS += $(DIFF_TEST_PROGS)

# The boot stages' ELF loader run on `linkkit link` output (cli-test).
$(B)/diff/elfcheck: test/diff/elfcheck.c $(LINKKIT_LIB) $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $< $(LINKKIT_LIB) -o $@
ALL += $(B)/diff/elfcheck
