# Shared compiler settings.
CC ?= gcc
HOST_CFLAGS := -O2 -g -std=gnu11 -Wall -Wextra -Werror -fno-strict-aliasing
# The freestanding core as the boot stages build it (see linkkit/rules.mk).
FREESTANDING_CFLAGS := -std=gnu11 -Os -ffreestanding -fno-builtin -nostdlib \
  -fno-stack-protector -fno-pic -fno-pie -mno-red-zone -Wall -Wextra -Werror \
  -fno-strict-aliasing
.PHONY: deps-ok
