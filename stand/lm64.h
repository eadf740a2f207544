/*
 * The call block between the BIOS stage (i386) and its long-mode half
 * (stand/lm64.c, x86-64): fixed-width fields only, so both builds see one
 * layout. Addresses are physical, below 4 GiB (identity-mapped).
 */
#ifndef STAND_LM64_H
#define STAND_LM64_H

#include "../linkkit/cpu.h"
#include "../linkkit/kit_format.h"
#include "../linkkit/lk_types.h"

enum {
	LM64_HASH = 1,	  /* lk_kit_hash_bytes(flags, src, src_size, dst) */
	LM64_INFLATE = 2, /* lk_inflate_raw(src, src_size, dst, dst_size) */
	/* The job at src (struct lm64_mp), on the boot processor: */
	LM64_MP_START = 3,  /* opens it (once the APs came, or ~50 ms) */
	LM64_MP_ONE = 4,    /* one item; returns 0 when none was left */
	LM64_MP_FINISH = 5, /* items until none is left, then waits for
			       the others'; 0 when one of them stalled */
	LM64_MP_TAKE = 6,   /* an application processor's: items until
			       none is left */
	LM64_MP_REDO = 7,   /* the items taken but never finished (by a
			       processor since stopped), on this one */
};

struct lm64_call {
	lk_u32 op;
	lk_u32 flags; /* LM64_HASH: the kit's flags */
	lk_u64 src, src_size;
	lk_u64 dst, dst_size;	  /* LM64_HASH: dst gets the 32-byte sum */
	lk_u64 out_len, src_used; /* LM64_INFLATE: as lk_inflate_raw's */
};

/* Both builds must see one layout: an i386 struct aligns a u64 to 4 only,
 * so every u64 here sits at a multiple of 8 by construction, and these
 * are checked in both. */
_Static_assert(sizeof(struct lm64_call) == 56, "lm64_call layout");

/* What a segment's inflate reads of struct lk_kit (linkkit.h). */
struct lm64_kit {
	lk_u64 zdata, zsize, payload_size, seg, hashed, hashed_size;
	lk_u32 flags, nseg;
};

#define LM64_MP_ITEMS (LK_KIT_MAX_SEGMENTS + 1)

/*
 * The inflate shared among processors, as efi/mp.c shares it: item 0 is
 * the kit's hash, item i > 0 segment i - 1. stand/mp.c posts it to the
 * application processors (which count themselves in aps as they come
 * up); gen != 0 lets them start on it.
 */
struct lm64_mp {
	lk_u32 gen;
	lk_u32 n;		/* items */
	lk_u32 next;		/* the next unclaimed item */
	lk_u32 done;		/* items finished */
	lk_u32 by_ap;		/* ... of them by application processors */
	lk_u32 aps;		/* application processors that came up */
	lk_u32 want;		/* ... that the MADT lists */
	lk_u32 stall_shift;	/* FINISH gives up after 2^stall_shift TSC
				   ticks without an item finished */
	struct lm64_kit kit;
	lk_u64 dst;		/* the payload buffer, kit.payload_size bytes */
	lk_u8 state[LM64_MP_ITEMS]; /* 1: done, 2: failed */
	lk_u8 sum[32];		/* item 0's hash */
};

_Static_assert(sizeof(struct lm64_kit) == 56, "lm64_kit layout");
_Static_assert(__builtin_offsetof(struct lm64_mp, kit) == 32 &&
		       __builtin_offsetof(struct lm64_mp, dst) == 88,
	       "lm64_mp layout");

/*
 * The boot processor's bound on waiting for the others (stand/mp.c's
 * parts, lm64.c's items): a processor that took work and stopped (a
 * machine check, firmware that took it away) must not hang the boot.
 * Fed the count of finished work on every spin, it says 1 once that
 * count has not moved for 2^shift TSC ticks.
 */
struct lm64_progress {
	lk_u32 seen;
	lk_u64 t0;
};

static inline void lm64_progress_begin(struct lm64_progress *p, lk_u32 count)
{
	p->seen = count;
	p->t0 = lk_cpu_rdtsc();
}

static inline int lm64_stalled(struct lm64_progress *p, lk_u32 count,
			       lk_u32 shift)
{
	if (count != p->seen) {
		lm64_progress_begin(p, count);
		return 0;
	}
	return ((lk_cpu_rdtsc() - p->t0) >> shift) != 0;
}

#endif
