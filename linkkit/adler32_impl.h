/* Adler-32 internals: the paths lk_adler32 chooses between, for the tests
 * (which compare each with zlib) and the benchmarks. */
#ifndef LK_ADLER32_IMPL_H
#define LK_ADLER32_IMPL_H

#include "linkkit.h"

/* Every path: the running value `adler` (1 to start) updated with n bytes,
 * as zlib's adler32(). */
lk_u32 lk_adler32_portable(lk_u32 adler, const lk_u8 *p, lk_size n);

/* The vector paths exist where the compiler may use SSE registers: x86-64
 * builds without -mgeneral-regs-only (host, UEFI stage), and every i386
 * build (the BIOS stage turns SSE on itself: stand/start.S; AVX2 stays
 * off in its i386 code, which runs without the YMM state), as for SHA-NI
 * (sha256_impl.h). Callers check lk_cpu_features() (or, in tests,
 * lk_cpu_probe()) for LK_CPU_SSSE3 / LK_CPU_AVX2 first. */
#if (defined(__x86_64__) && defined(__SSE2__)) || defined(__i386__)
#define LK_ADLER32_HAVE_SIMD 1
lk_u32 lk_adler32_ssse3(lk_u32 adler, const lk_u8 *p, lk_size n);
lk_u32 lk_adler32_avx2(lk_u32 adler, const lk_u8 *p, lk_size n);
#endif

#endif
