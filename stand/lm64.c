/*
 * The BIOS stage's long-mode half: the kit's hash and its inflate, the
 * two passes over every byte of the kit, run as x86-64 code, on the boot
 * processor and the application processors (stand/mp.c). The i386 build
 * of the same loops takes ~1.3x as long (7 registers, a 32-bit bit
 * buffer: docs/bench.md), and any machine that runs an amd64 kernel has
 * long mode. stand/rules.mk links this file first, position-independent,
 * with the core objects BOOTX64.EFI links; stand/longmode.c calls it
 * through lm64_call (stand/start.S). Nothing here logs or allocates: the
 * i386 side turns the result into messages.
 */
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

static void lm64_wipe_vectors(void)
{
	lk_cpu_xmm_wipe();
	if (lk_cpu_features() & LK_CPU_AVX2)
		lm64_ymm_wipe();
}

static void lm64_kit(const struct lm64_kit *in, struct lk_kit *k)
{
	lk_memset(k, 0, sizeof(*k));
	k->zdata = lm64_ptr(in->zdata);
	k->zsize = in->zsize;
	k->payload_size = in->payload_size;
	k->seg = lm64_ptr(in->seg);
	k->hashed = lm64_ptr(in->hashed);
	k->hashed_size = in->hashed_size;
	k->flags = in->flags;
	k->nseg = in->nseg;
}

/* Runs item i: the kit's hash (0) or segment i - 1. */
static void lm64_mp_run(struct lm64_mp *mp, lk_u32 i, int ap)
{
	struct lk_kit k;
	int ok = 1;

	lm64_kit(&mp->kit, &k);
	if (i == 0)
		lk_kit_hash(&k, mp->sum);
	else
		ok = lk_kit_inflate_segment(&k, i - 1, lm64_ptr(mp->dst),
					    k.payload_size) == LK_OK;
	__atomic_store_n(&mp->state[i], ok ? 1 : 2, __ATOMIC_RELEASE);
	if (ap)
		__atomic_fetch_add(&mp->by_ap, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&mp->done, 1, __ATOMIC_RELEASE);
}

/* Claims and runs one item; 0 when none was left. */
static int lm64_mp_item(struct lm64_mp *mp, int ap)
{
	lk_u32 i = __atomic_fetch_add(&mp->next, 1, __ATOMIC_ACQ_REL);

	if (i >= mp->n)
		return 0;
	lm64_mp_run(mp, i, ap);
	return 1;
}

/* The boot processor opens the job. The application processors are
 * given up to 2^27 TSC ticks (~50 ms; they take microseconds) to arrive
 * first, so that each takes a share from the start; one that comes late
 * still takes what is left. */
static void lm64_mp_start(struct lm64_mp *mp)
{
	lk_u64 t0 = lk_cpu_rdtsc();

	while (__atomic_load_n(&mp->aps, __ATOMIC_ACQUIRE) < mp->want &&
	       lk_cpu_rdtsc() - t0 < (1ull << 27))
		__builtin_ia32_pause();
	__atomic_store_n(&mp->gen, 1, __ATOMIC_RELEASE);
}

/* The boot processor's rest: items until none is left, then the
 * others'. A processor that took an item and never finished it (a
 * machine check, firmware that took it away) must not hang the boot:
 * after 2^stall_shift ticks in which no item finished, 0. */
static int lm64_mp_finish(struct lm64_mp *mp)
{
	struct lm64_progress p;
	lk_u32 d;

	while (lm64_mp_item(mp, 0))
		;
	lm64_progress_begin(&p, __atomic_load_n(&mp->done, __ATOMIC_ACQUIRE));
	while ((d = __atomic_load_n(&mp->done, __ATOMIC_ACQUIRE)) < mp->n) {
		if (lm64_stalled(&p, d, mp->stall_shift))
			return 0;
		__builtin_ia32_pause();
	}
	return 1;
}

/* Once the processors are stopped: what they took and left. */
static void lm64_mp_redo(struct lm64_mp *mp)
{
	for (lk_u32 i = 0; i < mp->n && i < LM64_MP_ITEMS; i++)
		if (!__atomic_load_n(&mp->state[i], __ATOMIC_ACQUIRE))
			lm64_mp_run(mp, i, 0);
}

static void lm64_mp_take(struct lm64_mp *mp)
{
	while (!__atomic_load_n(&mp->gen, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
	while (lm64_mp_item(mp, 1))
		;
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
	} else if (c->op == LM64_MP_START) {
		lm64_mp_start(lm64_ptr(c->src));
		rc = LK_OK;
	} else if (c->op == LM64_MP_ONE) {
		rc = lm64_mp_item(lm64_ptr(c->src), 0);
	} else if (c->op == LM64_MP_FINISH) {
		rc = lm64_mp_finish(lm64_ptr(c->src));
	} else if (c->op == LM64_MP_TAKE) {
		lm64_mp_take(lm64_ptr(c->src));
		rc = LK_OK;
	} else if (c->op == LM64_MP_REDO) {
		lm64_mp_redo(lm64_ptr(c->src));
		rc = LK_OK;
	}
	/* The i386 side never saves vector state: leave none behind (the
	 * YMM upper halves too, where stand/start.S enabled them). */
	lm64_wipe_vectors();
	return rc;
}
