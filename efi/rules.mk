# efi: build rules (owned by the efi work)
