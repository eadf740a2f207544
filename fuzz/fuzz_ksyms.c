/*
 * libFuzzer target: the kallsyms blob of a Linux kit's ksyms table
 * (linkkit/linux_kallsyms.h) as the boot side reads it: the structural
 * open, the semantic check, then the tables written for addresses drawn
 * from the input's size (kernel addresses, percpu offsets, ties), into
 * buffers of exactly the layout's size so ASan sees any overrun.
 */
#include "fz_host.h"
#include "linux_kallsyms.h"

#define FZ_KSYM_MAX 8192u /* symbols: keeps one run short */

static void fz_addresses(const struct lk_ksym_blob *b, lk_u64 *addr, size_t salt)
{
	lk_u64 x = 0x9e3779b97f4a7c15ull ^ salt;

	for (lk_u32 i = 0; i < b->n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		if (b->flags[i] & LK_KSYM_F_PERCPU)
			addr[i] = (x >> 40) & 0x3fff8;
		else if ((x >> 60) == 0 && i)
			addr[i] = addr[i - 1]; /* a tie */
		else
			addr[i] = 0xffffffff81000000ull + ((x >> 33) & 0xffffff);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lk_ksym_blob b;
	struct lk_ksym_layout lay;
	lk_u64 *addr, wlen;
	lk_u8 *sec;
	void *work;
	lk_u32 bad = LK_KSYM_NONE;

	if (lk_ksym_open(&b, data, size) || b.n > FZ_KSYM_MAX)
		return 0;
	(void)lk_ksym_check(&b);
	lk_ksym_layout(&b, &lay);
	wlen = lk_ksym_work_size(&b);
	addr = calloc(b.n, sizeof(*addr));
	sec = malloc(lay.size ? lay.size : 1);
	work = aligned_alloc(8, (wlen + 7) & ~7ull);
	if (!addr || !sec || !work)
		abort();
	fz_addresses(&b, addr, size);
	(void)lk_ksym_emit_section(&b, addr, b.n, sec, lay.size, work, wlen, &bad);
	if (bad != LK_KSYM_NONE && bad >= b.n)
		abort(); /* a culprit outside the blob */
	free(addr);
	free(sec);
	free(work);
	return 0;
}
