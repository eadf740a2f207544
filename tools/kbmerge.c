/*
 * SHF_MERGE sections: deduplication (and, for strings, tail merging) as
 * ld.bfd (binutils merge.c) does it. Which pieces survive, and which string
 * each suffix lives in, does not depend on the object order, so it is
 * decided here; the boot side only places the surviving pieces ("classes")
 * in first-occurrence order, aligned to their section's alignment. Byte
 * strings (any alignment) and fixed-size entries are merged; anything else
 * (wide strings, strings not starting at aligned offsets) stays a plain
 * chunk (see docs/kit-format.md).
 *
 * Under `linker lld` the pieces are ld.lld 14's instead (lld_build_group):
 * no tail merging, every string or entry a piece of its own, grouped as
 * lld's OutputSection::finalizeInputSections groups sections, and each
 * class tagged with the shard lld's MergeNoTailSection puts it in.
 */
#include <stdlib.h>
#include <string.h>

#include "kbint.h"
#include "xxhash64.h"

struct ment {
	const char *s;
	uint32_t len;    /* bytes compared: strings without their NUL */
	uint32_t suffix; /* entry this one is a tail of, or NONE */
	uint32_t cls, coff;
};

struct mset {
	struct ment *e;
	size_t n;
	uint32_t *h;
	size_t hsize;
	int strings;    /* SHF_STRINGS: a class holds len + 1 bytes */
	uint64_t align; /* the sections' alignment (part of the group key) */
	int lld;        /* ld.lld's pieces: len is the whole piece */
};

static uint32_t mhash(const char *s, uint32_t len)
{
	uint32_t h = 2166136261u;

	for (uint32_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

static void mset_grow(struct mset *m)
{
	size_t ns = m->hsize ? m->hsize * 2 : 256;
	uint32_t *nt = kb_xcalloc(ns, sizeof(*nt));

	for (size_t i = 0; i < m->n; i++) {
		uint32_t h = mhash(m->e[i].s, m->e[i].len) & (ns - 1);

		while (nt[h])
			h = (h + 1) & (ns - 1);
		nt[h] = (uint32_t)i + 1;
	}
	free(m->h);
	m->h = nt;
	m->hsize = ns;
}

static uint32_t mset_add(struct mset *m, const char *s, uint32_t len)
{
	uint32_t h, i;

	if (m->n * 2 >= m->hsize)
		mset_grow(m);
	h = mhash(s, len) & (m->hsize - 1);
	for (; (i = m->h[h]); h = (h + 1) & (m->hsize - 1))
		if (m->e[i - 1].len == len && !memcmp(m->e[i - 1].s, s, len))
			return i - 1;
	m->e = kb_xgrow(m->e, m->n, sizeof(*m->e));
	m->e[m->n] = (struct ment){ s, len, NONE, NONE, 0 };
	m->h[h] = (uint32_t)m->n + 1;
	return (uint32_t)m->n++;
}

/*
 * binutils' order: compare from the last byte backwards, shorter first.
 * When every string of the group has one alignment above 1 (here: always,
 * for aligned string sections), binutils' merge_strings sorts with
 * strrevcmp_align instead, which first orders by the length (without the
 * NUL) modulo the alignment, so that a string meets the longer ones it
 * could be an aligned tail of: `"%s": ...` (49 bytes) in .rodata.str1.8
 * is a tail of `requested mode: "%s": ...`, 16 bytes further, and not of
 * the `[drm] ... supported: "%s": ...` plain order put next to it.
 */
struct revctx {
	const struct ment *e;
	uint32_t amask; /* alignment - 1; 0: plain strrevcmp */
};

static int revcmp(const void *pa, const void *pb, void *ctx)
{
	const struct revctx *c = ctx;
	const struct ment *a = &c->e[*(const uint32_t *)pa], *b = &c->e[*(const uint32_t *)pb];
	uint32_t l = a->len < b->len ? a->len : b->len;
	const uint8_t *s = (const uint8_t *)a->s + a->len, *t = (const uint8_t *)b->s + b->len;

	if ((a->len & c->amask) != (b->len & c->amask))
		return (int)(a->len & c->amask) - (int)(b->len & c->amask);

	while (l--) {
		s--;
		t--;
		if (*s != *t)
			return (int)*s - (int)*t;
	}
	return (int)a->len - (int)b->len;
}

static int is_tail(const struct ment *a, const struct ment *b)
{
	return a->len > b->len && !memcmp(a->s + (a->len - b->len), b->s, b->len);
}

/* A string that ends another one lives inside it when its start there
 * keeps the section's alignment. */
static void tail_merge(struct mset *m)
{
	uint32_t *ord = kb_xcalloc(m->n, sizeof(*ord));
	uint32_t keep;
	struct revctx c = { m->e, m->align > 1 ? (uint32_t)(m->align - 1) : 0 };

	if (!m->strings || m->n == 0) {
		free(ord);
		return;
	}
	for (size_t i = 0; i < m->n; i++)
		ord[i] = (uint32_t)i;
	qsort_r(ord, m->n, sizeof(*ord), revcmp, &c);
	keep = ord[m->n - 1];
	for (size_t i = m->n - 1; i-- > 0;) {
		const struct ment *a = &m->e[keep], *t = &m->e[ord[i]];

		if (is_tail(a, t) && (a->len - t->len) % m->align == 0)
			m->e[ord[i]].suffix = keep;
		else
			keep = ord[i];
	}
	free(ord);
}

const struct kb_piece *kb_piece_at(const struct kb_sec *s, uint64_t off)
{
	uint32_t lo = 0, hi = s->npieces;

	if (!s->npieces || off > (uint64_t)s->pieces[hi - 1].off + s->pieces[hi - 1].len)
		return NULL;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->pieces[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	return off < s->pieces[lo].off ? NULL : &s->pieces[lo];
}

/* Byte strings whose strings all start at aligned offsets (as compilers
 * emit them), NUL padding in between; binutils gives each the alignment of
 * its offset, which then is the section's. */
static int strings_aligned(const struct kb_sec *s)
{
	const uint8_t *d = s->data;
	uint64_t a = s->sh.sh_addralign ? s->sh.sh_addralign : 1, p = 0;

	if (d[s->sh.sh_size - 1] != 0)
		return 0;
	while (p < s->sh.sh_size) {
		if (p % a)
			return 0;
		p += strlen((const char *)d + p) + 1;
		if (a > 1)
			while (p < s->sh.sh_size && d[p] == 0 && p % a)
				p++;
	}
	return 1;
}

static int mergeable(const struct kb_sec *s)
{
	uint64_t e = s->sh.sh_entsize;

	if (!(s->sh.sh_flags & SHF_MERGE) || s->sh.sh_type != SHT_PROGBITS ||
	    !s->sh.sh_size || !s->data || s->sh.sh_size >= UINT32_MAX || e == 0)
		return 0;
	if (s->sh.sh_flags & SHF_STRINGS)
		return e == 1 && strings_aligned(s);
	return s->sh.sh_size % e == 0 && e < UINT32_MAX;
}

static struct kb_sec *chunk_sec(struct kb *b, size_t c)
{
	const struct kb_inref *r = &b->inref[b->chunk_input[c]];

	if (r->sec == NONE || r->obj >= b->nobjs)
		return NULL;
	return &b->objs[r->obj].secs[r->sec];
}

static void add_piece(struct kb_sec *s, struct mset *m, uint32_t off, uint32_t len,
		      uint32_t size)
{
	struct kb_piece *p;

	s->pieces = kb_xgrow(s->pieces, s->npieces, sizeof(*s->pieces));
	p = &s->pieces[s->npieces++];
	p->off = off;
	p->len = size;
	p->cls = mset_add(m, (const char *)s->data + off, len); /* entry for now */
}

/* The pieces binutils' record_section makes: each string, plus one empty
 * string for the first NUL run at an aligned offset; or fixed entries. */
static void split_pieces(struct kb_sec *s, struct mset *m)
{
	const char *d = s->data;
	uint32_t size = (uint32_t)s->sh.sh_size, e = (uint32_t)s->sh.sh_entsize;
	uint64_t a = m->align;
	uint32_t off = 0;
	int nul = 0;

	if (!m->strings) {
		for (off = 0; off < size; off += e)
			add_piece(s, m, off, e, e);
		return;
	}
	while (off < size) {
		uint32_t len = (uint32_t)strlen(d + off);

		add_piece(s, m, off, len, len + 1);
		off += len + 1;
		if (a == 1)
			continue;
		for (; off < size && d[off] == 0; off++)
			if (!nul && off % a == 0) {
				nul = 1;
				add_piece(s, m, off, 0, 1);
			}
	}
}

static void emit_classes(struct kb *b, struct mset *m, struct lk_merge_group *g)
{
	g->first_class = (uint32_t)b->nmclasses;
	for (size_t i = 0; i < m->n; i++) {
		struct lk_merge_class c = { 0 };

		if (m->e[i].suffix != NONE)
			continue;
		c.size = m->e[i].len + (m->strings && !m->lld ? 1 : 0);
		c.data_off = (uint32_t)kb_buf_add(&b->mdata, m->e[i].s, c.size);
		m->e[i].cls = (uint32_t)b->nmclasses;
		b->mclasses = kb_xgrow(b->mclasses, b->nmclasses, sizeof(*b->mclasses));
		b->mclasses[b->nmclasses++] = c;
		g->total_size += c.size;
	}
	g->class_count = (uint32_t)b->nmclasses - g->first_class;
	for (size_t i = 0; i < m->n; i++) {
		struct ment *e = &m->e[i];

		if (e->suffix != NONE) {
			e->cls = m->e[e->suffix].cls;
			e->coff = m->e[e->suffix].len - e->len;
		}
	}
}

/* Pieces get their final class; the chunk lists the classes it brings. */
static void chunk_refs(struct kb *b, size_t c, struct kb_sec *s, struct mset *m)
{
	struct lk_chunk *ch = &b->chunks[c];

	ch->mref_first = (uint32_t)b->nmrefs;
	for (uint32_t i = 0; i < s->npieces; i++) {
		const struct ment *e = &m->e[s->pieces[i].cls];

		s->pieces[i].cls = e->cls;
		s->pieces[i].coff = e->coff;
		if (e->suffix != NONE)
			continue; /* lives where its container first occurs */
		b->mrefs = kb_xgrow(b->mrefs, b->nmrefs, sizeof(*b->mrefs));
		b->mrefs[b->nmrefs++] = e->cls;
	}
	ch->mref_count = (uint32_t)b->nmrefs - ch->mref_first;
}

static int same_group(struct kb *b, size_t c0, size_t c)
{
	const struct kb_sec *a = chunk_sec(b, c0), *s = chunk_sec(b, c);

	return b->comp.slots[b->chunks[c0].slot].outsec == b->comp.slots[b->chunks[c].slot].outsec &&
	       a->sh.sh_flags == s->sh.sh_flags && a->sh.sh_entsize == s->sh.sh_entsize &&
	       a->sh.sh_addralign == s->sh.sh_addralign;
}

static void build_group(struct kb *b, size_t c0, uint8_t *done)
{
	struct mset m = { 0 };
	struct lk_merge_group g = { 0 };
	uint32_t gi = (uint32_t)b->nmgroups;
	const struct kb_sec *s0 = chunk_sec(b, c0);

	m.strings = (s0->sh.sh_flags & SHF_STRINGS) != 0;
	m.align = s0->sh.sh_addralign ? s0->sh.sh_addralign : 1;

	for (size_t c = c0; c < b->nchunks; c++) {
		struct kb_sec *s = chunk_sec(b, c);

		if (done[c] || !s || !mergeable(s) || !same_group(b, c0, c))
			continue;
		split_pieces(s, &m);
	}
	tail_merge(&m);
	emit_classes(b, &m, &g);
	for (size_t c = c0; c < b->nchunks; c++) {
		struct kb_sec *s = chunk_sec(b, c);

		if (done[c] || !s || !mergeable(s) || !same_group(b, c0, c))
			continue;
		done[c] = 1;
		b->chunks[c].flags |= LK_CHUNK_MERGE;
		b->chunks[c].mgroup = gi;
		chunk_refs(b, c, s, &m);
	}
	b->mgroups = kb_xgrow(b->mgroups, b->nmgroups, sizeof(*b->mgroups));
	b->mgroups[b->nmgroups++] = g;
	free(m.e);
	free(m.h);
}

/* ---- ld.lld 14 (policy `linker lld`) ---- */

/* What lld's ObjFile::shouldMerge merges, less what it refuses (a size
 * not a multiple of the entry size, a last string without its
 * terminator: those sections stay plain chunks here, lld fails). */
static int lld_mergeable(const struct kb_sec *s)
{
	const uint8_t *d = s->data;
	uint64_t e = s->sh.sh_entsize, n = s->sh.sh_size;

	if (!(s->sh.sh_flags & SHF_MERGE) || s->sh.sh_type != SHT_PROGBITS ||
	    !n || !d || n >= UINT32_MAX || e == 0 || n % e)
		return 0;
	if (!(s->sh.sh_flags & SHF_STRINGS))
		return 1;
	for (uint64_t i = n - e; i < n; i++)
		if (d[i])
			return 0;
	return 1;
}

/* lld keys its merge sections on the flags it keeps (it drops SHF_GROUP
 * and SHF_INFO_LINK from input sections), the entry size and, for
 * strings only, the alignment; non-string sections of different
 * alignments share one section aligned to the largest. */
static int lld_same_group(struct kb *b, size_t c0, size_t c)
{
	const struct kb_sec *a = chunk_sec(b, c0), *s = chunk_sec(b, c);
	const uint64_t drop = SHF_GROUP | SHF_INFO_LINK;

	return b->comp.slots[b->chunks[c0].slot].outsec ==
		       b->comp.slots[b->chunks[c].slot].outsec &&
	       (a->sh.sh_flags & ~drop) == (s->sh.sh_flags & ~drop) &&
	       a->sh.sh_entsize == s->sh.sh_entsize &&
	       (!(a->sh.sh_flags & SHF_STRINGS) ||
		a->sh.sh_addralign == s->sh.sh_addralign);
}

static int zero_entry(const uint8_t *p, uint32_t e)
{
	for (uint32_t i = 0; i < e; i++)
		if (p[i])
			return 0;
	return 1;
}

/* lld's splitStrings / splitNonStrings: a string runs to the first
 * entry-aligned all-zero entry, terminator included (padding NULs are
 * strings of their own); fixed entries are one piece each. */
static void lld_split(struct kb_sec *s, struct mset *m)
{
	const uint8_t *d = s->data;
	uint32_t size = (uint32_t)s->sh.sh_size, e = (uint32_t)s->sh.sh_entsize;
	uint32_t off = 0, end;

	while (off < size) {
		if (!m->strings)
			end = off;
		else if (e == 1)
			end = off + (uint32_t)strlen((const char *)d + off);
		else
			for (end = off; !zero_entry(d + end, e); end += e)
				;
		add_piece(s, m, off, end + e - off, end + e - off);
		off = end + e;
	}
}

/* The shard lld 14 gives a piece: SectionPiece keeps the low 32 bits of
 * its xxHash64 shifted right by one (31 bits), and getShardId takes
 * their top 5 bits for 32 shards: bits 27..31 of the hash. */
static uint32_t lld_shard(const struct ment *e)
{
	return (uint32_t)kb_xxhash64(e->s, e->len) >> 27;
}

/* Classes in canonical first-occurrence order, as for ld.bfd: a chunk's
 * mrefs then mostly count up by one and its strings sit together, which
 * compresses far better than shard order (the shard column costs ~5 bits
 * a class). */
static void lld_emit_classes(struct kb *b, struct mset *m, struct lk_merge_group *g)
{
	g->first_class = (uint32_t)b->nmclasses;
	for (size_t i = 0; i < m->n; i++) {
		struct lk_merge_class c = { 0 };

		c.size = m->e[i].len;
		c.shard = lld_shard(&m->e[i]);
		c.data_off = (uint32_t)kb_buf_add(&b->mdata, m->e[i].s, c.size);
		m->e[i].cls = (uint32_t)b->nmclasses;
		b->mclasses = kb_xgrow(b->mclasses, b->nmclasses, sizeof(*b->mclasses));
		b->mclasses[b->nmclasses++] = c;
		g->total_size += c.size;
	}
	g->class_count = (uint32_t)b->nmclasses - g->first_class;
}

/* A chunk lists each of its classes once: a repeat can never be the
 * first occurrence, so the boot side need not see it. */
static void lld_chunk_refs(struct kb *b, size_t c, struct kb_sec *s, struct mset *m,
			   uint32_t *seen)
{
	struct lk_chunk *ch = &b->chunks[c];

	ch->mref_first = (uint32_t)b->nmrefs;
	for (uint32_t i = 0; i < s->npieces; i++) {
		uint32_t e = s->pieces[i].cls;

		s->pieces[i].cls = m->e[e].cls;
		s->pieces[i].coff = 0;
		if (seen[e] == c + 1)
			continue;
		seen[e] = (uint32_t)c + 1;
		b->mrefs = kb_xgrow(b->mrefs, b->nmrefs, sizeof(*b->mrefs));
		b->mrefs[b->nmrefs++] = m->e[e].cls;
	}
	ch->mref_count = (uint32_t)b->nmrefs - ch->mref_first;
}

static void lld_build_group(struct kb *b, size_t c0, uint8_t *done)
{
	struct mset m = { 0 };
	struct lk_merge_group g = { 0 };
	uint32_t gi = (uint32_t)b->nmgroups, *seen;
	const struct kb_sec *s0 = chunk_sec(b, c0);

	m.strings = (s0->sh.sh_flags & SHF_STRINGS) != 0;
	m.align = 1; /* unused: lld does not tail-merge at -O1 */
	m.lld = 1;
	for (size_t c = c0; c < b->nchunks; c++) {
		struct kb_sec *s = chunk_sec(b, c);

		if (!done[c] && s && lld_mergeable(s) && lld_same_group(b, c0, c))
			lld_split(s, &m);
	}
	lld_emit_classes(b, &m, &g);
	seen = kb_xcalloc(m.n ? m.n : 1, sizeof(*seen));
	for (size_t c = c0; c < b->nchunks; c++) {
		struct kb_sec *s = chunk_sec(b, c);

		if (done[c] || !s || !lld_mergeable(s) || !lld_same_group(b, c0, c))
			continue;
		done[c] = 1;
		b->chunks[c].flags |= LK_CHUNK_MERGE;
		b->chunks[c].mgroup = gi;
		lld_chunk_refs(b, c, s, &m, seen);
	}
	b->mgroups = kb_xgrow(b->mgroups, b->nmgroups, sizeof(*b->mgroups));
	b->mgroups[b->nmgroups++] = g;
	free(seen);
	free(m.e);
	free(m.h);
}

void kb_merge_build(struct kb *b)
{
	uint8_t *done = kb_xcalloc(b->nchunks, 1);

	for (size_t c = 0; c < b->nchunks; c++) {
		struct kb_sec *s = chunk_sec(b, c);

		if (done[c] || !s)
			continue;
		if (b->pol.lld && lld_mergeable(s))
			lld_build_group(b, c, done);
		else if (!b->pol.lld && mergeable(s))
			build_group(b, c, done);
	}
	free(done);
}

void kb_merge_free(struct kb *b)
{
	free(b->mgroups);
	free(b->mclasses);
	free(b->mrefs);
	free(b->mdata.p);
	free(b->chunks);
	free(b->chunk_input);
	free(b->input_chunk);
}
