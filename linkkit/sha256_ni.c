/*
 * SHA-256 compression on the x86 SHA extensions (SHA-NI). Only the
 * functions below use SSE, through their target attribute, so the file
 * needs no special flags and no <immintrin.h> (which pulls in libc
 * headers). sha256.c calls them only when lk_cpu_features() reports the
 * extensions.
 *
 * SHA256RNDS2 keeps the state as two registers, {A,B,E,F} and {C,D,G,H}
 * (A, C in the top lane), and does two rounds per instruction with W+K
 * for those rounds in the low lanes of xmm0. Two rounds later the old
 * ABEF is exactly the new CDGH, so the two registers swap roles instead
 * of being shuffled. SHA256MSG1/MSG2 do the message schedule four words
 * at a time.
 */
#include "cpu.h"
#include "sha256_impl.h"

#ifdef LK_SHA256_HAVE_NI

/* Unsigned lanes: the additions wrap (signed ones would be UB). The
 * builtins take signed lanes, hence the casts in the wrappers below. */
typedef unsigned int lk_v4 __attribute__((vector_size(16)));
typedef int lk_v4s __attribute__((vector_size(16)));
typedef char lk_v16 __attribute__((vector_size(16)));
/* Unaligned loads: the kit's data sits at any byte offset. */
typedef unsigned int lk_v4u
	__attribute__((vector_size(16), aligned(1), may_alias));

#define LK_NI_TARGET __attribute__((target("sha,ssse3,sse4.1")))

LK_NI_TARGET static lk_v4 lk_ni_rnds2(lk_v4 cdgh, lk_v4 abef, lk_v4 wk)
{
	return (lk_v4)__builtin_ia32_sha256rnds2((lk_v4s)cdgh, (lk_v4s)abef,
						 (lk_v4s)wk);
}

/* Big-endian message words, lane 0 first. */
LK_NI_TARGET static lk_v4 lk_ni_load(const lk_u8 *p)
{
	lk_v16 b = (lk_v16) * (const lk_v4u *)p;

	return (lk_v4)__builtin_shufflevector(b, b, 3, 2, 1, 0, 7, 6, 5, 4, 11,
					      10, 9, 8, 15, 14, 13, 12);
}

/* Next four schedule words W[i+16..i+19] from m0 = W[i..i+3] up to
 * m3 = W[i+12..i+15]: MSG1 adds sigma0 of W[i+1..i+4], the middle term
 * is W[i+9..i+12], MSG2 adds sigma1 (of its own results for the last
 * two lanes). */
LK_NI_TARGET static lk_v4 lk_ni_next(lk_v4 m0, lk_v4 m1, lk_v4 m2, lk_v4 m3)
{
	lk_v4 t = (lk_v4)__builtin_ia32_sha256msg1((lk_v4s)m0, (lk_v4s)m1);

	t += __builtin_shufflevector(m2, m3, 1, 2, 3, 4);
	return (lk_v4)__builtin_ia32_sha256msg2((lk_v4s)t, (lk_v4s)m3);
}

/* Four rounds with message words m and constants K[4i..4i+3]. */
#define LK_NI_4ROUNDS(m, i)                                              \
	do {                                                             \
		lk_v4 wk = (m) + *(const lk_v4u *)&lk_sha256_k[4 * (i)]; \
		cdgh = lk_ni_rnds2(cdgh, abef, wk);                      \
		wk = __builtin_shufflevector(wk, wk, 2, 3, 0, 1);        \
		abef = lk_ni_rnds2(abef, cdgh, wk);                      \
	} while (0)

LK_NI_TARGET static void lk_ni_block(lk_v4 *abef_p, lk_v4 *cdgh_p,
				     const lk_u8 *p)
{
	lk_v4 abef = *abef_p, cdgh = *cdgh_p;
	lk_v4 m0 = lk_ni_load(p), m1 = lk_ni_load(p + 16);
	lk_v4 m2 = lk_ni_load(p + 32), m3 = lk_ni_load(p + 48);
	int i;

	/* Each group of four rounds uses m0 and then replaces it with the
	 * words twelve rounds ahead; the last four groups need no more. */
	for (i = 0; i < 16; i += 4) {
		LK_NI_4ROUNDS(m0, i);
		if (i < 12)
			m0 = lk_ni_next(m0, m1, m2, m3);
		LK_NI_4ROUNDS(m1, i + 1);
		if (i < 12)
			m1 = lk_ni_next(m1, m2, m3, m0);
		LK_NI_4ROUNDS(m2, i + 2);
		if (i < 12)
			m2 = lk_ni_next(m2, m3, m0, m1);
		LK_NI_4ROUNDS(m3, i + 3);
		if (i < 12)
			m3 = lk_ni_next(m3, m0, m1, m2);
	}
	*abef_p += abef;
	*cdgh_p += cdgh;
}

LK_NI_TARGET LK_SSE_ENTRY void lk_sha256_blocks_ni(lk_u32 st[8], const lk_u8 *p, lk_size n)
{
	lk_v4 lo = *(const lk_v4u *)st, hi = *(const lk_v4u *)(st + 4);
	/* {a,b,c,d},{e,f,g,h} -> lanes {F,E,B,A} and {H,G,D,C}. */
	lk_v4 abef = __builtin_shufflevector(lo, hi, 5, 4, 1, 0);
	lk_v4 cdgh = __builtin_shufflevector(lo, hi, 7, 6, 3, 2);

	for (; n; n--, p += 64)
		lk_ni_block(&abef, &cdgh, p);
	*(lk_v4u *)st = __builtin_shufflevector(abef, cdgh, 3, 2, 7, 6);
	*(lk_v4u *)(st + 4) = __builtin_shufflevector(abef, cdgh, 1, 0, 5, 4);
	/* Message words (the RNG's seed) must not outlive the call in
	 * vector registers, where a kernel could read them at entry; the
	 * portable code wipes its schedule the same way. The clobbers make
	 * the compiler keep nothing live in them across the wipe. */
	lk_cpu_xmm_wipe();
}

#endif
