/*
 * The prelinked fallback kernel: an ELF64 x86-64 executable loaded at its
 * physical addresses. It is what boots when the link fails, so it is
 * checked as strictly as the kit: every header, offset and size.
 */
#include "link_internal.h"

#define LK_MB2_MAGIC 0xe85250d6u
#define LK_MB2_SEARCH 32768u
#define LK_MAX_PHNUM 64u

static int lk_elf_fail(const struct lk_host *h, const char *name,
		       const char *what, lk_u64 v)
{
	lk_log(h, LK_LOG_ERROR, "%s: %s (0x%llx)", name, what, v);
	return LK_ERR_ELF;
}

static int lk_ehdr_ok(const struct lk_elf64_ehdr *e, lk_u64 size)
{
	static const lk_u8 mag[4] = { 0x7f, 'E', 'L', 'F' };

	return lk_memcmp(e->e_ident, mag, 4) == 0 &&
	       e->e_ident[4] == LK_ELFCLASS64 &&
	       e->e_ident[5] == LK_ELFDATA2LSB && e->e_type == LK_ET_EXEC &&
	       e->e_machine == LK_EM_X86_64 &&
	       e->e_phentsize == sizeof(struct lk_elf64_phdr) &&
	       e->e_phnum > 0 && e->e_phnum <= LK_MAX_PHNUM &&
	       e->e_phoff <= size &&
	       size - e->e_phoff >= (lk_u64)e->e_phnum * e->e_phentsize;
}

static void lk_get_phdr(const void *elf, const struct lk_elf64_ehdr *e,
			lk_u32 i, struct lk_elf64_phdr *p)
{
	lk_memcpy(p, (const lk_u8 *)elf + e->e_phoff + (lk_u64)i * sizeof(*p),
		  sizeof(*p));
}

static int lk_seg_ok(const struct lk_elf64_phdr *p, lk_u64 size)
{
	return p->p_filesz <= p->p_memsz && p->p_memsz <= LK_MAX_SIZE &&
	       p->p_offset <= size && size - p->p_offset >= p->p_filesz &&
	       p->p_paddr + p->p_memsz >= p->p_paddr &&
	       p->p_vaddr + p->p_memsz >= p->p_vaddr;
}

/* A Multiboot2 header (magic, arch, length, checksum summing to zero,
 * 8-byte aligned in the first 32 KiB) marks a Multiboot2 kernel. */
static lk_u32 lk_elf_protocol(const lk_u8 *elf, lk_u64 size)
{
	lk_u64 off, lim = size < LK_MB2_SEARCH ? size : LK_MB2_SEARCH;
	lk_u32 w[4];

	for (off = 0; off + 16 <= lim; off += 8) {
		lk_memcpy(w, elf + off, 16);
		if (w[0] == LK_MB2_MAGIC && w[0] + w[1] + w[2] + w[3] == 0)
			return LK_PROTO_MULTIBOOT2;
	}
	return LK_PROTO_NONE;
}

static int lk_overlaps(const void *elf, const struct lk_elf64_ehdr *e,
		       lk_u32 i, const struct lk_elf64_phdr *p)
{
	struct lk_elf64_phdr q;
	lk_u32 j;

	for (j = 0; j < i; j++) {
		lk_get_phdr(elf, e, j, &q);
		if (q.p_type == LK_PT_LOAD && q.p_memsz && p->p_memsz &&
		    p->p_paddr < q.p_paddr + q.p_memsz &&
		    q.p_paddr < p->p_paddr + p->p_memsz)
			return 1;
	}
	return 0;
}

static void lk_seg_account(struct lk_elf_image *o,
			   const struct lk_elf64_phdr *p, lk_u64 entry)
{
	if (o->nload++ == 0 || p->p_paddr < o->load_lo)
		o->load_lo = p->p_paddr;
	if (p->p_paddr + p->p_memsz > o->load_hi)
		o->load_hi = p->p_paddr + p->p_memsz;
	if (entry >= p->p_vaddr && entry - p->p_vaddr < p->p_memsz)
		o->entry_lma = p->p_paddr + (entry - p->p_vaddr);
}

int lk_elf_check(const struct lk_host *h, const void *elf, lk_u64 size,
		 const char *name, struct lk_elf_image *out)
{
	struct lk_elf64_ehdr e;
	struct lk_elf64_phdr p;
	lk_u32 i;

	lk_memset(out, 0, sizeof(*out));
	if (size < sizeof(e))
		return lk_elf_fail(h, name, "too small for an ELF header", size);
	lk_memcpy(&e, elf, sizeof(e));
	if (!lk_ehdr_ok(&e, size))
		return lk_elf_fail(h, name, "not an x86-64 ELF executable with "
				   "valid program headers", e.e_phoff);
	out->entry_vma = e.e_entry;
	out->entry_lma = ~0ull;
	for (i = 0; i < e.e_phnum; i++) {
		lk_get_phdr(elf, &e, i, &p);
		if (p.p_type != LK_PT_LOAD)
			continue;
		if (!lk_seg_ok(&p, size))
			return lk_elf_fail(h, name, "PT_LOAD outside the file "
					   "or too large at offset", p.p_offset);
		if (lk_overlaps(elf, &e, i, &p))
			return lk_elf_fail(h, name, "overlapping PT_LOAD at "
					   "physical address", p.p_paddr);
		lk_seg_account(out, &p, e.e_entry);
	}
	if (out->nload == 0 || out->load_hi - out->load_lo > LK_MAX_SIZE)
		return lk_elf_fail(h, name, "no PT_LOAD or load range too "
				   "large", out->load_hi - out->load_lo);
	if (out->entry_lma == ~0ull)
		return lk_elf_fail(h, name, "entry point outside every PT_LOAD",
				   e.e_entry);
	out->protocol = lk_elf_protocol(elf, size);
	return LK_OK;
}

int lk_elf_load(const struct lk_host *h, const void *elf, lk_u64 size,
		void *dst)
{
	struct lk_elf_image img;
	struct lk_elf64_ehdr e;
	struct lk_elf64_phdr p;
	lk_u8 *d = dst;
	lk_u32 i;
	int rc = lk_elf_check(h, elf, size, "fallback kernel", &img);

	if (rc != LK_OK)
		return rc;
	lk_memcpy(&e, elf, sizeof(e));
	/* Holes between segments and every bss tail read as zero. */
	lk_memset(d, 0, (lk_size)(img.load_hi - img.load_lo));
	for (i = 0; i < e.e_phnum; i++) {
		lk_get_phdr(elf, &e, i, &p);
		if (p.p_type == LK_PT_LOAD)
			lk_memcpy(d + (p.p_paddr - img.load_lo),
				  (const lk_u8 *)elf + p.p_offset,
				  (lk_size)p.p_filesz);
	}
	return LK_OK;
}
