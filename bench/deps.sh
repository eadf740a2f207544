#!/usr/bin/env bash
# Debian packages only `make bench` needs (the Linux corpus; libdeflate for
# the prelinked-kernel comparison of the openbsd corpus), kept out of
# mk/deps.sh's default list so `make test` does not pull a kernel source tree.
set -euo pipefail
exec "$(dirname "$0")/../mk/deps.sh" linux-source-6.1 bc flex bison libssl-dev libelf-dev xz-utils libdeflate-dev
