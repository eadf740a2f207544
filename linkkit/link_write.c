/*
 * lk_link_write: produces the image at its load addresses: contents, fill
 * patterns, gap bytes, zeroed NOBITS, random-fill sections, then every
 * relocation. Relocation errors are all reported (up to a cap), not just
 * the first, so one boot shows everything that is wrong with a kit.
 */
#include "link_internal.h"

#define LK_ERR(L, ...) lk_log((L)->h, LK_LOG_ERROR, __VA_ARGS__)

/*
 * x86-64 multi-byte NOPs of 1..10 bytes, as GNU ld pads code sections that
 * have no fill pattern: as many 10-byte NOPs as fit, then one NOP of the
 * remaining length.
 */
static const lk_u8 lk_nops[10][10] = {
	{ 0x90 },
	{ 0x66, 0x90 },
	{ 0x0f, 0x1f, 0x00 },
	{ 0x0f, 0x1f, 0x40, 0x00 },
	{ 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	{ 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	{ 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 },
	{ 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
	{ 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
	{ 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
};

static void lk_fill_nops(lk_u8 *p, lk_u64 n)
{
	for (; n >= 10; n -= 10, p += 10)
		lk_memcpy(p, lk_nops[9], 10);
	if (n)
		lk_memcpy(p, lk_nops[n - 1], (lk_size)n);
}

/* The script's fill: a big-endian pattern restarting at each padding;
 * without one, NOPs in code sections and zeros elsewhere (GNU ld). */
static void lk_fill(const struct lk_outsec *o, lk_u8 *p, lk_u64 n)
{
	lk_u64 i, done, m;

	if (o->fill_len == 0 && (o->flags & LK_SHF_EXECINSTR)) {
		lk_fill_nops(p, n);
		return;
	}
	if (o->fill_len == 0) {
		lk_memset(p, 0, (lk_size)n);
		return;
	}
	done = n < o->fill_len ? n : o->fill_len;
	for (i = 0; i < done; i++)
		p[i] = (lk_u8)(o->fill >> (8 * (o->fill_len - 1 - i)));
	/* Kernels pad megabytes this way: double the filled prefix with
	 * word copies instead of a byte loop. The prefix is a whole number
	 * of patterns, so the copy keeps the phase. */
	while (done < n) {
		m = done < n - done ? done : n - done;
		lk_memcpy(p + done, p, (lk_size)m);
		done += m;
	}
}

static void lk_write_chunk(const struct lk_link *L, lk_u32 c, lk_u8 *p)
{
	const struct lk_chunk *ch = &L->chunk[c];
	lk_u64 n = L->chunk_size[c];

	if (ch->flags & LK_CHUNK_GAP)
		lk_memset(p, (int)ch->data_off, (lk_size)n);
	else if (ch->flags & LK_CHUNK_NOBITS)
		lk_memset(p, 0, (lk_size)n);
	else if (ch->flags & LK_CHUNK_MERGE) {
		lk_merge_write(L, c, p);
	} else
		lk_memcpy(p, L->data + ch->data_off, (lk_size)n);
}

static void lk_write_item(const struct lk_link *L, const struct lk_item *it,
			  lk_u8 *p)
{
	int i;

	if (it->kind == LK_ITEM_CHUNK) {
		lk_write_chunk(L, it->chunk, p);
		return;
	}
	for (i = 0; i < it->width; i++)
		p[i] = (lk_u8)(it->value >> (8 * i));
}

static lk_u64 lk_item_size(const struct lk_link *L, const struct lk_item *it)
{
	return it->kind == LK_ITEM_CHUNK ? L->chunk_size[it->chunk] : it->width;
}

/* Items of one output section are contiguous: sections do not nest. */
static lk_u32 lk_write_outsec(const struct lk_link *L, lk_u32 s, lk_u32 i,
			      lk_u8 *dst)
{
	const struct lk_os *o = &L->os[s];
	const struct lk_outsec *os = &L->outsec[s];
	lk_u8 *base = dst + (o->lma - L->load_lo);
	lk_u64 cur = o->vma;

	for (; i < L->nitem && L->item[i].outsec == s; i++) {
		const struct lk_item *it = &L->item[i];

		if (os->type == LK_SHT_NOBITS)
			continue;
		lk_fill(os, base + (cur - o->vma), it->vma - cur);
		lk_write_item(L, it, base + (it->vma - o->vma));
		cur = it->vma + lk_item_size(L, it);
	}
	if (os->type == LK_SHT_NOBITS)
		lk_memset(base, 0, (lk_size)o->size);
	else
		lk_fill(os, base + (cur - o->vma), o->vma + o->size - cur);
	return i;
}

static lk_u32 lk_apply_relocs(const struct lk_link *L, lk_u8 *dst)
{
	lk_u32 i, k, nerr = 0;

	for (i = 0; i < L->nitem; i++) {
		const struct lk_item *it = &L->item[i];
		const struct lk_chunk *c;
		lk_u8 *p;

		if (it->kind != LK_ITEM_CHUNK)
			continue;
		c = &L->chunk[it->chunk];
		p = dst + (lk_chunk_lma(L, it->chunk) - L->load_lo);
		for (k = 0; k < c->reloc_count; k++)
			lk_reloc_apply(L, it->chunk, c->reloc_first + k,
				       p + L->rel[c->reloc_first + k].offset, &nerr);
	}
	if (nerr > LK_RELOC_ERR_CAP)
		LK_ERR(L, "%s: %u more relocation errors", L->name,
		       nerr - LK_RELOC_ERR_CAP);
	return nerr;
}

/* Holes between output sections in load memory read as zero; sections
 * themselves are written in full below, so the image is touched once. */
static void lk_zero_holes(const struct lk_link *L, lk_u8 *d)
{
	lk_u64 end = L->load_lo;
	lk_u32 i;

	for (i = 0; i < L->nemit; i++) { /* os_tmp: emitted, by LMA */
		const struct lk_os *o = &L->os[L->os_tmp[i]];

		lk_memset(d + (end - L->load_lo), 0, (lk_size)(o->lma - end));
		end = o->lma + o->size;
	}
	/* Kept empty sections may end the range past the last one. */
	lk_memset(d + (end - L->load_lo), 0, (lk_size)(L->load_hi - end));
}

int lk_link_write(struct lk_link *L, void *dst, struct lk_rng *rng)
{
	lk_u8 *d = dst;
	lk_u32 i = 0, s, q;

	if (!L->laid_out) {
		LK_ERR(L, "%s: write before a successful layout", L->name);
		return LK_ERR_LINK;
	}
	lk_zero_holes(L, d);
	for (q = 0; q < L->nseq; q++) {
		s = L->os_seq[q];
		if (L->os[s].size == 0) {
			while (i < L->nitem && L->item[i].outsec == s)
				i++;
			continue;
		}
		i = lk_write_outsec(L, s, i, d);
		if (L->outsec[s].oflags & LK_OUTSEC_RANDOM_FILL)
			lk_rng_bytes(rng, d + (L->os[s].lma - L->load_lo),
				     (lk_size)L->os[s].size);
	}
	lk_write_headers(L, d);
	return lk_apply_relocs(L, d) ? LK_ERR_LINK : LK_OK;
}
