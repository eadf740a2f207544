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

/* The definition behind symbol i: a known LK_SYM_ALT symbol's winner. */
static const struct lk_symbol *lk_sym_def(const struct lk_link *L, lk_u32 i)
{
	const struct lk_symbol *y = &L->sym[i];

	return y->kind == LK_SYM_ALT ? &L->sym[lk_alt_pick(L, i)] : y;
}

/* ld makes hidden and internal symbols local in an executable. */
static lk_u8 lk_out_bind(const struct lk_link *L, lk_u32 i)
{
	lk_u8 vis = L->sym[i].other & 3;

	if (vis == LK_STV_INTERNAL || vis == LK_STV_HIDDEN)
		return LK_STB_LOCAL;
	return lk_sym_def(L, i)->bind;
}

/*
 * Symbol names for the .symtab: strtab's, or for the kallsyms-listed
 * symbols of a `create --linux` kit (whose names strtab leaves out) the
 * blob's, expanded once into buf. Only a Linux kit pays for this, and
 * only where something asks for its symbol table (`linkkit link`).
 */
struct lk_elf_names {
	const struct lk_link *L;
	const char **name; /* per kit symbol; LK_NULL: strtab's */
	char *buf;
	lk_u64 nbuf;
};

static const char *lk_elf_name(const struct lk_elf_names *nm, lk_u32 i)
{
	const struct lk_link *L = nm->L;

	if (nm->name && nm->name[i])
		return nm->name[i];
	return lk_str(L, L->sym[i].name);
}

static int lk_elf_blob_named(const struct lk_link *L, lk_u32 s)
{
	return L->sym[s].name == 0 && L->sym[s].emit;
}

/* Walks the blob; with nm->buf set, stores the names it needs. */
static lk_u64 lk_elf_names_walk(struct lk_elf_names *nm)
{
	const struct lk_link *L = nm->L;
	struct lk_ksym_names it;
	char one[LK_KSYM_NAME_MAX];
	lk_u64 used = 0;
	lk_u32 i, len, s;

	lk_ksym_names_begin(&it, &L->kblob);
	for (i = 0; i < L->kblob.n; i++) {
		len = lk_ksym_names_next(&it, one);
		s = lk_linux_ksym_ref(L, i);
		if (!len || !lk_elf_blob_named(L, s))
			continue;
		if (nm->buf) {
			lk_memcpy(nm->buf + used, one, len + 1);
			nm->name[s] = nm->buf + used;
		}
		used += len + 1;
	}
	return used;
}

static void lk_elf_names_close(struct lk_elf_names *nm)
{
	const struct lk_host *h = nm->L->h;

	/* Last allocated, first freed: the BIOS stage's heap. */
	if (nm->buf)
		h->free(h->ctx, nm->buf, (lk_size)nm->nbuf);
	if (nm->name)
		h->free(h->ctx, nm->name,
			(lk_size)nm->L->nsym * sizeof(*nm->name));
	nm->name = LK_NULL;
	nm->buf = LK_NULL;
}

static int lk_elf_names_open(struct lk_elf_names *nm, const struct lk_link *L)
{
	const struct lk_host *h = L->h;

	lk_memset(nm, 0, sizeof(*nm));
	nm->L = L;
	if (!L->kref)
		return LK_OK;
	nm->nbuf = lk_elf_names_walk(nm);
	if (nm->nbuf == 0)
		return LK_OK;
	nm->name = h->alloc(h->ctx, (lk_size)L->nsym * sizeof(*nm->name));
	nm->buf = nm->name ? h->alloc(h->ctx, (lk_size)nm->nbuf) : LK_NULL;
	if (!nm->name || !nm->buf) {
		lk_elf_names_close(nm);
		LK_ERR(L, "%s: ELF view: out of memory for symbol names",
		       L->name);
		return LK_ERR_NOMEM;
	}
	lk_memset(nm->name, 0, (lk_size)L->nsym * sizeof(*nm->name));
	lk_elf_names_walk(nm);
	return LK_OK;
}

static void lk_elf_sizes(const struct lk_elf_names *nm, struct lk_elf_sizes *z)
{
	const struct lk_link *L = nm->L;
	lk_u32 i;

	lk_memset(z, 0, sizeof(*z));
	z->nsym = 1;
	z->strtab = 1;
	for (i = 0; i < L->nsym; i++) {
		if (!lk_sym_emitted(L, i))
			continue;
		z->nsym++;
		z->nlocal += lk_out_bind(L, i) == LK_STB_LOCAL;
		z->strtab += lk_strlen(lk_elf_name(nm, i)) + 1;
	}
	z->shstrtab = sizeof(lk_tail_names);
	for (i = 0; i < L->nseq; i++)
		if (L->os[L->os_seq[i]].shndx)
			z->shstrtab += lk_strlen(lk_str(L, L->outsec[L->os_seq[i]].name)) + 1;
	z->shnum = L->nemit + 4;
	z->shdrs = (lk_u64)z->shnum * sizeof(struct lk_elf64_shdr);
	z->symtab = (lk_u64)z->nsym * sizeof(struct lk_elf64_sym);
}

/* The sizes, names opened and closed around them. */
static int lk_elf_sizes_named(const struct lk_link *L, struct lk_elf_sizes *z)
{
	struct lk_elf_names nm;
	int rc = lk_elf_names_open(&nm, L);

	if (rc)
		return rc;
	lk_elf_sizes(&nm, z);
	lk_elf_names_close(&nm);
	return LK_OK;
}

int lk_link_tail_sizes(const struct lk_link *L, lk_u64 *strtab,
		       lk_u64 *shstrtab)
{
	struct lk_elf_sizes z;
	int rc;

	lk_memset(&z, 0, sizeof(z));
	rc = lk_elf_sizes_named(L, &z);
	*strtab = z.strtab;
	*shstrtab = z.shstrtab;
	return rc;
}

static void lk_elf_view_of(const struct lk_elf_sizes *z,
			   struct lk_elf_view *out)
{
	out->shnum = z->shnum;
	out->shentsize = sizeof(struct lk_elf64_shdr);
	out->shstrndx = z->shnum - 1;
	out->size = z->shdrs + z->symtab + z->strtab + z->shstrtab;
}

int lk_link_elf_size(const struct lk_link *L, struct lk_elf_view *out)
{
	struct lk_elf_sizes z;
	int rc;

	lk_memset(out, 0, sizeof(*out));
	if (!L->laid_out)
		return LK_ERR_LINK;
	rc = lk_elf_sizes_named(L, &z);
	if (rc)
		return rc;
	lk_elf_view_of(&z, out);
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

static void lk_emit_sym(const struct lk_elf_names *nm, lk_u32 i,
			struct lk_elf64_sym *s, lk_u8 *strtab, lk_u64 *used)
{
	const struct lk_link *L = nm->L;
	const struct lk_symbol *y = &L->sym[i];
	lk_u32 o = lk_sym_outsec(L, i);
	const struct lk_symbol *d = lk_sym_def(L, i);

	s->st_name = lk_add_str(strtab, used, lk_elf_name(nm, i));
	s->st_info = (lk_u8)((lk_out_bind(L, i) << 4) | (d->type & 0xf));
	s->st_other = y->other & 3;
	s->st_value = L->sym_val[i];
	s->st_size = d->size;
	s->st_shndx = LK_SHN_ABS;
	if (o != LK_NONE && L->os[o].shndx)
		s->st_shndx = (lk_u16)L->os[o].shndx;
}

/* Locals first, as ELF requires; sh_info is the first global. */
static void lk_emit_symtab(const struct lk_elf_names *nm,
			   struct lk_elf64_sym *st, lk_u8 *strtab)
{
	const struct lk_link *L = nm->L;
	lk_u64 used = 1;
	lk_u32 i, n = 1, pass;

	strtab[0] = 0;
	lk_memset(&st[0], 0, sizeof(st[0]));
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < L->nsym; i++)
			if (lk_sym_emitted(L, i) &&
			    (lk_out_bind(L, i) == LK_STB_LOCAL) == (pass == 0))
				lk_emit_sym(nm, i, &st[n++], strtab, &used);
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
	struct lk_elf_names nm;
	struct lk_elf64_shdr *sh = buf;
	lk_u8 *b = buf;
	lk_u64 symoff, stroff, shstroff, used;
	lk_u32 n;
	int rc;

	lk_memset(out, 0, sizeof(*out));
	if (!L->laid_out) {
		LK_ERR(L, "%s: ELF view: no layout", L->name);
		return LK_ERR_RANGE;
	}
	rc = lk_elf_names_open(&nm, L);
	if (rc)
		return rc;
	lk_elf_sizes(&nm, &z);
	lk_elf_view_of(&z, out);
	if (buf_size < out->size) {
		lk_elf_names_close(&nm);
		LK_ERR(L, "%s: ELF view: buffer too small", L->name);
		return LK_ERR_RANGE;
	}
	lk_memset(buf, 0, (lk_size)out->size);
	symoff = z.shdrs;
	stroff = symoff + z.symtab;
	shstroff = stroff + z.strtab;
	lk_emit_symtab(&nm, (struct lk_elf64_sym *)(b + symoff), b + stroff);
	lk_elf_names_close(&nm);
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

/* An output section counts for segment p when it is emitted, or when it is
 * empty but ld.lld would keep it (LK_OUTSEC_KEEP_EMPTY). */
int lk_os_in_segment(const struct lk_link *L, lk_u32 os, lk_u32 p)
{
	if (p >= 32 || !(L->outsec[os].phdr_mask & (1u << p)))
		return 0;
	if (L->os[os].shndx)
		return 1;
	return (L->outsec[os].oflags & LK_OUTSEC_KEEP_EMPTY) &&
	       L->os[os].state == LK_OS_DONE;
}

static lk_u32 lk_phdr_flags(const struct lk_link *L, lk_u32 p)
{
	lk_u32 i, f = LK_PF_R;

	if (L->phdr[p].pflags & LK_PHDR_FLAGS_SET)
		return L->phdr[p].flags;
	for (i = 0; i < L->nout; i++) {
		if (!lk_os_in_segment(L, i, p))
			continue;
		if (L->outsec[i].flags & LK_SHF_WRITE)
			f |= LK_PF_W;
		if (L->outsec[i].flags & LK_SHF_EXECINSTR)
			f |= LK_PF_X;
	}
	return f;
}

struct lk_extent {
	lk_u64 vlo, llo, vhi, fhi, align;
};

static void lk_extend(struct lk_extent *x, lk_u64 vma, lk_u64 lma, lk_u64 size,
		      int has_bytes)
{
	x->vlo = vma < x->vlo ? vma : x->vlo;
	x->llo = lma < x->llo ? lma : x->llo;
	x->vhi = vma + size > x->vhi ? vma + size : x->vhi;
	if (has_bytes && lma + size > x->fhi)
		x->fhi = lma + size;
}

/* The segment covers its sections (and the headers when it has FILEHDR/
 * PHDRS); PT_LOAD is aligned to at least a page, as ld.lld does. */
static void lk_fill_phdr(const struct lk_link *L, lk_u32 p,
			 struct lk_elf64_phdr *ph)
{
	struct lk_extent x = { ~0ull, ~0ull, 0, 0, 0 };
	lk_u32 i;

	lk_memset(ph, 0, sizeof(*ph));
	ph->p_type = L->phdr[p].type;
	ph->p_flags = lk_phdr_flags(L, p);
	for (i = 0; i < L->nout; i++) {
		const struct lk_os *o = &L->os[i];

		if (!lk_os_in_segment(L, i, p))
			continue;
		lk_extend(&x, o->vma, o->lma, o->size,
			  L->outsec[i].type != LK_SHT_NOBITS);
		x.align = o->align > x.align ? o->align : x.align;
	}
	if (p == L->hdr_phdr) {
		lk_u64 skip = (L->phdr[p].pflags & LK_PHDR_FILEHDR) ? 0 : 64;

		lk_extend(&x, L->hdr_vma + skip, L->hdr_lma + skip,
			  L->hdr_size - skip, 1);
	}
	if (x.vlo == ~0ull)
		return; /* no section: an empty header */
	if (ph->p_type == LK_PT_LOAD && x.align < 0x1000)
		x.align = 0x1000;
	ph->p_align = x.align;
	ph->p_vaddr = x.vlo;
	ph->p_paddr = x.llo;
	ph->p_offset = x.llo - L->load_lo;
	ph->p_memsz = x.vhi - x.vlo;
	ph->p_filesz = x.fhi > x.llo ? x.fhi - x.llo : 0;
}

static int lk_headers_fail(struct lk_link *L, const char *why)
{
	LK_ERR(L, "%s: segment %s (FILEHDR/PHDRS): %s", L->name,
	       lk_str(L, L->phdr[L->hdr_phdr].name), why);
	return 0;
}

/* The lowest-VMA section of segment p (LK_NONE if none); *min gets the
 * lowest VMA of any section in a segment. */
static lk_u32 lk_first_in(const struct lk_link *L, lk_u32 p, lk_u64 *min)
{
	lk_u32 i, q, first = LK_NONE;

	*min = ~0ull;
	for (i = 0; i < L->nout; i++) {
		for (q = 0; q < L->nphdr && !lk_os_in_segment(L, i, q); q++)
			;
		if (q == L->nphdr)
			continue;
		*min = L->os[i].vma < *min ? L->os[i].vma : *min;
		if (lk_os_in_segment(L, i, p) &&
		    (first == LK_NONE || L->os[i].vma < L->os[first].vma))
			first = i;
	}
	return first;
}

/*
 * ld.lld puts the ELF header and program headers of a FILEHDR/PHDRS
 * segment on the page below the lowest section, at that segment's
 * LMA-VMA offset. Kept empty sections may widen the load range too.
 */
int lk_link_headers(struct lk_link *L)
{
	lk_u32 p, i, first;
	lk_u64 min, lo, hi;

	L->hdr_phdr = LK_NONE;
	for (p = 0; p < L->nphdr; p++) {
		if (!(L->phdr[p].pflags & (LK_PHDR_FILEHDR | LK_PHDR_PHDRS)))
			continue;
		if (L->hdr_phdr != LK_NONE) {
			L->hdr_phdr = p; /* name the second one */
			return lk_headers_fail(L, "headers in two segments");
		}
		L->hdr_phdr = p;
	}
	for (i = 0; i < L->nout; i++)
		if (!L->os[i].shndx && L->os[i].state == LK_OS_DONE &&
		    (L->outsec[i].oflags & LK_OUTSEC_KEEP_EMPTY)) {
			L->load_lo = L->os[i].lma < L->load_lo ? L->os[i].lma
							       : L->load_lo;
			L->load_hi = L->os[i].lma > L->load_hi ? L->os[i].lma
							       : L->load_hi;
		}
	if (L->hdr_phdr == LK_NONE)
		return 1;
	L->hdr_size = sizeof(struct lk_elf64_ehdr) +
		      (lk_u64)L->nphdr * sizeof(struct lk_elf64_phdr);
	first = lk_first_in(L, L->hdr_phdr, &min);
	if (first == LK_NONE)
		return lk_headers_fail(L, "no section in the segment");
	if (min < L->hdr_size || L->os[first].vma != min)
		return lk_headers_fail(
			L, "not the lowest segment, or no room below it");
	L->hdr_vma = (min - L->hdr_size) & ~0xfffull;
	L->hdr_lma = L->hdr_vma + (L->os[first].lma - L->os[first].vma);
	lo = L->hdr_lma;
	hi = lo + L->hdr_size;
	if (hi < lo || hi > L->load_lo)
		return lk_headers_fail(
			L, "headers overlap a section in load memory");
	L->load_lo = lo;
	return 1;
}

static void lk_put(lk_u8 *dst, const void *src, lk_size n)
{
	lk_memcpy(dst, src, n);
}

/* The ELF header as `linkkit link` writes the file (image at offset 0,
 * section headers right after the image, 8-aligned), and the PHDRS. */
void lk_write_headers(const struct lk_link *L, lk_u8 *img)
{
	struct lk_elf64_ehdr eh;
	struct lk_elf64_phdr ph;
	lk_u8 *at;
	lk_u32 p;

	if (L->hdr_phdr == LK_NONE)
		return;
	at = img + (L->hdr_lma - L->load_lo);
	lk_memset(&eh, 0, sizeof(eh));
	eh.e_ident[0] = 0x7f;
	eh.e_ident[1] = 'E';
	eh.e_ident[2] = 'L';
	eh.e_ident[3] = 'F';
	eh.e_ident[4] = 2; /* ELFCLASS64 */
	eh.e_ident[5] = 1; /* little-endian */
	eh.e_ident[6] = 1; /* EV_CURRENT */
	eh.e_type = LK_ET_EXEC;
	eh.e_machine = LK_EM_X86_64;
	eh.e_version = 1;
	eh.e_entry = L->entry_vma;
	eh.e_phoff = sizeof(eh);
	eh.e_shoff = (L->load_hi - L->load_lo + 7) & ~7ull;
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = (lk_u16)L->nphdr;
	eh.e_shentsize = sizeof(struct lk_elf64_shdr);
	eh.e_shnum = (lk_u16)(L->nemit + 4);
	eh.e_shstrndx = (lk_u16)(L->nemit + 3);
	lk_put(at, &eh, sizeof(eh));
	for (p = 0; p < L->nphdr; p++) {
		lk_fill_phdr(L, p, &ph);
		lk_put(at + sizeof(eh) + p * sizeof(ph), &ph, sizeof(ph));
	}
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
