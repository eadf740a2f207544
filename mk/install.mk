# mk/install.mk: `make install` / `make uninstall` (PREFIX, DESTDIR) and
# `make deb`, a Debian package of the same files (dpkg-deb). README
# "Installing" lists the files; test/install/ checks that exactly those
# are placed.
PREFIX ?= /usr/local
DESTDIR ?=
RELINKBOOT_VERSION := $(shell sed -n 's/^\#define RELINKBOOT_VERSION "\(.*\)"$$/\1/p' tools/version.h)

# The stages; the Secure Boot one only once `make sign` has made it.
INST_STAGES := $(B)/efi/BOOTX64.EFI $(B)/stand/mbr.bin $(B)/stand/stage.bin
INST_SIGNED = $(wildcard $(B)/efi/BOOTX64.signed.EFI)
INST_MAN1 := docs/linkkit.1 docs/relinkboot-mkimage.1
INST_MAN8 := docs/relinkboot-install.8

# inst_script SRC DEST: a script with its release filled in; the image tool
# also takes the name it is installed under.
define inst_script
	sed -e 's/^version=@VERSION@$$/version=$(RELINKBOOT_VERSION)/' \
	  -e 's/mkimage\.sh /relinkboot-mkimage /g' $(1) >$(2).tmp
	chmod 755 $(2).tmp && mv $(2).tmp $(2)
endef

# inst_tree ROOT PREFIX MANCMD: every installed file under ROOT/PREFIX;
# MANCMD is `cp` (make install) or a gzip for the package.
define inst_tree
	install -d $(1)$(2)/bin $(1)$(2)/sbin $(1)$(2)/share/relinkboot \
	  $(1)$(2)/share/man/man1 $(1)$(2)/share/man/man8
	install -m 755 $(LINKKIT_CLI) $(1)$(2)/bin/linkkit
	$(call inst_script,tools/mkimage.sh,$(1)$(2)/bin/relinkboot-mkimage)
	$(call inst_script,tools/relinkboot-install,$(1)$(2)/sbin/relinkboot-install)
	install -m 644 $(INST_STAGES) $(INST_SIGNED) $(1)$(2)/share/relinkboot/
	for m in $(INST_MAN1); do $(3) $$m $(1)$(2)/share/man/man1; done
	for m in $(INST_MAN8); do $(3) $$m $(1)$(2)/share/man/man8; done
endef

install: $(LINKKIT_CLI) $(INST_STAGES) tools/mkimage.sh tools/relinkboot-install
	$(call inst_tree,$(DESTDIR),$(PREFIX),install -m 644)

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/linkkit $(DESTDIR)$(PREFIX)/bin/relinkboot-mkimage \
	  $(DESTDIR)$(PREFIX)/sbin/relinkboot-install
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/man/man1/,$(notdir $(INST_MAN1))) \
	  $(addprefix $(DESTDIR)$(PREFIX)/share/man/man8/,$(notdir $(INST_MAN8)))
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/relinkboot/,BOOTX64.EFI BOOTX64.signed.EFI mbr.bin stage.bin)
	rmdir $(DESTDIR)$(PREFIX)/share/relinkboot 2>/dev/null || true

# ---- make deb ----
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB := $(B)/deb/relinkboot_$(RELINKBOOT_VERSION)_$(DEB_ARCH).deb
DEB_ROOT := $(B)/deb/root
DEB_DOC := $(DEB_ROOT)/usr/share/doc/relinkboot
DEB_MAINTAINER ?= relinkboot maintainers <maintainers@users.noreply.a-seed-b88ff5e0.example>

# gzip -9n: man pages and the changelog as Debian policy wants them.
DEB_GZ = gzip -9n <$$1 >$$2/$$(basename $$1).gz && chmod 644 $$2/$$(basename $$1).gz
define deb_gz
	sh -c '$(DEB_GZ)' gz
endef

deb: $(DEB)
$(DEB): $(LINKKIT_CLI) $(INST_STAGES) tools/mkimage.sh tools/relinkboot-install \
  $(INST_MAN1) $(INST_MAN8) mk/install.mk mk/deb-control.sh tools/version.h
	rm -rf $(DEB_ROOT) && mkdir -p $(DEB_ROOT)/DEBIAN $(DEB_DOC)
	$(call inst_tree,$(DEB_ROOT),/usr,$(deb_gz))
	strip --remove-section=.comment --remove-section=.note $(DEB_ROOT)/usr/bin/linkkit
	mk/deb-control.sh $(DEB_ROOT) $(RELINKBOOT_VERSION) $(DEB_ARCH) '$(DEB_MAINTAINER)'
	find $(DEB_ROOT) -type d -exec chmod 755 {} +
	dpkg-deb --root-owner-group -Zxz --build $(DEB_ROOT) $@.tmp >/dev/null
	mv $@.tmp $@
	@echo "deb: $@"

.PHONY: install uninstall deb
