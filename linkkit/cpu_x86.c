/*
 * The one place the core asks CPUID (and XGETBV). Under a hypervisor each
 * CPUID is a VM exit, so lk_cpu_features asks once per boot. The BIOS
 * stage runs this too: CPUID exists on every CPU it supports (486+).
 */
#include "cpu.h"

#if defined(__SANITIZE_ADDRESS__)
#define LK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LK_ASAN 1
#endif
#endif

#if defined(__x86_64__) || defined(__i386__)

void lk_cpuid(lk_u32 leaf, lk_u32 sub, lk_u32 r[4])
{
	__asm__ volatile("cpuid"
			 : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(sub));
}

#ifdef __x86_64__
/* AVX2 needs the OS (here: the firmware or the stage) to have enabled
 * the XMM and YMM state in XCR0; with only the CPUID bit set, the first
 * VEX instruction faults. XGETBV exists only when OSXSAVE is set. */
static int lk_ymm_enabled(lk_u32 ecx1)
{
	lk_u32 lo, hi;

	if (!(ecx1 & (1u << 27)) || !(ecx1 & (1u << 28))) /* OSXSAVE, AVX */
		return 0;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (lo & 6) == 6;
}
#endif

lk_u32 lk_cpu_probe(void)
{
	lk_u32 r[4], max, ecx1, f = 0;

	lk_cpuid(0, 0, r);
	max = r[0];
	if (max < 1)
		return 0;
	lk_cpuid(1, 0, r);
	ecx1 = r[2];
	if (ecx1 & (1u << 9))
		f |= LK_CPU_SSSE3;
	if (ecx1 & (1u << 30))
		f |= LK_CPU_RDRAND;
	if (max < 7)
		return f;
	lk_cpuid(7, 0, r);
	if (r[1] & (1u << 9))
		f |= LK_CPU_ERMS;
	if (r[1] & (1u << 8))
		f |= LK_CPU_BMI2;
	if (r[1] & (1u << 18))
		f |= LK_CPU_RDSEED;
	/* sha256_ni.c also byte-swaps with pshufb (SSSE3), blends (SSE4.1). */
	if ((r[1] & (1u << 29)) && (f & LK_CPU_SSSE3) && (ecx1 & (1u << 19)))
		f |= LK_CPU_SHA;
#ifdef __x86_64__
	/* i386 is the BIOS stage's build, whose i386 code runs without the
	 * YMM state (only its long-mode calls have it: stand/lm64.c): no
	 * AVX2 there, so its i386 tests and bench run what it runs. */
	if ((r[1] & (1u << 5)) && lk_ymm_enabled(ecx1))
		f |= LK_CPU_AVX2;
#endif
	return f;
}

lk_u64 lk_cpu_rdtsc(void)
{
	lk_u32 lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (lk_u64)hi << 32 | lo;
}

#define LK_RAND_TRIES 32

/* One 32-bit word (the width both instructions have on i386 too). */
static int lk_rand_word(int seed, lk_u32 *v)
{
	lk_u8 ok = 0;
	int i;

	for (i = 0; i < LK_RAND_TRIES && !ok; i++) {
		if (seed)
			__asm__ volatile("rdseed %0; setc %1"
					 : "=r"(*v), "=qm"(ok));
		else
			__asm__ volatile("rdrand %0; setc %1"
					 : "=r"(*v), "=qm"(ok));
		if (!ok)
			__asm__ volatile("pause");
	}
	return ok;
}

lk_size lk_cpu_random(int seed, void *buf, lk_size len)
{
	lk_u8 *p = buf;
	lk_size done = 0;
	lk_u32 v = 0;
	int i;

	if (!(lk_cpu_probe() & (seed ? LK_CPU_RDSEED : LK_CPU_RDRAND)))
		return 0;
	while (done < len && lk_rand_word(seed, &v))
		for (i = 0; i < 4 && done < len; i++, v >>= 8)
			p[done++] = (lk_u8)v;
	v = 0;
	return done;
}

void lk_cpu_signature(char vendor[13], lk_u32 *sig)
{
	lk_u32 r[4], i;

	lk_cpuid(0, 0, r);
	/* EBX, EDX, ECX: "Genu" "ineI" "ntel". */
	for (i = 0; i < 4; i++) {
		vendor[i] = (char)(r[1] >> (8 * i));
		vendor[4 + i] = (char)(r[3] >> (8 * i));
		vendor[8 + i] = (char)(r[2] >> (8 * i));
	}
	vendor[12] = 0;
	*sig = 0;
	if (r[0] >= 1) {
		lk_cpuid(1, 0, r);
		*sig = r[0];
	}
}

#else

void lk_cpuid(lk_u32 leaf, lk_u32 sub, lk_u32 r[4])
{
	(void)leaf;
	(void)sub;
	r[0] = r[1] = r[2] = r[3] = 0;
}

void lk_cpu_signature(char vendor[13], lk_u32 *sig)
{
	vendor[0] = 0;
	*sig = 0;
}

lk_u32 lk_cpu_probe(void)
{
	return 0;
}

lk_u64 lk_cpu_rdtsc(void)
{
	return 0;
}

lk_size lk_cpu_random(int seed, void *buf, lk_size len)
{
	(void)seed;
	(void)buf;
	(void)len;
	return 0;
}

#endif

lk_u32 lk_cpu_features(void)
{
	/* Bit 31 marks "asked"; no feature uses it. */
	static lk_u32 cached;

#ifdef LK_ASAN
	(void)cached;
	return 0;
#else
	if (!cached)
		cached = lk_cpu_probe() | 0x80000000u;
	return cached & 0x7fffffffu;
#endif
}
