/*
 * CPU features the core's fast paths depend on, from one CPUID helper
 * (linkkit/cpu_x86.c). Every path chosen by these bits has a portable
 * twin that runs where the bit is clear: the BIOS stage, QEMU's default
 * CPU, sanitizer builds.
 */
#ifndef LK_CPU_H
#define LK_CPU_H

#include "lk_types.h"

#define LK_CPU_ERMS 0x1u /* fast rep movsb/stosb */
#define LK_CPU_SHA 0x2u	 /* SHA + SSSE3 + SSE4.1 (what sha256_ni.c needs) */
#define LK_CPU_SSSE3 0x4u
/* AVX2 AND the firmware/OS enabled XMM+YMM state: CPUID.1:ECX OSXSAVE then
 * XGETBV(0) & 6 == 6. UEFI firmware often leaves YMM off: then no AVX2. */
#define LK_CPU_AVX2 0x8u
#define LK_CPU_BMI2 0x10u
#define LK_CPU_RDRAND 0x20u
#define LK_CPU_RDSEED 0x40u

/* On the entry points of code that uses SSE registers (SHA-NI, the
 * vector Adler-32): an i386 caller's stack may be only 4-byte aligned (the
 * BIOS stage's is), and the compiler spills vectors with aligned stores,
 * so those functions realign it themselves. */
#if defined(__i386__)
#define LK_SSE_ENTRY __attribute__((force_align_arg_pointer))
#else
#define LK_SSE_ENTRY
#endif

/* Zeroes the vector registers the SSE paths use, so no message word or
 * sum outlives them into the kernel the stage starts (xmm0-7 on i386). */
static inline __attribute__((target("sse2"))) void lk_cpu_xmm_wipe(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\t"
			 "pxor %%xmm2, %%xmm2\n\tpxor %%xmm3, %%xmm3\n\t"
			 "pxor %%xmm4, %%xmm4\n\tpxor %%xmm5, %%xmm5\n\t"
			 "pxor %%xmm6, %%xmm6\n\tpxor %%xmm7, %%xmm7"
			 :
			 :
			 : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
			   "xmm6", "xmm7");
#endif
#ifdef __x86_64__
	__asm__ volatile("pxor %%xmm8, %%xmm8\n\tpxor %%xmm9, %%xmm9\n\t"
			 "pxor %%xmm10, %%xmm10\n\tpxor %%xmm11, %%xmm11\n\t"
			 "pxor %%xmm12, %%xmm12\n\tpxor %%xmm13, %%xmm13\n\t"
			 "pxor %%xmm14, %%xmm14\n\tpxor %%xmm15, %%xmm15"
			 :
			 :
			 : "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",
			   "xmm14", "xmm15");
#endif
}

/* Asked once, cached; 0 on non-x86 and under ASAN (AddressSanitizer cannot
 * see into the asm some fast paths use, so its builds take the C paths). */
lk_u32 lk_cpu_features(void);

/* What CPUID reports now, ASAN or not, not cached: for tests that call a
 * fast path directly to compare it with the portable one. */
lk_u32 lk_cpu_probe(void);

/* CPUID leaf.sub into r (EAX, EBX, ECX, EDX); zeros off x86. For the
 * boot stages' own questions (long mode, XSAVE state, the local APIC). */
void lk_cpuid(lk_u32 leaf, lk_u32 sub, lk_u32 r[4]);

/* The time-stamp counter (phase timings, jitter entropy, the BIOS
 * stage's bounded waits). */
lk_u64 lk_cpu_rdtsc(void);

/* len bytes from RDSEED (seed != 0) or RDRAND, retrying each word a few
 * times (both may run dry for a moment); returns how many bytes really
 * came from the instruction, 0 when the CPU lacks it (per
 * lk_cpu_probe, asked here even under ASAN: entropy is not a fast path). */
lk_size lk_cpu_random(int seed, void *buf, lk_size len);

/* CPUID 0's vendor string ("GenuineIntel", ...; "" off x86) and CPUID
 * 1's EAX, the processor signature (0 where leaf 1 is missing). */
void lk_cpu_signature(char vendor[13], lk_u32 *sig);

#endif
