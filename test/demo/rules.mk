# test/demo: build rules (owned by the test/demo work)
