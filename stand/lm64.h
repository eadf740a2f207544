/*
 * The call block between the BIOS stage (i386) and its long-mode half
 * (stand/lm64.c, x86-64): fixed-width fields only, so both builds see one
 * layout. Addresses are physical, below 4 GiB (identity-mapped).
 */
#ifndef STAND_LM64_H
#define STAND_LM64_H

#include "../linkkit/lk_types.h"

enum {
	LM64_HASH = 1,	  /* lk_kit_hash_bytes(flags, src, src_size, dst) */
	LM64_INFLATE = 2, /* lk_inflate_raw(src, src_size, dst, dst_size) */
};

struct lm64_call {
	lk_u32 op;
	lk_u32 flags; /* LM64_HASH: the kit's flags */
	lk_u64 src, src_size;
	lk_u64 dst, dst_size;	  /* LM64_HASH: dst gets the 32-byte sum */
	lk_u64 out_len, src_used; /* LM64_INFLATE: as lk_inflate_raw's */
};

#endif
