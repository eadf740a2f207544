# test/fs: the FFS reader (linkkit/fs/ffs.c) on images made by Debian's
# makefs and on hand-broken copies (test/fs/test-ffs.sh). ffs_probe is the
# host driver (an image file as the block device, ASan+UBSan);
# ffs_probe32 the same driver on the i386 freestanding objects the BIOS
# stage links, run through test/run-i386.
FS_PROBE := $(B)/test/fs/ffs_probe
FS_PROBE32 := $(B)/test/fs/ffs_probe32
FS_I386_OBJS := $(patsubst %,$(B)/linkkit/fs32/%.o,fs/ffs fs/fs fs/blockdev \
  mem fmt sha256 sha256_ni cpu_x86)

ALL += $(FS_PROBE) $(FS_PROBE32) $(B)/test/fs/test_ffs
TESTS += $(B)/test/fs/test_ffs

$(FS_PROBE): test/fs/ffs_probe.c $(LINKKIT_ASAN_LIB) $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(ASAN_FLAGS) -I linkkit $< $(LINKKIT_ASAN_LIB) -lz -o $@

$(FS_PROBE32).elf: test/fs/ffs_probe.c $(FS_I386_OBJS) $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) -m32 -no-pie $(HOST_CFLAGS) -I linkkit $< $(FS_I386_OBJS) -o $@
$(FS_PROBE32): $(FS_PROBE32).elf test/run-i386 | $(I386_MODE)
	$(call i386_wrapper,$<)

$(B)/test/fs/test_ffs: test/fs/test-ffs.sh test/fs/ffs_patch.py test/fs/ffs_tree.py \
  $(FS_PROBE) $(FS_PROBE32)
	@mkdir -p $(@D)
	{ echo '#!/bin/sh'; \
	  echo 'exec $(CURDIR)/test/fs/test-ffs.sh $(abspath $(FS_PROBE)) $(abspath $(FS_PROBE32))'; } >$@
	chmod +x $@
