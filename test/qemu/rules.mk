# test/qemu: build rules (owned by the test/qemu work)
