# test: build rules (owned by the test work)
