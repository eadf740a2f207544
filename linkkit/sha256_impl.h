/* SHA-256 internals shared by sha256.c and sha256_ni.c (and the tests and
 * the bench, which compare and time both compression functions). */
#ifndef LK_SHA256_IMPL_H
#define LK_SHA256_IMPL_H

#include "linkkit.h"

extern const lk_u32 lk_sha256_k[64];

/* Compresses n whole 64-byte blocks into st with the portable code. */
void lk_sha256_blocks_portable(lk_u32 st[8], const lk_u8 *p, lk_size n);

/* SHA-NI is built for x86-64 where the compiler may use SSE registers
 * (host, UEFI stage; not the fs64 objects) and for every i386 build: the
 * BIOS stage turns SSE on itself (stand/start.S) and, like i386 programs
 * on a host, uses the code only when CPUID reports SHA. Only the functions
 * of sha256_ni.c use SSE, through their target attribute, so the rest of
 * an i386 build stays -mgeneral-regs-only. */
#if (defined(__x86_64__) && defined(__SSE2__)) || defined(__i386__)
#define LK_SHA256_HAVE_NI 1
/* The same as lk_sha256_blocks_portable with the SHA extensions. */
void lk_sha256_blocks_ni(lk_u32 st[8], const lk_u8 *p, lk_size n);
#endif

/* Which compression lk_sha256_update uses, for tests and the bench:
 * LK_SHA256_AUTO (SHA-NI when built and lk_cpu_features() has LK_CPU_SHA),
 * LK_SHA256_PORTABLE, or LK_SHA256_NI (SHA-NI when built, whatever
 * lk_cpu_features() says: for tests under ASAN, where it says 0; the
 * caller checks lk_cpu_probe()). Returns 1 if SHA-NI is now in use. */
enum { LK_SHA256_AUTO, LK_SHA256_PORTABLE, LK_SHA256_NI };
int lk_sha256_select(int mode);

#endif
