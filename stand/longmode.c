/*
 * The kit's hash and inflate in long mode (stand/lm64.c through
 * lm64_call in stand/start.S): the stage's own ops->inflate. On a CPU
 * without long mode the same i386 code as before runs. Errors are the
 * core's own lines: lk_kit_check_hash and lk_kit_inflate_with check the
 * long-mode results exactly as they check their own.
 */
#include "lm64.h"
#include "stand.h"

int lm64_call(lk_u32 entry, lk_u32 arg, lk_u32 cr3, lk_u32 xcr0);
extern const lk_u8 lm64_blob[];

static lk_u64 lm64_tables[6 * 512] __attribute__((aligned(4096)));
static int lm64_state; /* 0: not asked yet, 1: long mode, -1: none */
static lk_u32 lm64_xcr0; /* the YMM state for AVX2 where the CPU has it */

lk_u32 stand_identity_4g(void *tables)
{
	lk_u64 *t = tables;
	lk_u32 i, j;

	lk_memset(t, 0, 6 * 4096);
	t[0] = (lk_u64)(lk_uptr)(t + 512) | 3; /* present, writable */
	for (i = 0; i < 4; i++) {
		lk_u64 *pd = t + 1024 + i * 512;
		t[512 + i] = (lk_u64)(lk_uptr)pd | 3;
		for (j = 0; j < 512; j++)
			pd[j] = ((lk_u64)i << 30 | (lk_u64)j << 21) | 0x83;
	}
	return (lk_u32)(lk_uptr)t;
}

/* CPUID 0x80000001 EDX bit 29 (LM), where that leaf exists. */
static int lm64_cpu_has(void)
{
	lk_u32 r[4];

	lk_cpuid(0x80000000, 0, r);
	if (r[0] < 0x80000001)
		return 0;
	lk_cpuid(0x80000001, 0, r);
	return (r[3] >> 29) & 1;
}

/* XCR0 = x87 | SSE | AVX where CPUID has XSAVE and AVX and leaf 0xD
 * lists those states; else 0 (no AVX2 in long mode: the SSSE3 lanes). */
static lk_u32 lm64_avx_xcr0(void)
{
	lk_u32 r[4];

	lk_cpuid(1, 0, r);
	if (!(r[2] & (1u << 26)) || !(r[2] & (1u << 28))) /* XSAVE, AVX */
		return 0;
	lk_cpuid(0, 0, r);
	if (r[0] < 0xd)
		return 0;
	lk_cpuid(0xd, 0, r);
	return (r[0] & 7) == 7 ? 7 : 0;
}

int stand_lm64_usable(void)
{
	if (!lm64_state) {
		lm64_state = lm64_cpu_has() ? 1 : -1;
		if (lm64_state > 0) {
			stand_identity_4g(lm64_tables);
			lm64_xcr0 = lm64_avx_xcr0();
		}
	}
	return lm64_state > 0;
}

int stand_lm64_run(struct lm64_call *c)
{
	return lm64_call((lk_u32)(lk_uptr)lm64_blob, (lk_u32)(lk_uptr)c,
			 (lk_u32)(lk_uptr)lm64_tables, lm64_xcr0);
}

static int lm64_inflate(const void *src, lk_size src_len, void *dst,
			lk_size dst_len, lk_size *out_len, lk_size *src_used)
{
	struct lm64_call c = { 0 };
	int rc;

	c.op = LM64_INFLATE;
	c.src = (lk_uptr)src;
	c.src_size = src_len;
	c.dst = (lk_uptr)dst;
	c.dst_size = dst_len;
	rc = stand_lm64_run(&c);
	*out_len = (lk_size)c.out_len;
	*src_used = (lk_size)c.src_used;
	return rc;
}

int stand_inflate(struct lk_boot *b, const struct lk_kit *kit, const char *name,
		  void *dst, lk_u64 size)
{
	struct lm64_call c = { 0 };
	lk_u8 sum[32];
	int rc;

	/* Errors are LK_ERR_* codes: -1 is LK_BOOT_INFLATE_EARLY. */
	if (!stand_lm64_usable())
		return lk_boot_inflate_here(b, kit, name, dst, size);
	if (b->cfg.verbose >= 1)
		lk_boot_print(b, "long mode: the kit's hash and inflate run "
				 "as x86-64 code");
	rc = stand_mp_inflate(b, kit, name, dst, size, lm64_inflate);
	if (rc != STAND_MP_NONE)
		return rc;
	c.op = LM64_HASH;
	c.flags = kit->flags;
	c.src = (lk_uptr)kit->hashed;
	c.src_size = kit->hashed_size;
	c.dst = (lk_uptr)sum;
	stand_lm64_run(&c);
	rc = lk_kit_check_hash(&b->host, kit, name, sum);
	if (rc)
		return rc;
	lk_boot_phase(b, "verify");
	return lk_kit_inflate_with(&b->host, kit, name, dst, size,
				   lm64_inflate);
}
