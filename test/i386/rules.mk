# test/i386: how the tests run host-built 32-bit programs (test/run-i386).
# The probe runs once per make (natively, else under qemu-i386; I386_RUN=
# native|emulated restricts it) and writes $(I386_MODE); every 32-bit test
# program is built as NAME.elf with a wrapper NAME (i386_wrapper) that runs
# it through test/run-i386 with that file. `make test` prints the mode once.
I386_RUN ?= auto
I386_T := $(B)/test/i386
I386_MODE := $(I386_T)/mode

$(I386_T)/probe: test/i386/probe.c
	@mkdir -p $(@D)
	$(CC) -m32 $(HOST_CFLAGS) $< -o $@

# Probed at every make, so the mode follows I386_RUN and the host.
$(I386_MODE): $(I386_T)/probe test/run-i386 FORCE
	@I386_RUN=$(I386_RUN) test/run-i386 --probe $< >$@.tmp && mv $@.tmp $@

.PHONY: FORCE
FORCE:

# i386_wrapper ELF: writes the wrapper $@ running the 32-bit program ELF.
define i386_wrapper
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nexec %s %s %s "$$@"\n' '$(CURDIR)/test/run-i386' \
	  '$(abspath $(I386_MODE))' '$(abspath $(1))' >$@.tmp
	@chmod +x $@.tmp && mv $@.tmp $@
endef

ALL += $(I386_MODE)

# The runner itself: the probe forced each way, the i386 unit and link tests
# forced through qemu-i386 (whatever the host does natively), and the
# one-line failure when neither way works.
$(I386_T)/test-run-i386: test/i386/test-run-i386.sh test/run-i386 $(I386_T)/probe \
  $(B)/test/unit/test_i386_core.elf $(B)/test/link/link_test32.elf
	@printf '#!/bin/sh\ncd "%s" && exec test/i386/test-run-i386.sh "%s"\n' \
	  '$(CURDIR)' '$(abspath $(B))' >$@.tmp
	@chmod +x $@.tmp && mv $@.tmp $@
ALL += $(I386_T)/test-run-i386
TESTS += $(I386_T)/test-run-i386
