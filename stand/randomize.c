/*
 * The fallback kernel is prelinked, but its PT_OPENBSD_RANDOMIZE
 * segments (stack-protector guard, random data) must still differ per
 * boot, as OpenBSD's boot loader does it. The relinked kernel gets the
 * same from lk_link_write.
 */
#include "stand.h"
#include "../linkkit/elf64.h"

#define PT_OPENBSD_RANDOMIZE 0x65a3dbe6u

int stand_fill_random(struct stand *s, const char *name, const void *elf,
		      lk_u64 size, lk_u64 load_lo, lk_u64 load_hi)
{
	const struct lk_elf64_ehdr *eh = elf;
	const lk_u8 *base = elf;

	if (size < sizeof(*eh) || eh->e_phentsize != sizeof(struct lk_elf64_phdr) ||
	    eh->e_phoff > size ||
	    (lk_u64)eh->e_phnum * sizeof(struct lk_elf64_phdr) > size - eh->e_phoff) {
		lk_log(&s->host, LK_LOG_ERROR, "%s: bad program header table", name);
		return -1;
	}
	for (lk_u32 i = 0; i < eh->e_phnum; i++) {
		struct lk_elf64_phdr ph;

		lk_memcpy(&ph, base + eh->e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_OPENBSD_RANDOMIZE)
			continue;
		if (ph.p_paddr < load_lo || ph.p_memsz > load_hi - load_lo ||
		    ph.p_paddr - load_lo > load_hi - load_lo - ph.p_memsz) {
			lk_log(&s->host, LK_LOG_ERROR,
			       "%s: random segment %u outside the image", name, i);
			return -1;
		}
		lk_rng_bytes(&s->rng, (void *)(lk_uptr)ph.p_paddr,
			     (lk_size)ph.p_memsz);
	}
	return 0;
}
