# test/ldscript: the GNU ld script parser/compiler and its unit test.
# LDSCRIPT_SRCS is linked into $(B)/tools/linkkit by tools/rules.mk.
LDSCRIPT_SRCS := tools/ldscript_util.c tools/ldscript_lex.c \
  tools/ldscript_parse.c tools/ldscript_compile.c
LDSCRIPT_HDRS := tools/ldscript.h tools/ldscript_int.h linkkit/kit_format.h \
  linkkit/lk_types.h

LDSCRIPT_TEST := $(B)/test/ldscript/test_ldscript
$(LDSCRIPT_TEST): test/ldscript/test_ldscript.c $(LDSCRIPT_SRCS) $(LDSCRIPT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -O1 -fsanitize=address,undefined \
	  -fno-sanitize-recover=all -fno-omit-frame-pointer \
	  -DLS_TEST_DIR='"$(CURDIR)/test/ldscript"' \
	  -o $@ test/ldscript/test_ldscript.c $(LDSCRIPT_SRCS)

ALL += $(LDSCRIPT_TEST)
TESTS += $(LDSCRIPT_TEST)

# Differential test against GNU ld; a wrapper so test/run-tests can run it.
LDSCRIPT_DIFF := $(B)/test/ldscript/diff-ld
$(LDSCRIPT_DIFF): test/ldscript/diff-ld.sh $(wildcard test/ldscript/diff/*) $(LINKKIT_CLI)
	@mkdir -p $(@D)
	{ echo '#!/bin/sh'; echo 'cd $(CURDIR) && exec test/ldscript/diff-ld.sh $(B)'; } >$@
	chmod +x $@

ALL += $(LDSCRIPT_DIFF)
TESTS += $(LDSCRIPT_DIFF)
