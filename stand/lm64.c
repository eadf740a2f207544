/*
 * The BIOS stage's long-mode half: the kit's hash and its inflate, the
 * two passes over every byte of the kit, run as x86-64 code. The i386
 * build of the same loops is ~25% slower (7 registers, a 32-bit bit
 * buffer: docs/bench.md), and any machine that runs an amd64 kernel has
 * long mode. stand/rules.mk links this file first, position-independent,
 * with the core objects BOOTX64.EFI links; stand/longmode.c calls it
 * through lm64_call (stand/start.S). Nothing here logs or allocates: the
 * i386 side turns the result into messages.
 */
#include "../linkkit/cpu.h"
#include "../linkkit/linkkit.h"
#include "lm64.h"

static __attribute__((target("avx"))) void lm64_ymm_wipe(void)
{
	__asm__ volatile("vzeroall");
}

static void *lm64_ptr(lk_u64 a)
{
	return (void *)(lk_uptr)a;
}

__attribute__((section(".text.lm64_entry"))) int lm64_main(struct lm64_call *c)
{
	lk_size got = 0, used = 0;
	int rc = LK_ERR_RANGE;

	if (c->op == LM64_HASH) {
		lk_kit_hash_bytes(c->flags, lm64_ptr(c->src),
				  (lk_size)c->src_size, lm64_ptr(c->dst));
		rc = LK_OK;
	} else if (c->op == LM64_INFLATE) {
		rc = lk_inflate_raw(lm64_ptr(c->src), (lk_size)c->src_size,
				    lm64_ptr(c->dst), (lk_size)c->dst_size,
				    &got, &used);
		c->out_len = got;
		c->src_used = used;
	}
	/* The i386 side never saves vector state: leave none behind (the
	 * YMM upper halves too, where stand/start.S enabled them). */
	lk_cpu_xmm_wipe();
	if (lk_cpu_features() & LK_CPU_AVX2)
		lm64_ymm_wipe();
	return rc;
}
