/* xxHash64 (seed 0), written from the xxHash specification: ld.lld 14
 * hashes each merge piece with it and shards pieces by that hash. */
#ifndef XXHASH64_H
#define XXHASH64_H

#include <stddef.h>
#include <stdint.h>

uint64_t kb_xxhash64(const void *p, size_t n);

#endif
