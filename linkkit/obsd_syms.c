/*
 * The ELF symbol table in the shape OpenBSD's boot(8) hands it to the
 * kernel (sys/lib/libsa/loadfile_elf.c): at the end of the loaded image
 * rounded up to 8, an ELF header (no program headers, e_shoff 64), every
 * section header, then the SYMTAB and STRTAB sections in section order,
 * each rounded up to 8, with sh_offset relative to that ELF header and
 * SHF_ALLOC set. The kernel's esym (the `end` entry argument) is the end
 * of the block; amd64 locore0 takes ssym = __kernel_bss_end, the end of
 * the image, and ddb's db_elf_sym_init reads the table from there.
 *
 * Relinked kernels: made from the link's own ELF view (symbols in the
 * kit's canonical order, values of this boot's layout). Fallback kernels:
 * copied from the file, every header, offset and size checked first.
 */
#include "link_internal.h"

#define LK_EHDR 64u
#define LK_SHDR 64u
#define LK_SYMENT 24u
#define LK_MAX_SHNUM 4096u

static lk_u64 lk_up8(lk_u64 v)
{
	return (v + 7) & ~7ull;
}

/* The header boot(8) writes: the file's, with e_phoff 0, e_shoff 64 and
 * no program headers. */
static void lk_obsd_ehdr(lk_u8 *dst, lk_u64 entry, lk_u16 shnum,
			 lk_u16 shstrndx)
{
	struct lk_elf64_ehdr e;

	lk_memset(&e, 0, sizeof(e));
	e.e_ident[0] = 0x7f;
	e.e_ident[1] = 'E';
	e.e_ident[2] = 'L';
	e.e_ident[3] = 'F';
	e.e_ident[4] = LK_ELFCLASS64;
	e.e_ident[5] = LK_ELFDATA2LSB;
	e.e_ident[6] = LK_EV_CURRENT;
	e.e_type = LK_ET_EXEC;
	e.e_machine = LK_EM_X86_64;
	e.e_version = LK_EV_CURRENT;
	e.e_entry = entry;
	e.e_shoff = LK_EHDR;
	e.e_ehsize = LK_EHDR;
	e.e_shentsize = LK_SHDR;
	e.e_shnum = shnum;
	e.e_shstrndx = shstrndx;
	lk_memcpy(dst, &e, sizeof(e));
}

/* ---- relinked kernels ---- */

/* The ELF view is [shdrs][.symtab][.strtab][.shstrtab]; the block puts
 * the ELF header first and rounds .strtab and .shstrtab up to 8. */
lk_u64 lk_link_obsd_syms_size(const struct lk_link *L)
{
	struct lk_elf_view v;
	lk_u64 str, shstr;

	if (lk_link_elf_size(L, &v) != LK_OK ||
	    lk_link_tail_sizes(L, &str, &shstr) != LK_OK)
		return 0;
	return LK_EHDR + (v.size - str - shstr) + lk_up8(str) + lk_up8(shstr);
}

int lk_link_obsd_syms(const struct lk_link *L, void *dst, lk_u64 size)
{
	struct lk_elf_view v;
	struct lk_elf64_shdr *sh;
	lk_u8 *b = dst;
	lk_u64 off;
	lk_u32 i;

	if (lk_link_elf_size(L, &v) != LK_OK ||
	    size < lk_link_obsd_syms_size(L)) {
		lk_log(L->h, LK_LOG_ERROR,
		       "%s: symbol table: no layout or "
		       "buffer too small",
		       L->name);
		return LK_ERR_RANGE;
	}
	lk_memset(b, 0, (lk_size)size);
	if (lk_link_elf_emit(L, b + LK_EHDR, v.size, 0, &v) != LK_OK)
		return LK_ERR_RANGE;
	sh = (struct lk_elf64_shdr *)(b + LK_EHDR);
	/* .symtab, .strtab, .shstrtab: the last three, in that order. */
	for (i = v.shnum - 3; i < v.shnum; i++) {
		sh[i].sh_offset += LK_EHDR;
		sh[i].sh_addr = 0;
		sh[i].sh_flags |= LK_SHF_ALLOC;
	}
	/* .strtab may end unaligned: move .shstrtab to the next 8. */
	off = lk_up8(sh[v.shnum - 2].sh_offset + sh[v.shnum - 2].sh_size);
	lk_memmove(b + off, b + sh[v.shnum - 1].sh_offset,
		   (lk_size)sh[v.shnum - 1].sh_size);
	if (off > sh[v.shnum - 1].sh_offset)
		lk_memset(b + sh[v.shnum - 1].sh_offset, 0,
			  (lk_size)(off - sh[v.shnum - 1].sh_offset));
	sh[v.shnum - 1].sh_offset = off;
	lk_obsd_ehdr(b, L->entry_vma, (lk_u16)v.shnum, (lk_u16)v.shstrndx);
	return LK_OK;
}

/* ---- the fallback: the file's own tables ---- */

struct lk_fsyms {
	const lk_u8 *elf;
	lk_u64 size;
	struct lk_elf64_ehdr e;
	const char *why; /* why no table is handed over */
};

static void lk_fshdr(const struct lk_fsyms *f, lk_u32 i,
		     struct lk_elf64_shdr *out)
{
	lk_memcpy(out, f->elf + f->e.e_shoff + (lk_u64)i * LK_SHDR, LK_SHDR);
}

/* Inside the file: [off, off + len). */
static int lk_in_file(const struct lk_fsyms *f, lk_u64 off, lk_u64 len)
{
	return off <= f->size && len <= f->size - off;
}

/* Section i's name, or "" when it is not a NUL-terminated string inside
 * the section-name table. */
static const char *lk_fsec_name(const struct lk_fsyms *f, lk_u32 i)
{
	struct lk_elf64_shdr s, n;
	lk_u64 k;

	lk_fshdr(f, i, &s);
	lk_fshdr(f, f->e.e_shstrndx, &n);
	if (n.sh_type != LK_SHT_STRTAB ||
	    !lk_in_file(f, n.sh_offset, n.sh_size))
		return "";
	for (k = s.sh_name; k < n.sh_size; k++)
		if (f->elf[n.sh_offset + k] == 0)
			return (const char *)f->elf + n.sh_offset + s.sh_name;
	return "";
}

/* The sections boot(8) loads: symbol and string tables, and the two it
 * knows by name (line numbers and CTF). */
static int lk_fsec_loaded(const struct lk_fsyms *f, lk_u32 i)
{
	struct lk_elf64_shdr s;
	const char *n;

	lk_fshdr(f, i, &s);
	if (s.sh_type == LK_SHT_SYMTAB || s.sh_type == LK_SHT_STRTAB)
		return 1;
	n = lk_fsec_name(f, i);
	return !lk_strcmp(n, ".debug_line") || !lk_strcmp(n, ".SUNW_ctf");
}

/* A symbol table the kernel can walk without leaving it: sh_link names a
 * string table in the file and every st_name lies inside it. */
static int lk_fsymtab_ok(struct lk_fsyms *f, const struct lk_elf64_shdr *s)
{
	struct lk_elf64_shdr t;
	lk_u64 k;
	lk_u32 name;

	/* 32-bit remainder: the i386 stage has no 64-bit division. */
	if (s->sh_size > LK_MAX_SIZE || (lk_u32)s->sh_size % LK_SYMENT ||
	    s->sh_link >= f->e.e_shnum) {
		f->why = "malformed .symtab header";
		return 0;
	}
	lk_fshdr(f, s->sh_link, &t);
	if (t.sh_type != LK_SHT_STRTAB ||
	    !lk_in_file(f, t.sh_offset, t.sh_size)) {
		f->why = ".symtab links to no string table";
		return 0;
	}
	for (k = 0; k < s->sh_size; k += LK_SYMENT) {
		lk_memcpy(&name, f->elf + s->sh_offset + k, 4);
		if (name >= t.sh_size && !(name == 0 && t.sh_size == 0)) {
			f->why = "a symbol name outside .strtab";
			return 0;
		}
	}
	return 1;
}

/* Checks every header the block copies; returns its size, 0 if none. */
static lk_u64 lk_fsyms_size(struct lk_fsyms *f)
{
	struct lk_elf64_shdr s;
	lk_u64 total;
	lk_u32 i, nsym = 0;

	if (f->size < LK_EHDR) {
		f->why = "no ELF header";
		return 0;
	}
	lk_memcpy(&f->e, f->elf, LK_EHDR);
	if (f->e.e_shnum == 0 || f->e.e_shnum > LK_MAX_SHNUM ||
	    f->e.e_shentsize != LK_SHDR || f->e.e_shstrndx >= f->e.e_shnum ||
	    !lk_in_file(f, f->e.e_shoff, (lk_u64)f->e.e_shnum * LK_SHDR)) {
		f->why = "no valid section headers";
		return 0;
	}
	total = LK_EHDR + (lk_u64)f->e.e_shnum * LK_SHDR;
	for (i = 0; i < f->e.e_shnum; i++) {
		if (!lk_fsec_loaded(f, i))
			continue;
		lk_fshdr(f, i, &s);
		if (!lk_in_file(f, s.sh_offset, s.sh_size) ||
		    s.sh_size > LK_MAX_SIZE) {
			f->why = "a symbol or string table outside the file";
			return 0;
		}
		if (s.sh_type == LK_SHT_SYMTAB && !lk_fsymtab_ok(f, &s))
			return 0;
		nsym += s.sh_type == LK_SHT_SYMTAB;
		total += lk_up8(s.sh_size);
	}
	if (!nsym) {
		f->why = "no .symtab";
		return 0;
	}
	return total;
}

static void lk_fsyms_write(const struct lk_fsyms *f, lk_u8 *dst)
{
	struct lk_elf64_shdr s;
	lk_u64 off = LK_EHDR + (lk_u64)f->e.e_shnum * LK_SHDR;
	lk_u32 i;

	lk_obsd_ehdr(dst, f->e.e_entry, f->e.e_shnum, f->e.e_shstrndx);
	for (i = 0; i < f->e.e_shnum; i++) {
		lk_fshdr(f, i, &s);
		if (lk_fsec_loaded(f, i)) {
			lk_memcpy(dst + off, f->elf + s.sh_offset,
				  (lk_size)s.sh_size);
			s.sh_offset = off;
			s.sh_flags |= LK_SHF_ALLOC;
			off += lk_up8(s.sh_size);
		}
		lk_memcpy(dst + LK_EHDR + (lk_u64)i * LK_SHDR, &s, LK_SHDR);
	}
}

int lk_elf_obsd_syms(const struct lk_host *h, const void *elf, lk_u64 size,
		     const char *name, void *dst, lk_u64 cap, lk_u64 *need)
{
	struct lk_fsyms f;

	lk_memset(&f, 0, sizeof(f));
	f.elf = elf;
	f.size = size;
	*need = lk_fsyms_size(&f);
	if (!*need) {
		if (dst)
			lk_log(h, LK_LOG_WARN,
			       "%s: no symbol table for the "
			       "kernel: %s",
			       name, f.why);
		return LK_OK;
	}
	if (!dst)
		return LK_OK;
	if (cap < *need) {
		lk_log(h, LK_LOG_ERROR, "%s: symbol table: buffer too small",
		       name);
		return LK_ERR_RANGE;
	}
	lk_memset(dst, 0, (lk_size)*need);
	lk_fsyms_write(&f, dst);
	return LK_OK;
}

/* ---- for the stages: the kernel's range grows by the block ---- */

lk_u64 lk_link_obsd_end(const struct lk_link *L)
{
	if (!L->laid_out || L->hdr->protocol != LK_PROTO_OPENBSD)
		return L->load_hi;
	return lk_up8(L->load_hi) + lk_link_obsd_syms_size(L);
}

int lk_link_obsd_place(const struct lk_link *L, void *image)
{
	lk_u8 *p = image;
	lk_u64 at = lk_up8(L->load_hi);

	if (!L->laid_out || L->hdr->protocol != LK_PROTO_OPENBSD)
		return LK_OK;
	lk_memset(p + (L->load_hi - L->load_lo), 0, (lk_size)(at - L->load_hi));
	return lk_link_obsd_syms(L, p + (at - L->load_lo),
				 lk_link_obsd_end(L) - at);
}

lk_u64 lk_elf_obsd_end(const void *elf, lk_u64 size,
		       const struct lk_elf_image *img, lk_u32 protocol)
{
	struct lk_fsyms f;
	lk_u64 n;

	if (protocol != LK_PROTO_OPENBSD)
		return img->load_hi;
	lk_memset(&f, 0, sizeof(f));
	f.elf = elf;
	f.size = size;
	n = lk_fsyms_size(&f);
	return n ? lk_up8(img->load_hi) + n : img->load_hi;
}

int lk_elf_obsd_place(const struct lk_host *h, const void *elf, lk_u64 size,
		      const char *name, const struct lk_elf_image *img,
		      lk_u32 protocol, void *image)
{
	lk_u8 *p = image;
	lk_u64 at = lk_up8(img->load_hi), need, end;

	if (protocol != LK_PROTO_OPENBSD)
		return LK_OK;
	end = lk_elf_obsd_end(elf, size, img, protocol);
	if (end > img->load_hi) /* the padding up to the block */
		lk_memset(p + (img->load_hi - img->load_lo), 0,
			  (lk_size)(at - img->load_hi));
	/* Without a table (end == load_hi) this only prints the warning. */
	return lk_elf_obsd_syms(h, elf, size, name, p + (at - img->load_lo),
				end > at ? end - at : 0, &need);
}
