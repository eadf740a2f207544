# tools: build rules (owned by the tools work): the `linkkit` CLI.
# The linker-script compiler (tools/ldscript*.c) is linked in; its sources
# are whatever tools/ldscript*.c exist (LDSCRIPT_SRCS, see tools/ldscript.h).
LINKKIT_CLI := $(B)/tools/linkkit
LKTOOL_SRCS := tools/linkkit.c tools/lkcmd.c tools/lklink.c tools/kitbuild.c \
  tools/kbreloc.c tools/kbmerge.c tools/kbserial.c tools/kbutil.c tools/kbobsd.c tools/kbnote.c \
  tools/kitwrite.c tools/policy.c tools/lksign.c tools/bcrypt_pbkdf.c
# COMDAT copies and weak definitions left to the boot side.
LKTOOL_SRCS += tools/kbalt.c
# ld.lld's merge shards (xxHash64 of each piece).
LKTOOL_SRCS += tools/xxhash64.c
LKTOOL_SRCS += tools/kbtar.c
# `create --linux BUILD_DIR`: a Linux build tree's inputs (thin vmlinux.a).
LKTOOL_SRCS += tools/kblinux.c
# Its kallsyms: the host half of the tables and the kit's ksyms table.
LKTOOL_SRCS += tools/kbkallsyms.c tools/kbksyms.c
# Policy random-base (KASLR at link time).
LKTOOL_SRCS += tools/kbbase.c
# What a kit was made from (LK_KIT_F_PROV): create, info, verify --against.
LKTOOL_SRCS += tools/lkprov.c
# `verify-elf`: the stages' fallback checks, for relinkboot-install.
LKTOOL_SRCS += tools/lkelf.c
LKTOOL_LDSCRIPT_SRCS := $(wildcard tools/ldscript*.c)
LKTOOL_OBJS := $(patsubst tools/%.c,$(B)/tools/obj/%.o,$(LKTOOL_SRCS) $(LKTOOL_LDSCRIPT_SRCS))
LKTOOL_HDRS := $(wildcard tools/*.h) $(LINKKIT_HDRS)

ALL += $(LINKKIT_CLI)

$(B)/tools/obj/%.o: tools/%.c $(LKTOOL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -D_GNU_SOURCE -c $< -o $@

$(LINKKIT_CLI): $(LKTOOL_OBJS) $(LINKKIT_LIB)
	@mkdir -p $(@D)
	$(CC) -o $@ $(LKTOOL_OBJS) $(LINKKIT_LIB) -lelf -lz -ldeflate -lm -lpthread

# The same CLI with ASan+UBSan, for the malformed-object tests (test/diff).
LINKKIT_CLI_ASAN := $(B)/tools/linkkit-asan
LKTOOL_ASAN_OBJS := $(patsubst tools/%.c,$(B)/tools/asan/%.o,$(LKTOOL_SRCS) $(LKTOOL_LDSCRIPT_SRCS))
ALL += $(LINKKIT_CLI_ASAN)

$(B)/tools/asan/%.o: tools/%.c $(LKTOOL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(ASAN_FLAGS) -D_GNU_SOURCE -c $< -o $@

$(LINKKIT_CLI_ASAN): $(LKTOOL_ASAN_OBJS) $(LINKKIT_ASAN_LIB)
	@mkdir -p $(@D)
	$(CC) $(ASAN_FLAGS) -o $@ $(LKTOOL_ASAN_OBJS) $(LINKKIT_ASAN_LIB) -lelf -lz -ldeflate -lm -lpthread

# `linkkit sign` / `verify -x` against signify-openbsd (tools/test-sign.sh).
ALL += $(B)/tools/test-sign
TESTS += $(B)/tools/test-sign
$(B)/tools/test-sign: tools/test-sign.sh $(LINKKIT_CLI) $(B)/demo/fallback.elf
	@mkdir -p $(@D)
	printf '#!/bin/sh\nexec %s/tools/test-sign.sh %s\n' $(CURDIR) $(abspath $(B)) >$@
	chmod +x $@

# tools/xxhash64.c against xxhsum's values.
ALL += $(B)/tools/test-xxhash64
TESTS += $(B)/tools/test-xxhash64
$(B)/tools/test-xxhash64: tools/test_xxhash64.c tools/xxhash64.c tools/xxhash64.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(ASAN_FLAGS) -I tools tools/test_xxhash64.c tools/xxhash64.c -o $@
