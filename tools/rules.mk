# tools: build rules (owned by the tools work)
