/*
 * Multiboot2 boot information builder (see mb2.h). The buffer is filled
 * front to back; on overflow later calls only account for the space they
 * would need so the caller can retry with a bigger buffer.
 */
#include "mb2.h"
#include "linkkit.h"

static void lk_mb2_put32(lk_u8 *p, lk_u32 v)
{
	lk_memcpy(p, &v, 4);
}

static void lk_mb2_put64(lk_u8 *p, lk_u64 v)
{
	lk_memcpy(p, &v, 8);
}

/*
 * Reserves a tag of `size` bytes (header included, before padding) and
 * returns where its body goes, or LK_NULL when it does not fit.
 */
static lk_u8 *lk_mb2_tag(struct lk_mb2 *m, lk_u32 type, lk_u64 size)
{
	lk_u64 padded = (size + 7u) & ~(lk_u64)7u;
	lk_u8 *t;

	if (padded > 0x7fffffffu || m->need + padded > 0x7fffffffu) {
		m->error = 1;
		return LK_NULL;
	}
	m->need += (lk_u32)padded;
	if (m->error || m->len + padded > m->cap) {
		m->error = 1;
		return LK_NULL;
	}
	t = m->buf + m->len;
	lk_memset(t, 0, (lk_size)padded);
	lk_mb2_put32(t, type);
	lk_mb2_put32(t + 4, (lk_u32)size);
	m->len += (lk_u32)padded;
	return t + 8;
}

void lk_mb2_begin(struct lk_mb2 *m, void *buf, lk_u32 cap)
{
	m->buf = buf;
	m->cap = cap & ~7u;
	m->len = 8;
	m->need = 8;
	m->error = buf == LK_NULL || ((lk_uptr)buf & 7) || m->cap < 8;
	if (!m->error)
		lk_memset(m->buf, 0, 8);
}

static void lk_mb2_string(struct lk_mb2 *m, lk_u32 type, const char *s)
{
	lk_size n = lk_strnlen(s, 0x10000);
	lk_u8 *t = lk_mb2_tag(m, type, 8 + (lk_u64)n + 1);

	if (t)
		lk_memcpy(t, s, n); /* the NUL is already there */
}

void lk_mb2_cmdline(struct lk_mb2 *m, const char *s)
{
	lk_mb2_string(m, LK_MB2_TAG_CMDLINE, s);
}

void lk_mb2_loader_name(struct lk_mb2 *m, const char *s)
{
	lk_mb2_string(m, LK_MB2_TAG_LOADER_NAME, s);
}

void lk_mb2_basic_meminfo(struct lk_mb2 *m, lk_u32 lower_kb, lk_u32 upper_kb)
{
	lk_u8 *t = lk_mb2_tag(m, LK_MB2_TAG_BASIC_MEMINFO, 16);

	if (t) {
		lk_mb2_put32(t, lower_kb);
		lk_mb2_put32(t + 4, upper_kb);
	}
}

/* End of the available run that covers `addr`, or addr if none does. */
static lk_u64 lk_mb2_avail_end(const struct lk_mb2_mmap_entry *e, lk_u32 n,
			       lk_u64 addr)
{
	int grew = 1;

	while (grew) {
		lk_u32 i;
		grew = 0;
		for (i = 0; i < n; i++) {
			lk_u64 end = e[i].addr + e[i].len;
			if (e[i].type != LK_MB2_MEM_AVAILABLE ||
			    end < e[i].addr)
				continue;
			if (e[i].addr <= addr && end > addr) {
				addr = end;
				grew = 1;
			}
		}
	}
	return addr;
}

static lk_u32 lk_mb2_kb(lk_u64 bytes)
{
	lk_u64 kb = bytes >> 10;

	return kb > 0xffffffffu ? 0xffffffffu : (lk_u32)kb;
}

void lk_mb2_meminfo_from_map(const struct lk_mb2_mmap_entry *e, lk_u32 n,
			     lk_u32 *lower_kb, lk_u32 *upper_kb)
{
	lk_u64 low = lk_mb2_avail_end(e, n, 0);
	lk_u64 high = lk_mb2_avail_end(e, n, 0x100000);

	if (low > 0xa0000)
		low = 0xa0000; /* lower memory never extends past 640 KiB */
	*lower_kb = lk_mb2_kb(low);
	*upper_kb = lk_mb2_kb(high - 0x100000);
}

void lk_mb2_mmap(struct lk_mb2 *m, const struct lk_mb2_mmap_entry *e,
		 lk_u32 n)
{
	lk_u8 *t = lk_mb2_tag(m, LK_MB2_TAG_MMAP, 16 + (lk_u64)n * 24);
	lk_u32 i;

	if (!t)
		return;
	lk_mb2_put32(t, 24);
	lk_mb2_put32(t + 4, 0);
	for (i = 0; i < n; i++) {
		lk_u8 *d = t + 8 + i * 24;
		lk_mb2_put64(d, e[i].addr);
		lk_mb2_put64(d + 8, e[i].len);
		lk_mb2_put32(d + 16, e[i].type);
	}
}

void lk_mb2_acpi_rsdp(struct lk_mb2 *m, int v2, const void *rsdp, lk_u32 len)
{
	lk_u8 *t = lk_mb2_tag(m, v2 ? LK_MB2_TAG_ACPI_NEW : LK_MB2_TAG_ACPI_OLD,
			      8 + (lk_u64)len);

	if (t)
		lk_memcpy(t, rsdp, len);
}

void lk_mb2_elf_sections(struct lk_mb2 *m, lk_u32 num, lk_u32 entsize,
			 lk_u32 shndx, const void *shdrs)
{
	lk_u64 bytes = (lk_u64)num * entsize;
	lk_u8 *t = lk_mb2_tag(m, LK_MB2_TAG_ELF_SECTIONS, 20 + bytes);

	if (!t)
		return;
	lk_mb2_put32(t, num);
	lk_mb2_put32(t + 4, entsize);
	lk_mb2_put32(t + 8, shndx);
	lk_memcpy(t + 12, shdrs, (lk_size)bytes);
}

void lk_mb2_efi64(struct lk_mb2 *m, lk_u64 systab)
{
	lk_u8 *t = lk_mb2_tag(m, LK_MB2_TAG_EFI64, 16);

	if (t)
		lk_mb2_put64(t, systab);
}

void lk_mb2_efi_mmap(struct lk_mb2 *m, lk_u32 desc_size, lk_u32 desc_version,
		     const void *map, lk_u32 size)
{
	lk_u8 *t = lk_mb2_tag(m, LK_MB2_TAG_EFI_MMAP, 16 + (lk_u64)size);

	if (!t)
		return;
	lk_mb2_put32(t, desc_size);
	lk_mb2_put32(t + 4, desc_version);
	lk_memcpy(t + 8, map, size);
}

void lk_mb2_load_base(struct lk_mb2 *m, lk_u32 base)
{
	lk_u8 *t = lk_mb2_tag(m, LK_MB2_TAG_LOAD_BASE_ADDR, 12);

	if (t)
		lk_mb2_put32(t, base);
}

int lk_mb2_end(struct lk_mb2 *m)
{
	lk_mb2_tag(m, LK_MB2_TAG_END, 8);
	if (m->error)
		return LK_ERR_NOMEM;
	lk_mb2_put32(m->buf, m->len);
	return LK_OK;
}

#define LK_MB2_HDR_MAGIC 0xe85250d6u
#define LK_MB2_HDR_SEARCH 32768u
#define LK_MB2_HDR_RELOC 10u

/* Tags of one header: 8-aligned, each inside [off, end), ended by type 0. */
static int lk_mb2_hdr_tags(const lk_u8 *p, lk_u64 off, lk_u64 end,
			   struct lk_mb2_reloc *out)
{
	while (off + 8 <= end) {
		lk_u16 type;
		lk_u32 tsize;
		lk_memcpy(&type, p + off, 2);
		lk_memcpy(&tsize, p + off + 4, 4);
		if (type == 0 || tsize < 8 || tsize > end - off)
			return 0;
		if (type == LK_MB2_HDR_RELOC) {
			lk_u32 a;
			if (tsize != 24)
				return 0;
			lk_memcpy(out, p + off + 8, sizeof(*out));
			a = out->align;
			return out->min_addr <= out->max_addr &&
			       a <= 0x40000000u && (a & (a - 1)) == 0;
		}
		off += ((lk_u64)tsize + 7) & ~7ull;
	}
	return 0;
}

int lk_mb2_header_reloc(const void *buf, lk_u64 size, struct lk_mb2_reloc *out)
{
	const lk_u8 *p = buf;
	lk_u64 off, lim = size < LK_MB2_HDR_SEARCH ? size : LK_MB2_HDR_SEARCH;
	lk_u32 w[4];

	lk_memset(out, 0, sizeof(*out));
	for (off = 0; off + 16 <= lim; off += 8) {
		lk_memcpy(w, p + off, 16);
		if (w[0] != LK_MB2_HDR_MAGIC || w[0] + w[1] + w[2] + w[3] != 0)
			continue;
		/* The first valid header is the kernel's, as for a loader. */
		if (w[1] != 0 || w[2] < 16 || w[2] > size - off)
			return 0;
		return lk_mb2_hdr_tags(p, off + 16, off + w[2], out);
	}
	return 0;
}

lk_u32 lk_mb2_type_from_efi(lk_u32 efi_type)
{
	switch (efi_type) {
	case 1: /* LoaderCode */
	case 2: /* LoaderData */
	case 3: /* BootServicesCode */
	case 4: /* BootServicesData */
	case 7: /* ConventionalMemory */
		return LK_MB2_MEM_AVAILABLE;
	case 8: /* UnusableMemory */
		return LK_MB2_MEM_BADRAM;
	case 9: /* ACPIReclaimMemory */
		return LK_MB2_MEM_ACPI_RECLAIMABLE;
	case 10: /* ACPIMemoryNVS */
		return LK_MB2_MEM_NVS;
	default:
		return LK_MB2_MEM_RESERVED;
	}
}

/* Insertion sort: maps are small (a few hundred entries) and nearly sorted. */
static void lk_mb2_map_sort(struct lk_mb2_mmap_entry *e, lk_u32 n)
{
	lk_u32 i, j;

	for (i = 1; i < n; i++) {
		struct lk_mb2_mmap_entry v = e[i];
		for (j = i; j > 0 && e[j - 1].addr > v.addr; j--)
			e[j] = e[j - 1];
		e[j] = v;
	}
}

lk_u32 lk_mb2_map_normalize(struct lk_mb2_mmap_entry *e, lk_u32 n)
{
	lk_u32 i, o = 0;

	lk_mb2_map_sort(e, n);
	for (i = 0; i < n; i++) {
		if (e[i].len == 0)
			continue;
		if (o > 0 && e[o - 1].type == e[i].type &&
		    e[o - 1].addr + e[o - 1].len == e[i].addr) {
			e[o - 1].len += e[i].len;
			continue;
		}
		e[o] = e[i];
		e[o].zero = 0;
		o++;
	}
	return o;
}

/* ---- ELF-sections view of a fallback ELF file ---- */

#define LK_MB2_SHDR_SIZE 64
#define LK_MB2_SHT_SYMTAB 2
#define LK_MB2_SHT_STRTAB 3
#define LK_MB2_SHF_ALLOC 0x2

static lk_u64 lk_mb2_get64(const lk_u8 *p)
{
	lk_u64 v;

	lk_memcpy(&v, p, 8);
	return v;
}

static lk_u32 lk_mb2_get32(const lk_u8 *p)
{
	lk_u32 v;

	lk_memcpy(&v, p, 4);
	return v;
}

static lk_u16 lk_mb2_get16(const lk_u8 *p)
{
	lk_u16 v;

	lk_memcpy(&v, p, 2);
	return v;
}

/* Only the symbol and string tables: debug sections can be far larger
 * than the kernel and nothing at boot needs them. */
static int lk_mb2_shdr_copied(const lk_u8 *sh)
{
	lk_u32 type = lk_mb2_get32(sh + 4);

	return (type == LK_MB2_SHT_SYMTAB || type == LK_MB2_SHT_STRTAB) &&
	       !(lk_mb2_get64(sh + 8) & LK_MB2_SHF_ALLOC);
}

static int lk_mb2_elf_shdrs(const lk_u8 *f, lk_u64 size, lk_u64 *shoff,
			    lk_u32 *num, lk_u32 *shndx)
{
	static const lk_u8 ident[6] = { 0x7f, 'E', 'L', 'F', 2, 1 };

	if (size < 64 || lk_memcmp(f, ident, 6) != 0)
		return LK_ERR_ELF;
	*shoff = lk_mb2_get64(f + 0x28);
	*num = lk_mb2_get16(f + 0x3c);
	*shndx = lk_mb2_get16(f + 0x3e);
	if (*num == 0 || lk_mb2_get16(f + 0x3a) != LK_MB2_SHDR_SIZE)
		return LK_ERR_ELF;
	if (*shoff > size || (lk_u64)*num * LK_MB2_SHDR_SIZE > size - *shoff)
		return LK_ERR_ELF;
	if (*shndx >= *num)
		return LK_ERR_ELF;
	return LK_OK;
}

/* Lays the copied sections out after the headers; with o == LK_NULL only
 * measures. Bounds were checked by the caller's first (measuring) pass. */
static lk_u64 lk_mb2_elf_place(const lk_u8 *f, const lk_u8 *shdrs, lk_u32 num,
			       lk_u8 *o, lk_u64 out_addr)
{
	lk_u64 pos = (lk_u64)num * LK_MB2_SHDR_SIZE;
	lk_u32 i;

	for (i = 0; i < num; i++) {
		const lk_u8 *sh = shdrs + (lk_u64)i * LK_MB2_SHDR_SIZE;
		lk_u64 off = lk_mb2_get64(sh + 0x18);
		lk_u64 sz = lk_mb2_get64(sh + 0x20);

		if (!lk_mb2_shdr_copied(sh))
			continue;
		pos = (pos + 7) & ~(lk_u64)7;
		if (o) {
			lk_u8 *dsh = o + (lk_u64)i * LK_MB2_SHDR_SIZE;
			lk_memcpy(o + pos, f + off, (lk_size)sz);
			lk_mb2_put64(dsh + 0x10, out_addr + pos);
			lk_mb2_put64(dsh + 0x18, pos);
		}
		pos += sz;
	}
	return pos;
}

static int lk_mb2_elf_bounds(const lk_u8 *shdrs, lk_u32 num, lk_u64 size)
{
	lk_u32 i;

	for (i = 0; i < num; i++) {
		const lk_u8 *sh = shdrs + (lk_u64)i * LK_MB2_SHDR_SIZE;
		lk_u64 off = lk_mb2_get64(sh + 0x18);
		lk_u64 sz = lk_mb2_get64(sh + 0x20);

		if (lk_mb2_shdr_copied(sh) &&
		    (off > size || sz > size - off || sz > 0x40000000u))
			return LK_ERR_ELF;
	}
	return LK_OK;
}

int lk_mb2_elf_view_from_file(const void *elf, lk_u64 size, void *out,
			      lk_u64 out_size, lk_u64 out_addr, lk_u32 *num,
			      lk_u32 *entsize, lk_u32 *shndx, lk_u64 *used)
{
	const lk_u8 *f = elf;
	lk_u64 shoff;
	int r = lk_mb2_elf_shdrs(f, size, &shoff, num, shndx);

	if (r == LK_OK)
		r = lk_mb2_elf_bounds(f + shoff, *num, size);
	if (r)
		return r;
	*entsize = LK_MB2_SHDR_SIZE;
	*used = lk_mb2_elf_place(f, f + shoff, *num, LK_NULL, 0);
	if (!out)
		return LK_OK;
	if (*used > out_size)
		return LK_ERR_NOMEM;
	lk_memcpy(out, f + shoff, (lk_size)*num * LK_MB2_SHDR_SIZE);
	lk_mb2_elf_place(f, f + shoff, *num, out, out_addr);
	return LK_OK;
}
