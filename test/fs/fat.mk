# The FAT reader and the ESP search (linkkit/fs/fat.c, part.c) on images
# made by mkfs.fat + mtools: test/fs/test-fat.sh drives a host build of
# the reader (with sanitizers), test/fs/fat_probe.c.
$(B)/test/fs/fat_probe: test/fs/fat_probe.c $(LINKKIT_ASAN_LIB) $(LINKKIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(ASAN_FLAGS) -I linkkit -o $@ $< $(LINKKIT_ASAN_LIB)

$(B)/test/fs/test-fat: test/fs/test-fat.sh $(B)/test/fs/fat_probe
	printf '#!/bin/sh\nexec test/fs/test-fat.sh %s\n' $(B)/test/fs/fat_probe > $@
	chmod +x $@

ALL += $(B)/test/fs/fat_probe $(B)/test/fs/test-fat
TESTS += $(B)/test/fs/test-fat
