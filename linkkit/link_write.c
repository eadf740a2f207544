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

/* The kallsyms object's .rodata (a `create --linux` kit): lk_linux_kallsyms
 * writes it whole, including the one word a relocation would patch, so
 * the copy and the relocations skip it and it can be written beside the
 * other processors' parts (lk_link_write_sections). */
static int lk_chunk_by_kallsyms(const struct lk_link *L, lk_u32 c)
{
	return L->kref && c == L->kchunk;
}

/* Applies the relocations of one chunk, already written at its LMA.
 * A discarded COMDAT copy is not patched: it has no place. */
static void lk_reloc_chunk(const struct lk_link *L, lk_u32 c, lk_u8 *dst,
			   lk_u32 *nerr)
{
	if (L->chunk[c].reloc_count && !L->chunk_dead[c] &&
	    !lk_chunk_by_kallsyms(L, c))
		lk_reloc_chunk_apply(
			L, c, dst + (lk_chunk_lma(L, c) - L->load_lo), nerr);
}

/* Relocates the chunk items in [from, to), in item order. */
static void lk_reloc_items(const struct lk_link *L, lk_u32 from, lk_u32 to,
			   lk_u8 *dst, lk_u32 *nerr)
{
	for (; from < to; from++)
		if (L->item[from].kind == LK_ITEM_CHUNK)
			lk_reloc_chunk(L, L->item[from].chunk, dst, nerr);
}

/*
 * A chunk whose bytes are a plain copy or merged strings, in a section
 * that is written and kept as written (not NOBITS, not random-filled,
 * not empty). These are written by lk_write_direct in chunk order, not
 * with their section, so they can be split among processors.
 */
static int lk_chunk_direct(const struct lk_link *L, lk_u32 c)
{
	const struct lk_chunk *ch = &L->chunk[c];
	lk_u32 s = L->slot[ch->slot].outsec;

	return !(ch->flags & (LK_CHUNK_GAP | LK_CHUNK_NOBITS)) &&
	       L->os[s].size != 0 && L->outsec[s].type != LK_SHT_NOBITS &&
	       !(L->outsec[s].oflags & LK_OUTSEC_RANDOM_FILL) &&
	       !lk_chunk_by_kallsyms(L, c);
}

/* A chunk of a table sorted after the link, for a split write that
 * writes those first (lk_link_write_sort). */
static int lk_chunk_sorted(const struct lk_link *L,
			   const struct lk_write_split *ws, lk_u32 c)
{
	lk_u32 s = L->slot[L->chunk[c].slot].outsec;

	return s == ws->sorted_os[0] || s == ws->sorted_os[1] ||
	       s == ws->sorted_os[2];
}

/*
 * The direct chunks [from, to) (with ws: only the sorted tables' if
 * tables is set, else only the others), in chunk (= payload) order, each relocated
 * right after its copy while it is in the cache (with nerr). Contents and
 * relocation records are then both read front to back; in placement
 * order every chunk started two short runs somewhere random in the
 * payload, and on the synthetic kernel fetching the relocation records
 * that way cost more than applying them. Merge chunks carry no
 * relocations (lk_link_open).
 */
static void lk_write_direct(const struct lk_link *L, lk_u8 *dst, lk_u32 from,
			    lk_u32 to, lk_u32 *nerr,
			    const struct lk_write_split *ws, int tables)
{
	lk_u32 c;
	lk_u8 *p;

	for (c = from; c < to; c++) {
		if (!lk_chunk_direct(L, c) ||
		    (ws && lk_chunk_sorted(L, ws, c) != tables))
			continue;
		p = dst + (lk_chunk_lma(L, c) - L->load_lo);
		if (L->chunk[c].flags & LK_CHUNK_MERGE) {
			lk_merge_write(L, c, p);
			continue;
		}
		lk_memcpy(p, L->data + L->chunk[c].data_off,
			  (lk_size)L->chunk_size[c]);
		if (nerr && L->chunk[c].reloc_count && !L->chunk_dead[c])
			lk_reloc_chunk_apply(L, c, p, nerr);
	}
}

/*
 * Items of one output section are contiguous: sections do not nest.
 * Direct chunks are left to lk_write_direct; the rest of the section
 * (padding, data items, gaps) is written here.
 */
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
		if (it->kind != LK_ITEM_CHUNK ||
		    (!lk_chunk_direct(L, it->chunk) &&
		     !lk_chunk_by_kallsyms(L, it->chunk)))
			lk_write_item(L, it, base + (it->vma - o->vma));
		cur = it->vma + lk_item_size(L, it);
	}
	if (os->type == LK_SHT_NOBITS)
		lk_memset(base, 0, (lk_size)o->size);
	else
		lk_fill(os, base + (cur - o->vma), o->vma + o->size - cur);
	return i;
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

/*
 * Everything but the direct chunks: holes, each section's padding, data
 * items, gaps, NOBITS and random-fill, and the relocations
 * of chunks whose section is overwritten afterwards (NOBITS zeroing,
 * random-fill) or skipped (empty), after their section, in item order, as
 * a separate pass would. Returns the index of the first item no section
 * claimed.
 */
static lk_u32 lk_write_sections(const struct lk_link *L, lk_u8 *d,
				struct lk_rng *rng, int relocs, lk_u32 *nerr)
{
	lk_u32 i = 0, i0, s, q;
	int later;

	lk_zero_holes(L, d);
	for (q = 0; q < L->nseq; q++) {
		s = L->os_seq[q];
		i0 = i;
		if (L->os[s].size == 0) {
			while (i < L->nitem && L->item[i].outsec == s)
				i++;
		} else {
			/* Their direct chunks come in lk_write_direct. */
			later = L->outsec[s].type != LK_SHT_NOBITS &&
				!(L->outsec[s].oflags & LK_OUTSEC_RANDOM_FILL);
			i = lk_write_outsec(L, s, i, d);
			if (L->outsec[s].oflags & LK_OUTSEC_RANDOM_FILL)
				lk_rng_bytes(rng,
					     d + (L->os[s].lma - L->load_lo),
					     (lk_size)L->os[s].size);
			if (later)
				continue;
		}
		if (relocs)
			lk_reloc_items(L, i0, i, d, nerr);
	}
	return i;
}

static int lk_write_result(const struct lk_link *L, lk_u32 nerr)
{
	if (nerr > LK_RELOC_ERR_CAP)
		LK_ERR(L, "%s: %u more relocation errors", L->name,
		       nerr - LK_RELOC_ERR_CAP);
	return nerr ? LK_ERR_LINK : LK_OK;
}

/* The headers after every chunk (where a script puts a chunk over them,
 * the headers win, in both writes alike), then the relocations of items
 * no section claimed; one line for errors past the cap. */
static int lk_write_finish(const struct lk_link *L, lk_u8 *d, lk_u32 tail,
			   int relocs, lk_u32 nerr,
			   const struct lk_write_split *ws)
{
	int rc;

	lk_write_headers(L, d);
	if (relocs)
		lk_reloc_items(L, tail, L->nitem, d, &nerr);
	rc = lk_write_result(L, nerr);
	/* The tables scripts/sorttable sorts, once every byte is final
	 * (or once theirs were: lk_link_write_sort), then its flag. */
	if (!rc && relocs && (L->hdr->flags & LK_PAYLOAD_F_LINUX_SORT))
		rc = !(ws && ws->sorted) ? lk_linux_sort(L, d)
		     : ws->sort_rc	 ? ws->sort_rc
					 : lk_linux_sort_flag(L, d, ws->sort_flag);
	/* kallsyms last: it reads the final symbol values only, but a
	 * failed sort has already failed the link. */
	if (!rc && relocs && (L->hdr->flags & LK_PAYLOAD_F_LINUX_KALLSYMS))
		/* Written already (lk_link_write_sections): only its line. */
		rc = ws && ws->kallsyms_done
			     ? lk_linux_kallsyms_say(L, &ws->kallsyms)
			     : lk_linux_kallsyms(L, d);
	return rc;
}

static int lk_write_ready(const struct lk_link *L)
{
	if (L->laid_out)
		return 1;
	LK_ERR(L, "%s: write before a successful layout", L->name);
	return 0;
}

/*
 * parts: LK_WRITE_CONTENTS (contents, fills, random-fill, headers) and/or
 * LK_WRITE_RELOCS. Both (lk_link_write) relocate each direct chunk as it
 * is copied. One part alone is for the bench's per-phase times.
 */
int lk_link_write_parts(struct lk_link *L, void *dst, struct lk_rng *rng,
			int parts)
{
	int relocs = (parts & LK_WRITE_RELOCS) != 0;
	lk_u8 *d = dst;
	lk_u32 tail, nerr = 0;

	if (!lk_write_ready(L))
		return LK_ERR_LINK;
	if (!(parts & LK_WRITE_CONTENTS)) {
		lk_reloc_items(L, 0, L->nitem, d, &nerr);
		return lk_write_result(L, nerr);
	}
	tail = lk_write_sections(L, d, rng, relocs, &nerr);
	lk_write_direct(L, d, 0, L->nchunk, relocs ? &nerr : 0, LK_NULL, 0);
	return lk_write_finish(L, d, tail, relocs, nerr, LK_NULL);
}

int lk_link_write(struct lk_link *L, void *dst, struct lk_rng *rng)
{
	return lk_link_write_parts(L, dst, rng,
				   LK_WRITE_CONTENTS | LK_WRITE_RELOCS);
}

/*
 * The split write. A relocation costs about as much as copying this many
 * bytes (bench, OpenBSD kit: 476,451 relocations in ~1.7 ms, 20 MB of
 * copies in ~2 ms), so parts weigh both, and merged strings.
 */
#define LK_RELOC_WEIGHT 40
/* Merged strings are copied piece by piece: 1.18 MB in ~0.35 ms. */
#define LK_MERGE_WEIGHT 3

static lk_u64 lk_direct_weight(const struct lk_link *L, lk_u32 c)
{
	if (!lk_chunk_direct(L, c))
		return 0;
	if (L->chunk[c].flags & LK_CHUNK_MERGE)
		return LK_MERGE_WEIGHT * L->chunk_size[c];
	return L->chunk_size[c] +
	       LK_RELOC_WEIGHT * (lk_u64)L->chunk[c].reloc_count;
}

/* Chunk c's weight in the parts of one kind (the sorted tables' or the
 * others'). */
static lk_u64 lk_part_weight(const struct lk_link *L,
			     const struct lk_write_split *ws, lk_u32 c,
			     int tables)
{
	return lk_chunk_sorted(L, ws, c) == tables ? lk_direct_weight(L, c)
						   : 0;
}

/* Parts [k0, k0 + n) share the chunks of one kind: part k0 + i starts at
 * the first chunk past i/n of their weight (sizes are payload bytes, so
 * the sums stay far from overflowing). */
static void lk_write_bounds(const struct lk_link *L, struct lk_write_split *ws,
			    int tables, lk_u32 k0, lk_u32 n, lk_u64 total)
{
	lk_u64 acc = 0;
	lk_u32 c, k = 1;

	ws->from[k0] = 0;
	for (c = 0; c < L->nchunk && k < n; c++) {
		for (; k < n && acc * n >= total * k; k++)
			ws->to[k0 + k - 1] = ws->from[k0 + k] = c;
		acc += lk_part_weight(L, ws, c, tables);
	}
	for (; k < n; k++)
		ws->to[k0 + k - 1] = ws->from[k0 + k] = L->nchunk;
	ws->to[k0 + n - 1] = L->nchunk;
}

/* How many parts the sorted tables get: their share of the weight, at
 * least one, and at least one part left for the rest. None when nothing
 * is sorted or there is one part; *wt and *wr: the two kinds' weights. */
static lk_u32 lk_write_first(const struct lk_link *L,
			     struct lk_write_split *ws, lk_u64 *wt, lk_u64 *wr)
{
	lk_u32 c, n = ws->nparts, k;

	*wt = *wr = 0;
	lk_memset(ws->sorted_os, 0xff, sizeof(ws->sorted_os)); /* LK_NONE */
	if (n >= 2 && (L->hdr->flags & LK_PAYLOAD_F_LINUX_SORT))
		lk_linux_sort_sections(L, ws->sorted_os);
	for (c = 0; c < L->nchunk; c++) {
		*wt += lk_part_weight(L, ws, c, 1);
		*wr += lk_part_weight(L, ws, c, 0);
	}
	if (!*wt) { /* nothing to write first: one kind of part */
		lk_memset(ws->sorted_os, 0xff, sizeof(ws->sorted_os));
		return 0;
	}
	/* k / n nearest wt / (wt + wr), without a division (the i386
	 * core has no 64-bit one). */
	for (k = 1; k + 1 < n && (2 * k + 1) * (*wt + *wr) <= 2 * n * *wt; k++)
		;
	return k;
}

int lk_link_write_begin(struct lk_link *L, lk_u32 nparts,
			struct lk_write_split *ws)
{
	lk_u64 wt, wr;

	if (!lk_write_ready(L))
		return LK_ERR_LINK;
	lk_memset(ws, 0, sizeof(*ws));
	ws->nparts = nparts < 1			   ? 1
		     : nparts > LK_WRITE_MAX_PARTS ? LK_WRITE_MAX_PARTS
						   : nparts;
	ws->nfirst = lk_write_first(L, ws, &wt, &wr);
	if (ws->nfirst)
		lk_write_bounds(L, ws, 1, 0, ws->nfirst, wt);
	lk_write_bounds(L, ws, 0, ws->nfirst, ws->nparts - ws->nfirst, wr);
	return LK_OK;
}

/* The boot processor's share while the others write parts: everything
 * but the direct chunks, then kallsyms (about a quarter of a defconfig
 * kernel's write on one processor, and it needs only symbol values). */
void lk_link_write_sections(const struct lk_link *L, void *dst,
			    struct lk_rng *rng, struct lk_write_split *ws)
{
	ws->tail = lk_write_sections(L, dst, rng, 1, &ws->nerr);
	if (L->hdr->flags & LK_PAYLOAD_F_LINUX_KALLSYMS) {
		lk_linux_kallsyms_run(L, dst, &ws->kallsyms);
		ws->kallsyms_done = 1;
	}
}

lk_u32 lk_link_write_part(const struct lk_link *L, void *dst,
			  const struct lk_write_split *ws, lk_u32 k)
{
	/* Errors are counted, not printed (any processor may run a part):
	 * the reloc code prints only below the cap, so count from there. */
	lk_u32 nerr = LK_RELOC_ERR_CAP;

	if (k < ws->nparts)
		lk_write_direct(L, dst, ws->from[k], ws->to[k], &nerr, ws,
				k < ws->nfirst);
	return nerr - LK_RELOC_ERR_CAP;
}

void lk_link_write_sort(const struct lk_link *L, void *dst,
			struct lk_write_split *ws)
{
	if (!ws->nfirst || ws->sorted)
		return;
	ws->sort_rc = lk_linux_sort_tables(L, dst, &ws->sort_flag);
	ws->sorted = 1;
}

int lk_link_write_end(struct lk_link *L, void *dst,
		      const struct lk_write_split *ws, lk_u32 part_errors)
{
	lk_u32 nerr = ws->nerr;

	/* The parts were quiet: their chunks again, this time saying what
	 * is wrong (the bytes come out the same). */
	if (part_errors)
		lk_write_direct(L, dst, 0, L->nchunk, &nerr, LK_NULL, 0);
	return lk_write_finish(L, dst, ws->tail, 1, nerr, ws);
}
