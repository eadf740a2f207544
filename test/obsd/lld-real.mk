# The ld.lld differential on the real OpenBSD GENERIC corpus
# (test/obsd/test-lld-real.sh): the kit of test/corpora/rules.mk, linked
# with several seeds, against ld.lld's link of the same order. Skips with
# one line when the corpus is absent.
$(OBSD_REAL)/test-lld-real: test/obsd/test-lld-real.sh test/obsd/segcmp.py \
  test/obsd/mkgap.py test/obsd/policy $(OBSD_REAL)/kit.done $(B)/tools/linkkit
	@mkdir -p $(@D)
	@printf '#!/bin/sh\ncd "%s" && B="%s" exec test/obsd/test-lld-real.sh\n' \
	  '$(CURDIR)' '$(abspath $(B))' >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@
ALL += $(OBSD_REAL)/test-lld-real
TESTS += $(OBSD_REAL)/test-lld-real
