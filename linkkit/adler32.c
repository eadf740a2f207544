/*
 * Adler-32 (RFC 1950, 8.2), the zlib stream's check of the inflated
 * payload: a = 1 + the sum of the bytes, b = the sum of every successive
 * a, both mod 65521. On 60 MB payloads the scalar loop costs as much as a
 * sixth of the inflate, so x86-64 builds that may use SSE (host, UEFI
 * stage) have vector paths chosen by lk_cpu_features(); the portable path
 * runs everywhere else (BIOS stage, CPUs without SSSE3, ASAN builds).
 * The vector paths use the compiler's vector types and target-attributed
 * builtins, not <immintrin.h>, which pulls in libc headers.
 */
#include "adler32_impl.h"
#include "cpu.h"

#define LK_ADLER_MOD 65521u

/*
 * Bytes between two reductions mod 65521 (zlib's NMAX). Starting from
 * a, b <= 65520, n bytes of 0xff end with
 *   b = 65520 + 65520 n + 255 n (n + 1) / 2,
 * 4294690200 for n = 5552 and above 2^32 - 1 for n = 5553. Every path
 * reduces at least every 5552 bytes. Each partial sum a path keeps
 * (vector lanes, lane totals) is a non-negative part of that b, so it
 * fits in 32 bits too, and wrapping u32 arithmetic is exact.
 */
#define LK_ADLER_NMAX 5552

static lk_u32 lk_adler_join(lk_u32 a, lk_u32 b)
{
	return b << 16 | a;
}

/* ---- portable: eight bytes per step in 16-bit lanes of a u64 ---- */

typedef lk_u64 __attribute__((may_alias, aligned(1))) lk_unal64;

/*
 * Adler-32 of 8n bytes, n <= 15: lane i of the even/odd halves holds byte
 * 2i/2i+1 of each word. With L = lane sums after each word and P = the sum
 * of those L, the block adds sum(L) to a and 8n*a + 8*sum(P) - sum(m *
 * L[m]) to b (byte m of a word weighs 8(n-k) - m in word k). Lanes stay
 * below 2^16: L <= 510*15, P <= 510*120.
 */
#define LK_ADLER_WORDS 15
#define LK_LANES 0x00ff00ff00ff00ffULL

static lk_u32 lk_lane_sum(lk_u64 v)
{
	return (lk_u32)(v & 0xffff) + (lk_u32)(v >> 16 & 0xffff) +
	       (lk_u32)(v >> 32 & 0xffff) + (lk_u32)(v >> 48);
}

static void lk_adler_words(lk_u32 *a, lk_u32 *b, const lk_u8 *p, unsigned n)
{
	lk_u64 l = 0, odd = 0, sp = 0;
	unsigned k;

	for (k = 0; k < n; k++, p += 8) {
		lk_u64 v = *(const lk_unal64 *)p;
		lk_u64 hi = v >> 8 & LK_LANES;

		l += (v & LK_LANES) + hi;
		odd += hi;
		sp += l;
	}
	/* sum(m * L[m]) = 2 * sum(i * l[i]) + sum(odd). */
	*b += 8 * n * *a + 8 * lk_lane_sum(sp) -
	      2 * ((lk_u32)(l >> 16 & 0xffff) + 2 * (lk_u32)(l >> 32 & 0xffff) +
		   3 * (lk_u32)(l >> 48)) -
	      lk_lane_sum(odd);
	*a += lk_lane_sum(l);
}

lk_u32 lk_adler32_portable(lk_u32 adler, const lk_u8 *p, lk_size n)
{
	lk_u32 a = adler & 0xffff, b = adler >> 16;

	while (n) {
		/* 46 blocks of 120 bytes: the largest such chunk <= NMAX */
		lk_size k = n < 5520 ? n : 5520;

		n -= k;
		for (; k >= 8 * LK_ADLER_WORDS; k -= 8 * LK_ADLER_WORDS) {
			lk_adler_words(&a, &b, p, LK_ADLER_WORDS);
			p += 8 * LK_ADLER_WORDS;
		}
		lk_adler_words(&a, &b, p, (unsigned)k / 8);
		p += k & ~(lk_size)7;
		for (k &= 7; k; k--) {
			a += *p++;
			b += a;
		}
		a %= LK_ADLER_MOD;
		b %= LK_ADLER_MOD;
	}
	return lk_adler_join(a, b);
}

#ifdef LK_ADLER32_HAVE_SIMD

/*
 * Vector paths: 64 bytes per step, as V vectors of W = 64 / V bytes.
 * Per vector, in step order: ps += s1 (each earlier vector's bytes count
 * W more times in b for every later vector), s1 += the byte sum (psadbw,
 * into 64-bit lanes), and the within-vector weights W..1 go through
 * pmaddubsw (unsigned bytes times signed weights, adjacent pairs summed
 * into 16 bits) and pmaddwd by 1 (pairs of those into 32 bits). So a chunk
 * of k bytes adds sum(s1) to a and k*a + W*sum(ps) + sum(s2) to b. A
 * pmaddubsw lane is at most 255 * (W + W - 1), which never saturates;
 * 64 / W of them (one per vector of the step) are added in 16 bits before
 * pmaddwd: 4 * 7905 (W = 16) and 2 * 16065 (W = 32) stay below 2^15.
 */
#define LK_ADLER_STEP 64
#define LK_ADLER_STEPS (LK_ADLER_NMAX / LK_ADLER_STEP) /* 86: 5504 B */

typedef void lk_adler_chunk(lk_u32 *a, lk_u32 *b, const lk_u8 *p,
			    lk_size steps);

/* Whole chunks through `chunk`, reduced after each; the last < 64 bytes
 * through the portable code. */
static lk_u32 lk_adler32_vec(lk_u32 adler, const lk_u8 *p, lk_size n,
			     lk_adler_chunk *chunk)
{
	lk_u32 a = adler & 0xffff, b = adler >> 16;

	while (n >= LK_ADLER_STEP) {
		lk_size steps = n / LK_ADLER_STEP;

		if (steps > LK_ADLER_STEPS)
			steps = LK_ADLER_STEPS;
		chunk(&a, &b, p, steps);
		p += steps * LK_ADLER_STEP;
		n -= steps * LK_ADLER_STEP;
		a %= LK_ADLER_MOD;
		b %= LK_ADLER_MOD;
	}
	return lk_adler32_portable(lk_adler_join(a, b), p, n);
}

typedef char lk_vb16 __attribute__((vector_size(16)));
typedef char lk_vb16u __attribute__((vector_size(16), aligned(1), may_alias));
typedef short lk_vh8 __attribute__((vector_size(16)));
typedef unsigned lk_vu4 __attribute__((vector_size(16)));

#define LK_SSSE3 __attribute__((target("ssse3")))

LK_SSSE3 static lk_vu4 lk_sad16(lk_vb16 v)
{
	return (lk_vu4)__builtin_ia32_psadbw128(v, (lk_vb16){ 0 });
}

LK_SSSE3 static lk_vh8 lk_mul16(lk_vb16 v)
{
	const lk_vb16 w = { 16, 15, 14, 13, 12, 11, 10, 9,
			    8,	7,  6,	5,  4,	3,  2,	1 };

	return __builtin_ia32_pmaddubsw128(v, w);
}

LK_SSSE3 static lk_u32 lk_hsum16(lk_vu4 v)
{
	return v[0] + v[1] + v[2] + v[3];
}

LK_SSSE3 LK_SSE_ENTRY static void lk_chunk_ssse3(lk_u32 *a, lk_u32 *b, const lk_u8 *p,
				    lk_size steps)
{
	const lk_vh8 one = { 1, 1, 1, 1, 1, 1, 1, 1 };
	lk_vu4 s1 = { 0 }, ps = { 0 }, s2 = { 0 };

	*b += *a * (lk_u32)(steps * LK_ADLER_STEP);
	for (; steps; steps--, p += LK_ADLER_STEP) {
		lk_vb16 v0 = *(const lk_vb16u *)p;
		lk_vb16 v1 = *(const lk_vb16u *)(p + 16);
		lk_vb16 v2 = *(const lk_vb16u *)(p + 32);
		lk_vb16 v3 = *(const lk_vb16u *)(p + 48);
		lk_vh8 m = lk_mul16(v0) + lk_mul16(v1) + lk_mul16(v2) +
			   lk_mul16(v3);

		ps += s1;
		s1 += lk_sad16(v0);
		ps += s1;
		s1 += lk_sad16(v1);
		ps += s1;
		s1 += lk_sad16(v2);
		ps += s1;
		s1 += lk_sad16(v3);
		s2 += (lk_vu4)__builtin_ia32_pmaddwd128(m, one);
	}
	*b += 16 * lk_hsum16(ps) + lk_hsum16(s2);
	*a += lk_hsum16(s1);
}

/* The BIOS stage's kernel gets the vector registers as the stage leaves
 * them (the leak tests read them at its entry): the sums are wiped, as
 * sha256_ni.c wipes its state. x86-64 stages leave that to the firmware's
 * handoff and the kernel. */
lk_u32 lk_adler32_ssse3(lk_u32 adler, const lk_u8 *p, lk_size n)
{
	lk_u32 r = lk_adler32_vec(adler, p, n, lk_chunk_ssse3);

#ifdef __i386__
	lk_cpu_xmm_wipe();
#endif
	return r;
}

typedef char lk_vb32 __attribute__((vector_size(32)));
typedef char lk_vb32u __attribute__((vector_size(32), aligned(1), may_alias));
typedef short lk_vh16 __attribute__((vector_size(32)));
typedef unsigned lk_vu8 __attribute__((vector_size(32)));

#define LK_AVX2 __attribute__((target("avx2")))

LK_AVX2 static lk_vu8 lk_sad32(lk_vb32 v)
{
	return (lk_vu8)__builtin_ia32_psadbw256(v, (lk_vb32){ 0 });
}

LK_AVX2 static lk_vh16 lk_mul32(lk_vb32 v)
{
	const lk_vb32 w = { 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22,
			    21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11,
			    10, 9,  8,	7,  6,	5,  4,	3,  2,	1 };

	return __builtin_ia32_pmaddubsw256(v, w);
}

LK_AVX2 static lk_u32 lk_hsum32(lk_vu8 v)
{
	return v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
}

LK_AVX2 static void lk_chunk_avx2(lk_u32 *a, lk_u32 *b, const lk_u8 *p,
				  lk_size steps)
{
	const lk_vh16 one = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	lk_vu8 s1 = { 0 }, ps = { 0 }, s2 = { 0 };

	*b += *a * (lk_u32)(steps * LK_ADLER_STEP);
	for (; steps; steps--, p += LK_ADLER_STEP) {
		lk_vb32 v0 = *(const lk_vb32u *)p;
		lk_vb32 v1 = *(const lk_vb32u *)(p + 32);
		lk_vh16 m = lk_mul32(v0) + lk_mul32(v1);

		ps += s1;
		s1 += lk_sad32(v0);
		ps += s1;
		s1 += lk_sad32(v1);
		s2 += (lk_vu8)__builtin_ia32_pmaddwd256(m, one);
	}
	*b += 32 * lk_hsum32(ps) + lk_hsum32(s2);
	*a += lk_hsum32(s1);
}

lk_u32 lk_adler32_avx2(lk_u32 adler, const lk_u8 *p, lk_size n)
{
	return lk_adler32_vec(adler, p, n, lk_chunk_avx2);
}

#endif

lk_u32 lk_adler32(lk_u32 adler, const void *p, lk_size n)
{
#ifdef LK_ADLER32_HAVE_SIMD
	lk_u32 f = lk_cpu_features();

	if (f & LK_CPU_AVX2)
		return lk_adler32_avx2(adler, p, n);
	if (f & LK_CPU_SSSE3)
		return lk_adler32_ssse3(adler, p, n);
#endif
	return lk_adler32_portable(adler, p, n);
}
