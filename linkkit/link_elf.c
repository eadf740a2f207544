/*
 * The ELF view of a linked image: section headers, .symtab, .strtab and
 * .shstrtab (for the Multiboot2 ELF-sections tag and `linkkit link`), and
 * program headers from the script's PHDRS. Output-section sh_offset and
 * p_offset are relative to the image start (LMA load_lo): a file writer
 * adds the file offset where it stores the image.
 */
#include "link_internal.h"

#define LK_ERR(L, ...) lk_log((L)->h, LK_LOG_ERROR, __VA_ARGS__)

static const char lk_tail_names[] = "\0.symtab\0.strtab\0.shstrtab";
#define LK_TAIL_SYMTAB 1
#define LK_TAIL_STRTAB 9
#define LK_TAIL_SHSTRTAB 17

struct lk_elf_sizes {
	lk_u32 nsym, nlocal, shnum;
	lk_u64 shdrs, symtab, strtab, shstrtab;
};

static int lk_sym_emitted(const struct lk_link *L, lk_u32 i)
{
	return L->sym[i].emit && L->sym_known[i];
}

static void lk_elf_sizes(const struct lk_link *L, struct lk_elf_sizes *z)
{
	lk_u32 i;

	lk_memset(z, 0, sizeof(*z));
	z->nsym = 1;
	z->strtab = 1;
	for (i = 0; i < L->nsym; i++) {
		if (!lk_sym_emitted(L, i))
			continue;
		z->nsym++;
		z->nlocal += L->sym[i].bind == LK_STB_LOCAL;
		z->strtab += lk_strlen(lk_str(L, L->sym[i].name)) + 1;
	}
	z->shstrtab = sizeof(lk_tail_names);
	for (i = 0; i < L->nseq; i++)
		if (L->os[L->os_seq[i]].shndx)
			z->shstrtab += lk_strlen(lk_str(L, L->outsec[L->os_seq[i]].name)) + 1;
	z->shnum = L->nemit + 4;
	z->shdrs = (lk_u64)z->shnum * sizeof(struct lk_elf64_shdr);
	z->symtab = (lk_u64)z->nsym * sizeof(struct lk_elf64_sym);
}

int lk_link_elf_size(const struct lk_link *L, struct lk_elf_view *out)
{
	struct lk_elf_sizes z;

	lk_memset(out, 0, sizeof(*out));
	if (!L->laid_out)
		return LK_ERR_LINK;
	lk_elf_sizes(L, &z);
	out->shnum = z.shnum;
	out->shentsize = sizeof(struct lk_elf64_shdr);
	out->shstrndx = z.shnum - 1;
	out->size = z.shdrs + z.symtab + z.strtab + z.shstrtab;
	return LK_OK;
}

static lk_u32 lk_add_str(lk_u8 *tab, lk_u64 *used, const char *s)
{
	lk_u32 off = (lk_u32)*used;
	lk_size n = lk_strlen(s) + 1;

	lk_memcpy(tab + off, s, n);
	*used += n;
	return off;
}

static void lk_emit_sym(const struct lk_link *L, lk_u32 i,
			struct lk_elf64_sym *s, lk_u8 *strtab, lk_u64 *used)
{
	const struct lk_symbol *y = &L->sym[i];
	lk_u32 o = lk_sym_outsec(L, i);

	s->st_name = lk_add_str(strtab, used, lk_str(L, y->name));
	s->st_info = (lk_u8)((y->bind << 4) | (y->type & 0xf));
	s->st_value = L->sym_val[i];
	s->st_size = y->size;
	s->st_shndx = LK_SHN_ABS;
	if (o != LK_NONE && L->os[o].shndx)
		s->st_shndx = (lk_u16)L->os[o].shndx;
}

/* Locals first, as ELF requires; sh_info is the first global. */
static void lk_emit_symtab(const struct lk_link *L, struct lk_elf64_sym *st,
			   lk_u8 *strtab)
{
	lk_u64 used = 1;
	lk_u32 i, n = 1, pass;

	strtab[0] = 0;
	lk_memset(&st[0], 0, sizeof(st[0]));
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < L->nsym; i++)
			if (lk_sym_emitted(L, i) &&
			    (L->sym[i].bind == LK_STB_LOCAL) == (pass == 0))
				lk_emit_sym(L, i, &st[n++], strtab, &used);
}

static void lk_emit_outsec_shdrs(const struct lk_link *L,
				 struct lk_elf64_shdr *sh, lk_u8 *shstr,
				 lk_u64 *used)
{
	lk_u32 i, s;

	for (i = 0; i < L->nseq; i++) {
		const struct lk_os *o;
		struct lk_elf64_shdr *h;

		s = L->os_seq[i];
		o = &L->os[s];
		if (!o->shndx)
			continue;
		h = &sh[o->shndx];
		h->sh_name = lk_add_str(shstr, used, lk_str(L, L->outsec[s].name));
		h->sh_type = L->outsec[s].type;
		h->sh_flags = L->outsec[s].flags;
		h->sh_addr = o->vma;
		h->sh_offset = o->lma - L->load_lo;
		h->sh_size = o->size;
		h->sh_addralign = o->align;
	}
}

static void lk_tail_shdr(struct lk_elf64_shdr *h, lk_u32 name, lk_u32 type,
			 lk_u64 off, lk_u64 size, lk_u64 buf_addr)
{
	h->sh_name = name;
	h->sh_type = type;
	h->sh_offset = off;
	h->sh_addr = buf_addr + off;
	h->sh_size = size;
	h->sh_addralign = 1;
}

int lk_link_elf_emit(const struct lk_link *L, void *buf, lk_u64 buf_size,
		     lk_u64 buf_addr, struct lk_elf_view *out)
{
	struct lk_elf_sizes z;
	struct lk_elf64_shdr *sh = buf;
	lk_u8 *b = buf;
	lk_u64 symoff, stroff, shstroff, used;
	lk_u32 n;

	if (lk_link_elf_size(L, out) != LK_OK || buf_size < out->size) {
		LK_ERR(L, "%s: ELF view: no layout or buffer too small", L->name);
		return LK_ERR_RANGE;
	}
	lk_elf_sizes(L, &z);
	lk_memset(buf, 0, (lk_size)out->size);
	symoff = z.shdrs;
	stroff = symoff + z.symtab;
	shstroff = stroff + z.strtab;
	lk_emit_symtab(L, (struct lk_elf64_sym *)(b + symoff), b + stroff);
	lk_memcpy(b + shstroff, lk_tail_names, sizeof(lk_tail_names));
	used = sizeof(lk_tail_names);
	lk_emit_outsec_shdrs(L, sh, b + shstroff, &used);
	n = L->nemit + 1;
	lk_tail_shdr(&sh[n], LK_TAIL_SYMTAB, LK_SHT_SYMTAB, symoff, z.symtab,
		     buf_addr);
	sh[n].sh_link = n + 1;
	sh[n].sh_info = z.nlocal + 1;
	sh[n].sh_entsize = sizeof(struct lk_elf64_sym);
	sh[n].sh_addralign = 8;
	lk_tail_shdr(&sh[n + 1], LK_TAIL_STRTAB, LK_SHT_STRTAB, stroff,
		     z.strtab, buf_addr);
	lk_tail_shdr(&sh[n + 2], LK_TAIL_SHSTRTAB, LK_SHT_STRTAB, shstroff,
		     z.shstrtab, buf_addr);
	return LK_OK;
}

static lk_u32 lk_phdr_flags(const struct lk_link *L, lk_u32 p)
{
	lk_u32 i, f = LK_PF_R;

	if (L->phdr[p].pflags & LK_PHDR_FLAGS_SET)
		return L->phdr[p].flags;
	for (i = 0; i < L->nout; i++) {
		if (!L->os[i].shndx || !(L->outsec[i].phdr_mask & (1u << p)))
			continue;
		if (L->outsec[i].flags & LK_SHF_WRITE)
			f |= LK_PF_W;
		if (L->outsec[i].flags & LK_SHF_EXECINSTR)
			f |= LK_PF_X;
	}
	return f;
}

static void lk_fill_phdr(const struct lk_link *L, lk_u32 p,
			 struct lk_elf64_phdr *ph)
{
	lk_u64 vlo = ~0ull, llo = ~0ull, vhi = 0, fhi = 0;
	lk_u32 i;

	lk_memset(ph, 0, sizeof(*ph));
	ph->p_type = L->phdr[p].type;
	ph->p_flags = lk_phdr_flags(L, p);
	for (i = 0; i < L->nout; i++) {
		const struct lk_os *o = &L->os[i];

		if (!o->shndx || !(L->outsec[i].phdr_mask & (1u << p)))
			continue;
		vlo = o->vma < vlo ? o->vma : vlo;
		llo = o->lma < llo ? o->lma : llo;
		vhi = o->vma + o->size > vhi ? o->vma + o->size : vhi;
		if (L->outsec[i].type != LK_SHT_NOBITS && o->lma + o->size > fhi)
			fhi = o->lma + o->size;
		ph->p_align = o->align > ph->p_align ? o->align : ph->p_align;
	}
	if (vlo == ~0ull)
		return; /* no emitted section: an empty header */
	ph->p_vaddr = vlo;
	ph->p_paddr = llo;
	ph->p_offset = llo - L->load_lo;
	ph->p_memsz = vhi - vlo;
	ph->p_filesz = fhi > llo ? fhi - llo : 0;
}

int lk_link_phdrs(const struct lk_link *L, void *buf, lk_u64 buf_size,
		  lk_u32 *count)
{
	lk_u32 p;

	*count = L->nphdr;
	if (!buf)
		return LK_OK;
	if (!L->laid_out ||
	    buf_size < (lk_u64)L->nphdr * sizeof(struct lk_elf64_phdr)) {
		LK_ERR(L, "%s: program headers: no layout or buffer too small",
		       L->name);
		return LK_ERR_RANGE;
	}
	for (p = 0; p < L->nphdr; p++)
		lk_fill_phdr(L, p, (struct lk_elf64_phdr *)buf + p);
	return LK_OK;
}
