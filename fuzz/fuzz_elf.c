/* libFuzzer target: the prelinked fallback kernel reader. */
#include "fz_host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lk_elf_image im;
	uint8_t *buf, *dst;
	lk_u64 need = 0, got = 0;

	buf = malloc(size + 8); /* aligned copy, as the stages read files */
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (lk_elf_check(&fz_host, buf, size, "FALLBACK.ELF", &im) == LK_OK) {
		if (im.load_hi < im.load_lo)
			abort();
		if (im.load_hi - im.load_lo <= FZ_ALLOC_MAX) {
			dst = malloc(im.load_hi - im.load_lo + 1);
			if (dst) {
				lk_elf_load(&fz_host, buf, size, dst);
				free(dst);
			}
		}
	}
	/* boot(8)'s symbol block from any file (lk_elf_check or not): sized,
	 * then written into exactly that many bytes (ASan sees one more). */
	if (lk_elf_obsd_syms(&fz_host, buf, size, "FALLBACK.ELF", NULL, 0,
			     &need) != LK_OK)
		abort();
	if (need && need <= FZ_ALLOC_MAX && (dst = malloc(need))) {
		if (lk_elf_obsd_syms(&fz_host, buf, size, "FALLBACK.ELF", dst,
				     need, &got) != LK_OK ||
		    got != need || memcmp(dst + 1, "ELF", 3))
			abort();
		free(dst);
	}
	free(buf);
	return 0;
}
