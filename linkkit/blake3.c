/*
 * BLAKE3 (hash mode, 32-byte output), as specified by its authors (2020):
 * the input cut into 1 KiB chunks, each hashed on its own with a
 * BLAKE2s-like 7-round compression per 64-byte block and its chunk
 * counter, the chunks' chaining values joined pairwise up a binary tree
 * whose left subtrees are the largest power-of-two number of chunks, the
 * root compressed with the ROOT flag.
 *
 * The kit's digest (LK_KIT_F_BLAKE3): chunks are independent, so whole
 * chunks go through vector lanes (4 with SSSE3, 8 with AVX2; BLAKE3 has
 * no SHA-NI of its own, and the portable SHA-256 was the BIOS stage's
 * largest cost). What it hashes is the kit as it is on disk, but the
 * vector registers are wiped after all, as after every SSE path: no
 * vector state of the stage reaches the kernel (the leak tests check).
 */
#include "cpu.h"
#include "linkkit.h"

#define LK_B3_BLOCK 64u
#define LK_B3_BLOCKS 16u
#define LK_B3_CHUNK (LK_B3_BLOCK * LK_B3_BLOCKS)
#define LK_B3_ROUNDS 7
#define LK_B3_CHUNK_START 1u
#define LK_B3_CHUNK_END 2u
#define LK_B3_PARENT 4u
#define LK_B3_ROOT 8u
/* Enough for 2^54 chunks, far past any lk_size. */
#define LK_B3_MAX_DEPTH 54
#define LK_B3_MAX_LANES 8

static const lk_u32 lk_b3_iv[8] = {
	0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
	0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u,
};

/* Which message word each round reads where: round 0 in order, each next
 * one the previous one through the permutation 2 6 3 10 7 0 4 13 1 11 12
 * 5 9 14 15 8 (so no round permutes the words themselves). */
static const lk_u8 lk_b3_sched[LK_B3_ROUNDS][16] = {
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	{ 2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8 },
	{ 3, 4, 10, 12, 13, 2, 7, 14, 6, 5, 9, 0, 11, 15, 8, 1 },
	{ 10, 7, 12, 9, 14, 3, 13, 15, 4, 0, 11, 2, 5, 8, 1, 6 },
	{ 12, 13, 9, 11, 15, 10, 14, 8, 7, 2, 5, 3, 0, 1, 6, 4 },
	{ 9, 14, 11, 5, 8, 12, 15, 1, 13, 3, 0, 10, 2, 6, 4, 7 },
	{ 11, 15, 5, 0, 1, 9, 8, 6, 14, 10, 2, 12, 3, 4, 7, 13 },
};

static inline lk_u32 lk_b3_le32(const lk_u8 *p)
{
	return (lk_u32)p[0] | (lk_u32)p[1] << 8 | (lk_u32)p[2] << 16 |
	       (lk_u32)p[3] << 24;
}

static inline lk_u32 lk_b3_rotr(lk_u32 x, int n)
{
	return x >> n | x << (32 - n);
}

static inline void lk_b3_g(lk_u32 *v, int a, int b, int c, int d, lk_u32 mx,
			   lk_u32 my)
{
	v[a] += v[b] + mx;
	v[d] = lk_b3_rotr(v[d] ^ v[a], 16);
	v[c] += v[d];
	v[b] = lk_b3_rotr(v[b] ^ v[c], 12);
	v[a] += v[b] + my;
	v[d] = lk_b3_rotr(v[d] ^ v[a], 8);
	v[c] += v[d];
	v[b] = lk_b3_rotr(v[b] ^ v[c], 7);
}

/* The compression's first half of output: the next chaining value. */
static void lk_b3_compress(const lk_u32 cv[8], const lk_u32 m[16],
			   lk_u64 counter, lk_u32 len, lk_u32 flags,
			   lk_u32 out[8])
{
	lk_u32 v[16];
	int r, i;

	for (i = 0; i < 8; i++) {
		v[i] = cv[i];
		v[8 + i] = lk_b3_iv[i];
	}
	v[12] = (lk_u32)counter;
	v[13] = (lk_u32)(counter >> 32);
	v[14] = len;
	v[15] = flags;
#pragma GCC unroll 7
	for (r = 0; r < LK_B3_ROUNDS; r++) {
		const lk_u8 *s = lk_b3_sched[r];

		lk_b3_g(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
		lk_b3_g(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
		lk_b3_g(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
		lk_b3_g(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
		lk_b3_g(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
		lk_b3_g(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
		lk_b3_g(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
		lk_b3_g(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
	}
	for (i = 0; i < 8; i++)
		out[i] = v[i] ^ v[8 + i];
}

/* A compression not yet done: the last block of a chunk or a parent,
 * which becomes a chaining value, or with ROOT the digest. */
struct lk_b3_out {
	lk_u32 cv[8];
	lk_u32 m[16];
	lk_u64 counter;
	lk_u32 len, flags;
};

static void lk_b3_words(lk_u32 m[16], const lk_u8 *p, lk_size n)
{
	lk_u8 block[LK_B3_BLOCK];
	lk_size i;

	for (i = 0; i < LK_B3_BLOCK; i++)
		block[i] = i < n ? p[i] : 0;
	for (i = 0; i < 16; i++)
		m[i] = lk_b3_le32(block + 4 * i);
}

/* The chunk at p of n bytes (1..1 KiB; 0 only for the empty input): every
 * block compressed but the last, which is left in o. */
static void lk_b3_chunk(const lk_u8 *p, lk_size n, lk_u64 counter,
			struct lk_b3_out *o)
{
	lk_u32 flags = LK_B3_CHUNK_START;

	lk_memcpy(o->cv, lk_b3_iv, sizeof(o->cv));
	for (; n > LK_B3_BLOCK; n -= LK_B3_BLOCK, p += LK_B3_BLOCK) {
		lk_b3_words(o->m, p, LK_B3_BLOCK);
		lk_b3_compress(o->cv, o->m, counter, LK_B3_BLOCK, flags,
			       o->cv);
		flags = 0;
	}
	lk_b3_words(o->m, p, n);
	o->counter = counter;
	o->len = (lk_u32)n;
	o->flags = flags | LK_B3_CHUNK_END;
}

static void lk_b3_parent(const lk_u32 left[8], const lk_u32 right[8],
			 struct lk_b3_out *o)
{
	lk_memcpy(o->cv, lk_b3_iv, sizeof(o->cv));
	lk_memcpy(o->m, left, 32);
	lk_memcpy(o->m + 8, right, 32);
	o->counter = 0;
	o->len = LK_B3_BLOCK;
	o->flags = LK_B3_PARENT;
}

static void lk_b3_finish(const struct lk_b3_out *o, lk_u32 extra,
			 lk_u32 cv[8])
{
	lk_b3_compress(o->cv, o->m, o->counter, o->len, o->flags | extra, cv);
}

#if defined(__x86_64__) || defined(__i386__)
#define LK_B3_HAVE_WIDE 1
#define LK_B3W_FN(x) lk_b3w4_##x
#define LK_B3W_V lk_b3_v4
#define LK_B3W_B lk_b3_b16
#define LK_B3W_LANES 4
#define LK_B3W_TARGET __attribute__((target("ssse3")))
#define LK_B3W_NAME lk_b3_chunks4
#define LK_B3W_ROT16 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13
#define LK_B3W_ROT8 1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12
#define LK_B3W_LOAD lk_b3w4_load
typedef lk_u32 lk_b3_v4 __attribute__((vector_size(16)));
typedef lk_u32 lk_b3_v4u __attribute__((vector_size(16), aligned(1)));
typedef signed char lk_b3_b16 __attribute__((vector_size(16)));

/* The blocks of four chunks as 16 vectors of one word each: 4x4
 * transposes of 16-byte loads (gathering word by word took longer than
 * the rounds). */
__attribute__((target("ssse3"))) static inline void
lk_b3w4_load(lk_b3_v4 m[16], const lk_u8 *p)
{
	lk_b3_v4 r[4], t[4];
	int q, j;

	for (q = 0; q < 4; q++) {
		for (j = 0; j < 4; j++)
			r[j] = *(const lk_b3_v4u *)(p + j * LK_B3_CHUNK + 16 * q);
		t[0] = __builtin_shufflevector(r[0], r[1], 0, 4, 1, 5);
		t[1] = __builtin_shufflevector(r[0], r[1], 2, 6, 3, 7);
		t[2] = __builtin_shufflevector(r[2], r[3], 0, 4, 1, 5);
		t[3] = __builtin_shufflevector(r[2], r[3], 2, 6, 3, 7);
		m[4 * q + 0] = __builtin_shufflevector(t[0], t[2], 0, 1, 4, 5);
		m[4 * q + 1] = __builtin_shufflevector(t[0], t[2], 2, 3, 6, 7);
		m[4 * q + 2] = __builtin_shufflevector(t[1], t[3], 0, 1, 4, 5);
		m[4 * q + 3] = __builtin_shufflevector(t[1], t[3], 2, 3, 6, 7);
	}
}
#include "blake3_wide.h"

#define LK_B3W_FN(x) lk_b3w8_##x
#define LK_B3W_V lk_b3_v8
#define LK_B3W_B lk_b3_b32
#define LK_B3W_LANES 8
#define LK_B3W_TARGET __attribute__((target("avx2")))
#define LK_B3W_NAME lk_b3_chunks8
#define LK_B3W_ROT16                                                     \
	2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 18, 19, 16, 17, \
		22, 23, 20, 21, 26, 27, 24, 25, 30, 31, 28, 29
#define LK_B3W_ROT8                                                      \
	1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12, 17, 18, 19, 16, \
		21, 22, 23, 20, 25, 26, 27, 24, 29, 30, 31, 28
#define LK_B3W_LOAD lk_b3w8_load
typedef lk_u32 lk_b3_v8 __attribute__((vector_size(32)));
typedef lk_u32 lk_b3_v8u __attribute__((vector_size(32), aligned(1)));
typedef signed char lk_b3_b32 __attribute__((vector_size(32)));

/* The same for eight chunks: 8x8 transposes of 32-byte loads (pairs of
 * words, then of pairs, within each 16-byte half, then the halves). */
__attribute__((target("avx2"))) static inline void
lk_b3w8_load(lk_b3_v8 m[16], const lk_u8 *p)
{
	lk_b3_v8 r[8], a[8], c[8];
	int q, j;

	for (q = 0; q < 2; q++) {
		for (j = 0; j < 8; j++)
			r[j] = *(const lk_b3_v8u *)(p + j * LK_B3_CHUNK + 32 * q);
		for (j = 0; j < 8; j += 2) {
			a[j] = __builtin_shufflevector(r[j], r[j + 1], 0, 8, 1, 9, 4, 12, 5, 13);
			a[j + 1] = __builtin_shufflevector(r[j], r[j + 1], 2, 10, 3, 11, 6, 14, 7, 15);
		}
		/* c[4h + k]: word k of each half (lanes 4h..4h+3, in the
		 * low half words 0-3, in the high half 4-7). */
		for (j = 0; j < 2; j++) {
			c[4 * j + 0] = __builtin_shufflevector(a[4 * j], a[4 * j + 2], 0, 1, 8, 9, 4, 5, 12, 13);
			c[4 * j + 1] = __builtin_shufflevector(a[4 * j], a[4 * j + 2], 2, 3, 10, 11, 6, 7, 14, 15);
			c[4 * j + 2] = __builtin_shufflevector(a[4 * j + 1], a[4 * j + 3], 0, 1, 8, 9, 4, 5, 12, 13);
			c[4 * j + 3] = __builtin_shufflevector(a[4 * j + 1], a[4 * j + 3], 2, 3, 10, 11, 6, 7, 14, 15);
		}
		for (j = 0; j < 4; j++) {
			m[8 * q + j] = __builtin_shufflevector(c[j], c[4 + j], 0, 1, 2, 3, 8, 9, 10, 11);
			m[8 * q + 4 + j] = __builtin_shufflevector(c[j], c[4 + j], 4, 5, 6, 7, 12, 13, 14, 15);
		}
	}
}
#include "blake3_wide.h"
#endif

static int lk_b3_path = LK_BLAKE3_AUTO;

void lk_blake3_path(int path)
{
	lk_b3_path = path;
}

int lk_blake3_build(void)
{
#ifdef LK_B3_HAVE_WIDE
	lk_u32 f = lk_cpu_features();

	if (lk_b3_path != LK_BLAKE3_AUTO)
		return lk_b3_path;
	return (f & LK_CPU_AVX2)    ? LK_BLAKE3_AVX2
	       : (f & LK_CPU_SSSE3) ? LK_BLAKE3_SSSE3
				    : LK_BLAKE3_PORTABLE;
#else
	return LK_BLAKE3_PORTABLE;
#endif
}

/* Chaining values of up to n whole chunks from p (chunk counter
 * counter) with build `path`; returns how many it did, *wide set if
 * vector lanes did. */
static lk_size lk_b3_chunks(const lk_u8 *p, lk_size n, lk_u64 counter,
			    int path, lk_u32 out[LK_B3_MAX_LANES][8],
			    int *wide)
{
	struct lk_b3_out o;
#ifdef LK_B3_HAVE_WIDE
	if (path == LK_BLAKE3_AVX2 && n >= 8) {
		lk_b3_chunks8(p, counter, out);
		*wide = 1;
		return 8;
	}
	if (path != LK_BLAKE3_PORTABLE && n >= 4) {
		lk_b3_chunks4(p, counter, out);
		*wide = 1;
		return 4;
	}
#else
	(void)path;
	(void)wide;
#endif
	lk_b3_chunk(p, LK_B3_CHUNK, counter, &o);
	lk_b3_finish(&o, 0, out[0]);
	return 1;
}

/* Chunk `total - 1`'s chaining value joins the tree: with every subtree
 * it completes (one per trailing zero bit of total). */
static void lk_b3_push(lk_u32 stack[][8], int *depth, lk_u32 cv[8],
		       lk_u64 total)
{
	struct lk_b3_out o;

	for (; (total & 1) == 0 && *depth > 0; total >>= 1) {
		lk_b3_parent(stack[--*depth], cv, &o);
		lk_b3_finish(&o, 0, cv);
	}
	lk_memcpy(stack[(*depth)++], cv, 32);
}

void lk_blake3(const void *data, lk_size len, lk_u8 out[32])
{
	const lk_u8 *p = data;
	lk_u64 nchunks = len ? (len - 1) / LK_B3_CHUNK + 1 : 1, i = 0, k;
	lk_u32 stack[LK_B3_MAX_DEPTH][8], cvs[LK_B3_MAX_LANES][8], cv[8];
	struct lk_b3_out o;
	int depth = 0, wide = 0, path = lk_blake3_build();

	/* Every chunk but the last: which one ends the input decides where
	 * ROOT goes, so it waits. */
	while (i + 1 < nchunks) {
		k = lk_b3_chunks(p + i * LK_B3_CHUNK, nchunks - 1 - i, i, path,
				 cvs, &wide);
		for (lk_u64 j = 0; j < k; j++)
			lk_b3_push(stack, &depth, cvs[j], i + j + 1);
		i += k;
	}
#ifdef LK_B3_HAVE_WIDE
	/* The AVX2 build's vzeroupper cleared the upper halves already. */
	if (wide)
		lk_cpu_xmm_wipe();
#endif
	lk_b3_chunk(p + i * LK_B3_CHUNK, len - i * LK_B3_CHUNK, i, &o);
	while (depth > 0) {
		lk_b3_finish(&o, 0, cv);
		lk_b3_parent(stack[--depth], cv, &o);
	}
	lk_b3_finish(&o, LK_B3_ROOT, cv);
	for (int b = 0; b < 32; b++)
		out[b] = (lk_u8)(cv[b / 4] >> (8 * (b % 4)));
}
