/*
 * Adler-32 throughput of every path this CPU can run, and zlib's, over a
 * buffer the size of the synthetic bench kernel's payload (60 MB, larger
 * than the caches, as at boot). Best of 9 runs in thread CPU time (the
 * machine is shared); each result is checked against zlib's.
 */
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "adler32_impl.h"
#include "cpu.h"
#include "tap.h"

#define SIZE 60098104u
#define RUNS 9

typedef lk_u32 adler_fn(lk_u32 adler, const lk_u8 *p, lk_size n);

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static lk_u32 via_zlib(lk_u32 adler, const lk_u8 *p, lk_size n)
{
	return (lk_u32)adler32(adler, p, (uInt)n);
}

static lk_u32 via_auto(lk_u32 adler, const lk_u8 *p, lk_size n)
{
	return lk_adler32(adler, p, n);
}

static int run(adler_fn *fn, const char *name, const unsigned char *buf,
	       lk_u32 want)
{
	double best = 1e9;
	lk_u32 got = 0;

	for (int i = 0; i < RUNS; i++) {
		double t = cpu_ms();

		got = fn(1, buf, SIZE);
		t = cpu_ms() - t;
		if (t < best)
			best = t;
	}
	printf("adler32 %-8s %7.3f ms %6.2f GB/s%s\n", name, best,
	       SIZE / best / 1e6, got == want ? "" : "  WRONG");
	return got == want;
}

int main(void)
{
	unsigned char *buf = malloc(SIZE);
	lk_u32 cpu = lk_cpu_probe(), want;
	int ok = 1;

	if (!buf)
		return 1;
	for (size_t i = 0; i < SIZE; i++)
		buf[i] = (unsigned char)tap_rand();
	want = via_zlib(1, buf, SIZE);
	printf("adler32: %u bytes, best of %d, CPU features %#x "
	       "(lk_cpu_features %#x)\n",
	       SIZE, RUNS, cpu, lk_cpu_features());
	ok &= run(via_zlib, "zlib", buf, want);
	ok &= run(lk_adler32_portable, "portable", buf, want);
#ifdef LK_ADLER32_HAVE_SIMD
	if (cpu & LK_CPU_SSSE3)
		ok &= run(lk_adler32_ssse3, "ssse3", buf, want);
	if (cpu & LK_CPU_AVX2)
		ok &= run(lk_adler32_avx2, "avx2", buf, want);
#endif
	ok &= run(via_auto, "auto", buf, want);
	free(buf);
	return !ok;
}
