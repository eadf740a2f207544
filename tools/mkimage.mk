# tools/mkimage.mk: the bootable disk image $(B)/image/disk.img (see
# tools/mkimage.sh and docs/CONVENTIONS.md). Included after every rules.mk
# that registers products, so $(ALL) tells which ingredients can be built:
# the image is built (and registered) once all of its required ones are, and
# it carries the BIOS stage once stand/ registers it.
MKIMAGE := tools/mkimage.sh
IMAGE := $(B)/image/disk.img
IMAGE_CFG := test/qemu/relink.cfg
IMAGE_EFI := $(B)/efi/BOOTX64.EFI
IMAGE_KIT := $(B)/demo/kernel.kit
IMAGE_FALLBACK := $(B)/demo/fallback.elf
IMAGE_NEEDS := $(IMAGE_EFI) $(IMAGE_KIT) $(IMAGE_FALLBACK)
IMAGE_MISSING := $(filter-out $(ALL),$(IMAGE_NEEDS))
IMAGE_MBR := $(filter $(B)/stand/mbr.bin,$(ALL))
IMAGE_STAGE := $(filter $(B)/stand/stage.bin,$(ALL))

ifeq ($(IMAGE_MISSING),)
ALL += $(IMAGE)
IMAGE_OK := 1
endif

$(IMAGE): $(MKIMAGE) $(IMAGE_CFG) $(IMAGE_NEEDS) $(IMAGE_MBR) $(IMAGE_STAGE)
	@mkdir -p $(@D)
	$(MKIMAGE) create -o $@ --efi $(IMAGE_EFI) --kit $(IMAGE_KIT) \
	  --fallback $(IMAGE_FALLBACK) --cfg $(IMAGE_CFG) \
	  $(if $(IMAGE_MBR),--mbr $(IMAGE_MBR)) $(if $(IMAGE_STAGE),--stage $(IMAGE_STAGE))

# `make run [FIRMWARE=bios]`: boots the image with the serial console here.
RUN_FIRMWARE := $(if $(filter bios seabios,$(FIRMWARE)),bios,uefi)
ifeq ($(IMAGE_OK),1)
RUN_CMD = test/qemu/boot.sh --console --rng --cpu max -f $(RUN_FIRMWARE) -t $(or $(RUN_TIMEOUT),600) \
  -l $(B)/image/run-$(RUN_FIRMWARE).log $(IMAGE)
else
RUN_CMD = @echo "run: cannot build $(IMAGE) yet: no rule registers $(IMAGE_MISSING)" >&2; false
endif
