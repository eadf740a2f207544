/* What the relinked and the fallback paths share around a kernel. */
#include "boot.h"

#define LK_4G 0x100000000ull

struct lk_rng *lk_boot_rng(struct lk_boot *b)
{
	if (b->rng)
		return b->rng;
	b->rng = b->ops->alloc_big(b, sizeof(*b->rng), 1);
	if (!b->rng) {
		lk_boot_fail(b, "cannot allocate the generator");
		return LK_NULL;
	}
	lk_boot_seed(b, b->rng);
	lk_boot_phase(b, "entropy");
	return b->rng;
}

void lk_boot_drop_rng(struct lk_boot *b)
{
	if (!b->rng)
		return;
	lk_rng_wipe(b->rng);
	b->ops->free_big(b, b->rng, sizeof(*b->rng));
	b->rng = LK_NULL;
}

void lk_boot_enter(struct lk_boot *b, const struct lk_kernel *k)
{
	if (k->entry >= LK_4G || k->load_hi > LK_4G) {
		lk_boot_fail(b, "kernel at 0x%llx (entry 0x%llx) is above 4 GiB",
			     k->load_lo, k->entry);
		return;
	}
	lk_boot_drop_rng(b);
	lk_boot_ucode(b, k);
	lk_boot_root_close(b); /* its buffers held file contents */
	b->ops->enter(b, k);
}

int lk_boot_link_view(struct lk_boot *b, struct lk_kernel *k,
		      const struct lk_link *L, void **view, lk_u64 *view_size)
{
	struct lk_elf_view v;
	void *buf;

	if (!k->proto->elf_view)
		return 0;
	if (lk_link_elf_size(L, &v))
		return -1;
	buf = b->ops->alloc_kept(b, v.size);
	if (!buf) {
		lk_boot_fail(b, "cannot allocate %llu bytes for the ELF sections",
			     v.size);
		return -1;
	}
	*view = buf;
	*view_size = v.size;
	if (lk_link_elf_emit(L, buf, v.size, (lk_u64)(lk_uptr)buf, &v))
		return -1;
	k->shdrs = buf;
	k->shnum = v.shnum;
	k->shentsize = v.shentsize;
	k->shstrndx = v.shstrndx;
	return 0;
}

int lk_boot_file_view(struct lk_boot *b, struct lk_kernel *k,
		      const void *elf, lk_u64 size, const char *name)
{
	lk_u64 used = 0;
	void *buf;

	if (!k->proto->elf_view ||
	    lk_mb2_elf_view_from_file(elf, size, LK_NULL, 0, 0, &k->shnum,
				      &k->shentsize, &k->shstrndx, &used) ||
	    used == 0)
		return 0; /* no section headers: boot without the tag */
	buf = b->ops->alloc_kept(b, used);
	if (!buf || lk_mb2_elf_view_from_file(elf, size, buf, used,
					      (lk_u64)(lk_uptr)buf, &k->shnum,
					      &k->shentsize, &k->shstrndx,
					      &used)) {
		lk_boot_fail(b, "cannot place the ELF sections of %s", name);
		return -1;
	}
	k->shdrs = buf;
	return 0;
}
