# stand: build rules (owned by the stand work)
