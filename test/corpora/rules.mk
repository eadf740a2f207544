# Real kernels' link directories from ../shared/corpora (never committed):
# unpacked once into $(B)/corpora, cached by a stamp. Tests and `make bench`
# that use a corpus depend on its stamp and skip with one line when the
# tarball is absent (the stamp then records that: `absent`).
CORPORA_SRC ?= $(abspath $(CURDIR)/../shared/corpora)
OBSD_CORPUS_NAME := openbsd-7.3-amd64-GENERIC
OBSD_CORPUS_TAR := $(CORPORA_SRC)/$(OBSD_CORPUS_NAME).tar.xz
OBSD_CORPUS := $(B)/corpora/$(OBSD_CORPUS_NAME)
OBSD_CORPUS_STAMP := $(B)/corpora/$(OBSD_CORPUS_NAME).stamp

# The stamp's content is "ok" or "absent"; it is remade when the tarball
# appears or changes.
$(OBSD_CORPUS_STAMP): $(wildcard $(OBSD_CORPUS_TAR)) test/corpora/rules.mk
	@mkdir -p $(@D)
	@if [ -r "$(OBSD_CORPUS_TAR)" ]; then \
	  rm -rf "$(OBSD_CORPUS)" && tar -C "$(@D)" -xJf "$(OBSD_CORPUS_TAR)" && \
	  [ -f "$(OBSD_CORPUS)/ld.script" ] && echo ok >$@; \
	else echo absent >$@; fi

# The real GENERIC kit, made by `linkkit create --openbsd` from the corpus
# unchanged, and bsd.lld, ld.lld's link of the corpus' LINK-ORDER (the
# kernel OpenBSD would install; the boot tests' fallback). kit.done says
# "ok" (both made) or "absent" (no corpus).
OBSD_REAL := $(B)/obsd-real
$(OBSD_REAL)/kit.done: $(OBSD_CORPUS_STAMP) $(B)/tools/linkkit
	@mkdir -p $(@D)
	@if [ "$$(cat $<)" = ok ]; then \
	  $(B)/tools/linkkit create --openbsd $(OBSD_CORPUS) -o $(OBSD_REAL)/bsd.kit && \
	  (cd $(OBSD_CORPUS) && ld.lld -T ld.script -X --warn-common --no-pie \
	    -o $(abspath $(OBSD_REAL))/bsd.lld $$(cat LINK-ORDER)) && \
	  echo ok >$@; \
	else rm -f $(OBSD_REAL)/bsd.kit; echo absent >$@; fi
ALL += $(OBSD_CORPUS_STAMP) $(OBSD_REAL)/kit.done

# The Linux 6.1 defconfig build (issue 26: its bzImage and vmlinux boot
# through `protocol linux`); the same stamp discipline.
LINUX_CORPUS_NAME := linux-6.1-x86_64-defconfig
LINUX_CORPUS_TAR := $(CORPORA_SRC)/$(LINUX_CORPUS_NAME).tar.xz
LINUX_CORPUS := $(B)/corpora/$(LINUX_CORPUS_NAME)
LINUX_CORPUS_STAMP := $(B)/corpora/$(LINUX_CORPUS_NAME).stamp
$(LINUX_CORPUS_STAMP): $(wildcard $(LINUX_CORPUS_TAR)) test/corpora/rules.mk
	@mkdir -p $(@D)
	@if [ -r "$(LINUX_CORPUS_TAR)" ]; then \
	  rm -rf "$(LINUX_CORPUS)" && tar -C "$(@D)" -xJf "$(LINUX_CORPUS_TAR)" && \
	  [ -f "$(LINUX_CORPUS)/arch/x86/boot/bzImage" ] && echo ok >$@; \
	else echo absent >$@; fi
ALL += $(LINUX_CORPUS_STAMP)

# The corpus relinked at boot (issue 27): the kit `linkkit create --linux`
# makes of the build tree unchanged, for the boot tests and the bench.
# kit.done says "ok" or "absent" (no corpus).
LINUX_REAL := $(B)/linux-real
$(LINUX_REAL)/kit.done: $(LINUX_CORPUS_STAMP) $(B)/tools/linkkit
	@mkdir -p $(@D)
	@if [ "$$(cat $<)" = ok ]; then \
	  $(B)/tools/linkkit create --linux $(LINUX_CORPUS) -o $(LINUX_REAL)/linux.kit && \
	  echo ok >$@; \
	else rm -f $(LINUX_REAL)/linux.kit; echo absent >$@; fi
ALL += $(LINUX_REAL)/kit.done
