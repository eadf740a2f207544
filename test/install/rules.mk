# test/install: installing relinkboot (issue 30). test-install checks the
# commands' --help/--version, `make install`/`uninstall` and `make deb`;
# test-esp runs relinkboot-install on a directory standing in for the ESP
# and boots images made from it under OVMF (8 boots, two at a time).
INST_T := $(B)/test/install
TESTS += $(INST_T)/test-install $(INST_T)/test-esp

# inst_wrapper SCRIPT: the test program $@ runs SCRIPT from the tree with B set.
define inst_wrapper
	@mkdir -p $(@D)
	@printf '#!/bin/sh\ncd "%s" && B="%s" exec %s\n' '$(CURDIR)' '$(abspath $(B))' '$(1)' >$@.tmp
	@chmod +x $@.tmp && mv $@.tmp $@
endef

$(INST_T)/test-install: test/install/install-tests.sh mk/install.mk mk/deb-control.sh \
  tools/relinkboot-install tools/mkimage.sh $(LINKKIT_CLI) $(INST_STAGES)
	$(call inst_wrapper,test/install/install-tests.sh)
$(INST_T)/test-esp: test/install/esp-tests.sh tools/relinkboot-install tools/mkimage.sh \
  test/qemu/boot.sh $(LINKKIT_CLI) $(B)/efi/BOOTX64.EFI $(B)/demo/objects.txt \
  $(B)/obsd/kernel.kit $(B)/obsd/fallback.elf
	$(call inst_wrapper,test/install/esp-tests.sh)
