/*
 * Every Adler-32 path (portable, SSSE3, AVX2, and lk_adler32's own choice)
 * against zlib's adler32(): random bytes at every length around the
 * reduction and vector-step boundaries, at misaligned starts, from running
 * values other than 1 (including the largest, a = b = 65520), and long runs
 * of 0xff (the largest sums between two reductions). A vector path the CPU
 * lacks is skipped. This test runs under ASAN, where lk_cpu_features() says
 * 0 and lk_adler32 is portable, so the vector paths are called directly
 * after lk_cpu_probe().
 */
#include <string.h>
#include <zlib.h>

#include "adler32_impl.h"
#include "cpu.h"
#include "tap.h"

typedef lk_u32 adler_fn(lk_u32 adler, const lk_u8 *p, lk_size n);

static lk_u32 via_auto(lk_u32 adler, const lk_u8 *p, lk_size n)
{
	return lk_adler32(adler, p, n);
}

#define BIG (3u << 20)
static unsigned char *buf;

/* One comparison; describes the first mismatch in why. */
static int same(adler_fn *fn, lk_u32 start, size_t off, size_t n, char *why,
		size_t whylen)
{
	lk_u32 want = (lk_u32)adler32(start, buf + off, (uInt)n);
	lk_u32 got = fn(start, buf + off, n);

	if (got == want)
		return 1;
	snprintf(why, whylen,
		 "start %08x offset %zu length %zu: %08x, zlib %08x", start,
		 off, n, got, want);
	return 0;
}

/* Lengths 0..300, around every multiple of the chunk sizes the paths use
 * (5504 vector, 5520 portable, 5552 the bound) up to four chunks, and
 * random ones up to 100 KB; each at offsets 0..63 in turn and from random
 * running values, zlib's start 1 and the largest a = b = 65520. */
static void test_random(adler_fn *fn, const char *name)
{
	static const size_t bases[] = { 5504, 5520, 5552 };
	char why[160] = "";
	int ok = 1;
	size_t n, i, t;

	for (i = 0; i < BIG + 64; i++)
		buf[i] = (unsigned char)tap_rand();
	for (n = 0; n <= 300 && ok; n++)
		ok = same(fn, 1, n % 64, n, why, sizeof(why)) &&
		     same(fn, 0xfff0fff0, (n * 7) % 64, n, why, sizeof(why));
	for (i = 0; i < 3 && ok; i++)
		for (t = 1; t <= 4 && ok; t++)
			for (n = bases[i] * t - 70;
			     n <= bases[i] * t + 70 && ok; n++)
				ok = same(fn, 1, n % 61, n, why, sizeof(why)) &&
				     same(fn, 0xfff0fff0, n % 64, n, why,
					  sizeof(why));
	for (t = 0; t < 300 && ok; t++) {
		lk_u32 start = tap_below(65521) << 16 | tap_below(65521);

		n = tap_below(100000);
		ok = same(fn, start, tap_below(64), n, why, sizeof(why));
	}
	ok = ok && same(fn, 1, 3, BIG, why, sizeof(why));
	tap_check(ok, name, "%s", why);
}

/* All-0xff input from the largest running value: every sum is as large
 * as it can get when the path reduces. */
static void test_ones(adler_fn *fn, const char *name)
{
	static const size_t lens[] = { 5551, 5552, 5553, 11104, 65536, BIG };
	char why[160] = "";
	int ok = 1;
	size_t i, off;

	memset(buf, 0xff, BIG + 64);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]) && ok; i++)
		for (off = 0; off < 4 && ok; off++)
			ok = same(fn, 0xfff0fff0, off * 13, lens[i], why,
				  sizeof(why)) &&
			     same(fn, 1, off, lens[i], why, sizeof(why));
	tap_check(ok, name, "%s", why);
}

static void test_path(adler_fn *fn, const char *path, int have)
{
	char name[64];

	if (!have) {
		printf("skip adler32-%s: this CPU lacks it\n", path);
		return;
	}
	snprintf(name, sizeof(name), "adler32-%s-random-vs-zlib", path);
	test_random(fn, name);
	snprintf(name, sizeof(name), "adler32-%s-0xff-vs-zlib", path);
	test_ones(fn, name);
}

int main(void)
{
	lk_u32 cpu = lk_cpu_probe();

	tap_seed();
	buf = malloc(BIG + 64);
	if (!buf)
		return 1;
	test_path(lk_adler32_portable, "portable", 1);
#ifdef LK_ADLER32_HAVE_SIMD
	test_path(lk_adler32_ssse3, "ssse3", !!(cpu & LK_CPU_SSSE3));
	test_path(lk_adler32_avx2, "avx2", !!(cpu & LK_CPU_AVX2));
#else
	(void)cpu;
	printf("skip adler32-simd: not an x86-64 SSE build\n");
#endif
	test_path(via_auto, "auto", 1);
	free(buf);
	return tap_failed;
}
