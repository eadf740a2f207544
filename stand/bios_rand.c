/* CPU entropy sources: RDSEED/RDRAND when CPUID says so, and the TSC. */
#include "bios.h"

static void cpuid(lk_u32 leaf, lk_u32 sub, lk_u32 r[4])
{
	__asm__ volatile("cpuid"
			 : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(sub));
}

int cpu_has_rdrand(void)
{
	lk_u32 r[4];

	cpuid(0, 0, r);
	if (r[0] < 1)
		return 0;
	cpuid(1, 0, r);
	return (r[2] >> 30) & 1;
}

int cpu_has_rdseed(void)
{
	lk_u32 r[4];

	cpuid(0, 0, r);
	if (r[0] < 7)
		return 0;
	cpuid(7, 0, r);
	return (r[1] >> 18) & 1;
}

/* The instructions may transiently fail (CF=0); retry a bounded number
 * of times and report how many bytes really came from the CPU. */
#define RAND_TRIES 32

static int rdrand32(lk_u32 *v)
{
	for (int i = 0; i < RAND_TRIES; i++) {
		lk_u8 ok;

		__asm__ volatile("rdrand %0; setc %1" : "=r"(*v), "=qm"(ok));
		if (ok)
			return 1;
	}
	return 0;
}

static int rdseed32(lk_u32 *v)
{
	for (int i = 0; i < RAND_TRIES; i++) {
		lk_u8 ok;

		__asm__ volatile("rdseed %0; setc %1" : "=r"(*v), "=qm"(ok));
		if (ok)
			return 1;
		__asm__ volatile("pause");
	}
	return 0;
}

static lk_size fill(void *buf, lk_size len, int (*get)(lk_u32 *))
{
	lk_u8 *p = buf;
	lk_size done = 0;

	while (done < len) {
		lk_u32 v;

		if (!get(&v))
			break;
		for (int i = 0; i < 4 && done < len; i++, v >>= 8)
			p[done++] = (lk_u8)v;
	}
	return done;
}

lk_size cpu_rdrand(void *buf, lk_size len)
{
	return fill(buf, len, rdrand32);
}

lk_size cpu_rdseed(void *buf, lk_size len)
{
	return fill(buf, len, rdseed32);
}

lk_u64 cpu_rdtsc(void)
{
	lk_u32 lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (lk_u64)hi << 32 | lo;
}
