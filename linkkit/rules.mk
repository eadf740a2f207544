# linkkit: build rules (owned by the linkkit work)
