/*
 * Chunk ordering, final symbol kinds, and serialization of the payload in
 * the exact layout of linkkit/kit_format.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linkkit/linkkit.h"
#include "kbint.h"

static uint32_t chunk_flags(const struct kb *b, size_t in)
{
	const struct ls_input *i = &b->inputs[in];
	uint32_t f = 0;

	if (i->sh_type == SHT_NOBITS)
		f |= LK_CHUNK_NOBITS;
	if (i->sh_flags & SHF_EXECINSTR)
		f |= LK_CHUNK_EXEC;
	if (i->sh_flags & SHF_WRITE)
		f |= LK_CHUNK_WRITE;
	if (b->inref[in].gap != NONE)
		f |= LK_CHUNK_GAP;
	return f;
}

static int name_cmp(const void *a, const void *b, void *ctx)
{
	const struct kb *k = ctx;

	return strcmp(k->inputs[k->chunk_input[*(const uint32_t *)a]].section,
		      k->inputs[k->chunk_input[*(const uint32_t *)b]].section);
}

/* SORT_BY_NAME rank: equal names share a rank. */
static void sort_keys(struct kb *b)
{
	uint32_t *ord = kb_xcalloc(b->nchunks, sizeof(*ord));
	uint32_t rank = 0;

	for (size_t i = 0; i < b->nchunks; i++)
		ord[i] = (uint32_t)i;
	qsort_r(ord, b->nchunks, sizeof(*ord), name_cmp, b);
	for (size_t i = 0; i < b->nchunks; i++) {
		if (i && name_cmp(&ord[i - 1], &ord[i], b))
			rank++;
		b->chunks[ord[i]].sort_key = rank;
	}
	free(ord);
}

static void make_chunk(struct kb *b, size_t in, uint32_t slot)
{
	const struct kb_inref *r = &b->inref[in];
	struct lk_chunk *c = &b->chunks[b->nchunks];

	memset(c, 0, sizeof(*c));
	c->object = r->obj;
	c->name = kb_intern(b, b->inputs[in].section);
	c->slot = slot;
	c->flags = chunk_flags(b, in);
	c->size = b->inputs[in].size;
	c->align = b->inputs[in].align;
	if (r->gap != NONE && b->pol.gaps[r->gap].fill >= 0)
		c->data_off = (uint64_t)b->pol.gaps[r->gap].fill;
	b->chunk_input[b->nchunks] = (uint32_t)in;
	b->input_chunk[in] = (uint32_t)b->nchunks;
	if (r->sec != NONE) {
		b->objs[r->obj].secs[r->sec].chunk = (uint32_t)b->nchunks;
		c->comdat = b->objs[r->obj].secs[r->sec].comdat;
	}
	b->nchunks++;
}

/* Chunks of a slot are contiguous and in canonical (input) order. */
void kb_order_chunks(struct kb *b)
{
	const uint32_t *is = b->comp.input_slot;

	b->chunks = kb_xcalloc(b->ninputs, sizeof(*b->chunks));
	b->chunk_input = kb_xcalloc(b->ninputs, sizeof(*b->chunk_input));
	b->input_chunk = kb_xcalloc(b->ninputs, sizeof(*b->input_chunk));
	for (size_t i = 0; i < b->ninputs; i++)
		b->input_chunk[i] = NONE;
	for (uint32_t s = 0; s < b->comp.nslots; s++) {
		b->comp.slots[s].first_chunk = (uint32_t)b->nchunks;
		for (size_t i = 0; i < b->ninputs; i++)
			if (is[i] == s)
				make_chunk(b, i, s);
		b->comp.slots[s].chunk_count = (uint32_t)b->nchunks - b->comp.slots[s].first_chunk;
	}
	sort_keys(b);
}

static void merge_symbol(struct kb *b, struct kb_sym *s, const struct kb_sec *sec)
{
	const struct kb_piece *p = kb_piece_at(sec, s->value);

	if (p && s->value <= (uint64_t)p->off + p->len) {
		s->kind = LK_SYM_MERGE;
		s->ref = p->cls;
		s->value = p->coff + (s->value - p->off);
		return;
	}
	kb_err(b, "%s: symbol '%s' lies outside the pieces of merge section %s",
	       b->objs[s->obj].name, s->name, sec->name);
}

static void obj_symbol(struct kb *b, struct kb_sym *s)
{
	const struct kb_sec *sec;

	if (s->gotent) {
		s->kind = LK_SYM_CHUNK;
		s->ref = b->input_chunk[b->got_input];
		return;
	}
	if (s->kind == LK_SYM_MERGE || s->obj == NONE)
		return;
	if (s->sec == SHN_ABS) {
		s->kind = LK_SYM_ABS;
		return;
	}
	sec = &b->objs[s->obj].secs[s->sec];
	if (s->sec == SHN_UNDEF || s->sec >= b->objs[s->obj].nsec || sec->chunk == NONE) {
		s->kind = LK_SYM_ABS; /* discarded; references were reported */
		s->value = 0;
		s->emit = 0;
		return;
	}
	if (sec->pieces) {
		/* Relocations through the section symbol were rewritten to
		 * per-piece symbols; the core rejects chunk offsets here. */
		if (s->type == STT_SECTION)
			s->value = 0;
		merge_symbol(b, s, sec);
		return;
	}
	s->kind = LK_SYM_CHUNK;
	s->ref = sec->chunk;
}

static uint32_t outsec_named(struct kb *b, const char *name)
{
	for (uint32_t i = 0; i < b->comp.noutsecs; i++)
		if (!strcmp((const char *)b->strtab.p + b->comp.outsecs[i].name, name))
			return i;
	return NONE;
}

static void undef_symbol(struct kb *b, struct kb_sym *s)
{
	int start = !strncmp(s->name, "__start_", 8), stop = !strncmp(s->name, "__stop_", 7);
	uint32_t o = NONE;

	if (start || stop)
		o = outsec_named(b, s->name + (start ? 8 : 7));
	if (o != NONE) {
		s->kind = start ? LK_SYM_OUTSEC_START : LK_SYM_OUTSEC_END;
		s->ref = o;
		s->def = DEF_PLAN;
		s->emit = 1;
		return;
	}
	if (s->script_ref)
		kb_err(b, "linker script: undefined symbol '%s'", s->name);
	s->kind = LK_SYM_ABS;
	s->value = 0;
	s->emit = 0;
}

void kb_finish_symbols(struct kb *b)
{
	for (size_t i = 0; i < b->nsyms; i++) {
		struct kb_sym *s = &b->syms[i];

		if (s->alt) { /* candidates: [alt_first, +alt_count) */
			s->kind = LK_SYM_ALT;
			s->ref = s->alt_first;
			s->value = s->alt_count;
			continue;
		}
		switch (s->def) {
		case DEF_OBJ:
			obj_symbol(b, s);
			break;
		case DEF_COMMON:
			s->kind = LK_SYM_CHUNK;
			s->ref = b->input_chunk[s->input];
			if (s->ref == NONE) {
				s->kind = LK_SYM_ABS;
				s->emit = 0;
			}
			break;
		case DEF_PLAN:
			s->kind = LK_SYM_PLAN;
			break;
		default:
			undef_symbol(b, s);
		}
	}
}

/* ---- serialization ---- */

struct out {
	struct kb_buf buf;
	struct lk_payload_header h;
};

static void put_table(struct out *o, struct lk_table *t, const void *p, size_t n, size_t sz)
{
	t->off = (uint32_t)kb_buf_align(&o->buf, 8);
	t->count = (uint32_t)n;
	kb_buf_add(&o->buf, p, n * sz);
}

static void put_objects(struct kb *b, struct out *o)
{
	size_t n = b->nobjs + b->nsynth;
	struct lk_object *v = kb_xcalloc(n, sizeof(*v));

	for (size_t i = 0; i < b->nobjs; i++) {
		v[i].name = kb_intern(b, b->objs[i].name);
		for (size_t p = 0; p < b->pol.npins; p++)
			if (!strcmp(b->pol.pins[p], b->objs[i].name))
				v[i].pin_rank = (uint32_t)p + 1;
	}
	if (b->gap_obj != NONE) {
		v[b->gap_obj].name = kb_intern(b, "gap");
		v[b->gap_obj].flags = LK_OBJ_GAP | LK_OBJ_SYNTHETIC;
	}
	if (b->got_obj != NONE) {
		v[b->got_obj].name = kb_intern(b, "<got>");
		v[b->got_obj].flags = LK_OBJ_SYNTHETIC;
	}
	put_table(o, &o->h.objects, v, n, sizeof(*v));
	free(v);
}

static void check_pins(struct kb *b)
{
	for (size_t p = 0; p < b->pol.npins; p++) {
		size_t i;

		for (i = 0; i < b->nobjs; i++)
			if (!strcmp(b->pol.pins[p], b->objs[i].name))
				break;
		if (i == b->nobjs)
			kb_err(b, "policy: pinned object '%s' is not among the inputs",
			       b->pol.pins[p]);
	}
}

/* Section contents, then merge classes, into one data blob. */
static void build_data(struct kb *b, struct kb_buf *data)
{
	for (size_t c = 0; c < b->nchunks; c++) {
		struct lk_chunk *ch = &b->chunks[c];
		const struct kb_inref *r = &b->inref[b->chunk_input[c]];
		const struct kb_sec *s;

		if (r->sec == NONE || (ch->flags & (LK_CHUNK_NOBITS | LK_CHUNK_MERGE)))
			continue;
		s = &b->objs[r->obj].secs[r->sec];
		ch->data_off = kb_buf_align(data, 16);
		kb_buf_add(data, s->data, s->sh.sh_size);
	}
	if (b->got_input != NONE && b->input_chunk[b->got_input] != NONE) {
		struct lk_chunk *ch = &b->chunks[b->input_chunk[b->got_input]];

		ch->data_off = kb_buf_align(data, 16);
		kb_buf_add(data, NULL, ch->size);
	}
	if (b->bid_input != NONE && b->input_chunk[b->bid_input] != NONE) {
		struct lk_chunk *ch = &b->chunks[b->input_chunk[b->bid_input]];
		static const uint8_t note[16] = { 4, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0 };

		ch->data_off = kb_buf_align(data, 16);
		kb_buf_add(data, note, sizeof(note));
		kb_buf_add(data, NULL, KB_BUILD_ID_SIZE - sizeof(note)); /* the id: below */
	}
	if (b->mdata.len) {
		size_t base = kb_buf_align(data, 16);

		kb_buf_add(data, b->mdata.p, b->mdata.len);
		for (size_t i = 0; i < b->nmclasses; i++)
			b->mclasses[i].data_off += (uint32_t)base;
	}
}

/*
 * Which symbols go into the kit, and their kit indices: those the output
 * symbol table lists, and those something in the kit refers to by index
 * (a relocation, a GOT entry, the plan, the entry, an LK_SYM_ALT's
 * candidates). The rest (Linux defconfig: 23,629 of 240,051, mostly
 * locals of discarded sections such as __UNIQUE_ID___addressable_*) is
 * never read at boot. Unnamed pieces of merged strings that name the same
 * place (class and offset) become one symbol: each object's references
 * to a string it shares with others made one each (OpenBSD GENERIC:
 * 97,734 -> 49,176). map[i]: the kit index of symbol i, or NONE; own[i]:
 * symbol i is the one written there.
 */
struct symmap {
	uint32_t *map;
	uint8_t *own;
	size_t n;
};

static int piece_symbol(const struct kb_sym *s)
{
	return s->kind == LK_SYM_MERGE && !(s->emit && *s->name) && !s->alt;
}

/* Piece symbols i naming the same class and offset as an earlier one get
 * that one's index (an open-addressing table of first occurrences). */
static uint32_t piece_first(const struct kb *b, uint32_t *tab, size_t cap, uint32_t i)
{
	const struct kb_sym *s = &b->syms[i];
	uint64_t h = (s->ref * 0x9e3779b97f4a7c15ull) ^ (s->value * 0xc2b2ae3d27d4eb4full);

	for (size_t k = (size_t)(h >> 17) & (cap - 1);; k = (k + 1) & (cap - 1)) {
		if (tab[k] == NONE) {
			tab[k] = i;
			return i;
		}
		if (b->syms[tab[k]].ref == s->ref && b->syms[tab[k]].value == s->value)
			return tab[k];
	}
}

static struct symmap symbol_map(const struct kb *b, uint32_t entry)
{
	size_t n = b->nsyms ? b->nsyms : 1, cap = 16;
	struct symmap m = { kb_xcalloc(n, sizeof(*m.map)), kb_xcalloc(n, 1), 0 };
	uint8_t *keep = kb_xcalloc(n, 1), *alt = kb_xcalloc(n, 1);
	uint32_t *tab;

	while (cap < 2 * n)
		cap *= 2;
	tab = kb_xcalloc(cap, sizeof(*tab));
	memset(tab, 0xff, cap * sizeof(*tab));
	for (size_t i = 0; i < b->nsyms; i++) {
		const struct kb_sym *s = &b->syms[i];

		keep[i] |= (s->emit && *s->name) || s->kind == LK_SYM_PLAN || s->alt;
		for (uint32_t k = 0; s->alt && k < s->alt_count; k++)
			keep[s->alt_first + k] = alt[s->alt_first + k] = 1;
	}
	for (size_t i = 0; i < b->nrelocs; i++)
		keep[b->relocs[i].sym] = 1;
	for (size_t g = 0; g < b->ngot; g++)
		keep[b->got_syms[g]] = 1;
	for (size_t i = 0; i < b->comp.nops; i++)
		if (b->comp.ops[i].code == LK_E_SYM || b->comp.ops[i].code == LK_S_ASSIGN)
			keep[b->comp.ops[i].arg] = 1;
	keep[entry] = 1;
	for (size_t i = 0; i < b->nsyms; i++) {
		uint32_t f = (uint32_t)i;

		if (keep[i] && !alt[i] && i != entry && piece_symbol(&b->syms[i]))
			f = piece_first(b, tab, cap, (uint32_t)i);
		m.map[i] = !keep[i] ? NONE : f != i ? m.map[f] : (uint32_t)m.n++;
		m.own[i] = keep[i] && f == i;
	}
	free(tab);
	free(alt);
	free(keep);
	return m;
}

/* The relocs table's columns and the addends table (kit_format.h). */
struct relocs_out {
	const uint32_t *map; /* symbol_map */
	uint32_t *delta, *info;
	struct lk_reloc_addend *wide;
	size_t n, nwide;
};

/* Whether a field of w bytes holds `add` sign-extended. */
static int addend_fits(int64_t add, int w)
{
	return w == 8 || (add >= -(INT64_C(1) << (8 * w - 1)) &&
			  add < (INT64_C(1) << (8 * w - 1)));
}

/* One relocation of chunk c at offset off. Its addend goes into its
 * field in the chunk's data when the field holds it and no other field
 * of the chunk overlaps it (cover: relocations per byte, capped at 2);
 * else into the addends table. What does not fit a record is an error
 * naming the relocation's place, not a silently truncated field. */
static void add_reloc(struct kb *b, struct relocs_out *v, struct kb_buf *data,
		      size_t c, const uint8_t *cover, const char *where,
		      uint64_t off, uint32_t type, uint32_t sym, int64_t add,
		      uint64_t *prev)
{
	const struct lk_chunk *ch = &b->chunks[c];
	int w = (int)kb_reloc_width(type), inplace = cover != NULL && w > 0 &&
					      off <= ch->size && ch->size - off >= (uint64_t)w;

	if (off > UINT32_MAX || sym >= LK_RELOC_MAX_SYMS || type >= LK_RELOC_WIDE) {
		kb_err(b, "%s+0x%llx: relocation type %u against symbol %u does not fit "
		       "a kit relocation (offset < 4 GiB, fewer than 2^24 symbols)",
		       where, (unsigned long long)off, type, sym);
		return;
	}
	for (int k = 0; inplace && k < w; k++)
		inplace = cover[off + k] == 1;
	inplace = inplace && addend_fits(add, w);
	if (inplace) {
		for (int k = 0; k < w; k++)
			data->p[ch->data_off + off + k] = (uint8_t)((uint64_t)add >> (8 * k));
	} else {
		v->wide = kb_xgrow(v->wide, v->nwide, sizeof(*v->wide));
		v->wide[v->nwide++] = (struct lk_reloc_addend){ (uint32_t)v->n, 0, add };
		type |= LK_RELOC_WIDE;
	}
	v->delta = kb_xgrow(v->delta, v->n, sizeof(*v->delta));
	v->info = kb_xgrow(v->info, v->n, sizeof(*v->info));
	v->delta[v->n] = (uint32_t)(off - *prev);
	v->info[v->n] = lk_reloc_info(v->map[sym], type);
	*prev = off;
	v->n++;
}

/* Relocations per byte of a chunk with contents (NULL: none to cover). */
static uint8_t *reloc_cover(const struct kb *b, size_t c, const struct kb_reloc *k,
			    size_t n)
{
	const struct lk_chunk *ch = &b->chunks[c];
	uint8_t *cover;

	if (n == 0 || (ch->flags & (LK_CHUNK_NOBITS | LK_CHUNK_MERGE | LK_CHUNK_GAP)))
		return NULL;
	cover = kb_xcalloc(ch->size ? ch->size : 1, 1);
	for (size_t i = 0; i < n; i++) {
		uint64_t w = kb_reloc_width(k[i].type);

		for (uint64_t at = k[i].offset; at < ch->size && at < k[i].offset + w; at++)
			cover[at] += cover[at] < 2;
	}
	return cover;
}

static void put_chunk_relocs(struct kb *b, struct relocs_out *v, struct kb_buf *data,
			     size_t c)
{
	const struct kb_inref *r = &b->inref[b->chunk_input[c]];
	uint64_t prev = 0;
	char where[512];

	if (r->sec != NONE) {
		const struct kb_obj *ob = &b->objs[r->obj];
		const struct kb_sec *s = &ob->secs[r->sec];
		const struct kb_reloc *k = &b->relocs[s->reloc_first];
		uint8_t *cover = reloc_cover(b, c, k, s->reloc_count);

		snprintf(where, sizeof(where), "%s(%s)", ob->name, s->name);
		for (uint32_t i = 0; i < s->reloc_count; i++)
			add_reloc(b, v, data, c, cover, where, k[i].offset, k[i].type,
				  k[i].sym, k[i].addend, &prev);
		free(cover);
	} else if (b->chunk_input[c] == b->got_input) {
		/* One 8-byte slot per entry: no field overlaps another. */
		uint8_t *cover = kb_xcalloc(b->chunks[c].size + 1, 1);

		memset(cover, 1, b->chunks[c].size);
		for (size_t g = 0; g < b->ngot; g++)
			add_reloc(b, v, data, c, cover, "<got>(.got)", 8 * g,
				  R_X86_64_64, b->got_syms[g], 0, &prev);
		free(cover);
	}
}

static void put_relocs(struct kb *b, struct out *o, struct kb_buf *data,
		       const uint32_t *map)
{
	struct relocs_out v = { .map = map };
	uint32_t *cols;

	for (size_t c = 0; c < b->nchunks; c++) {
		b->chunks[c].reloc_first = (uint32_t)v.n;
		put_chunk_relocs(b, &v, data, c);
		b->chunks[c].reloc_count = (uint32_t)v.n - b->chunks[c].reloc_first;
	}
	cols = kb_xcalloc(v.n ? 2 * v.n : 1, sizeof(*cols));
	if (v.n) {
		memcpy(cols, v.delta, v.n * sizeof(*cols));
		memcpy(cols + v.n, v.info, v.n * sizeof(*cols));
	}
	put_table(o, &o->h.relocs, cols, v.n, 2 * sizeof(*cols));
	put_table(o, &o->h.addends, v.wide, v.nwide, sizeof(*v.wide));
	free(cols);
	free(v.delta);
	free(v.info);
	free(v.wide);
}

static void put_symbols(struct kb *b, struct out *o, const struct symmap *m)
{
	struct lk_symbol *v = kb_xcalloc(m->n ? m->n : 1, sizeof(*v));
	const uint32_t *map = m->map;

	for (size_t i = 0; i < b->nsyms; i++) {
		const struct kb_sym *s = &b->syms[i];
		struct lk_symbol *y = &v[map[i]];

		if (!m->own[i])
			continue;
		y->name = kb_intern(b, s->name);
		y->kind = s->kind;
		y->bind = s->bind;
		y->type = s->type;
		y->emit = s->emit && *s->name;
		y->ref = s->ref == NONE ? 0 : s->kind == LK_SYM_ALT ? map[s->ref] : s->ref;
		y->other = s->vis;
		y->value = s->value;
		y->size = s->size;
	}
	put_table(o, &o->h.symbols, v, m->n, sizeof(*v));
	free(v);
}

/* The plan, its symbol operands renumbered. */
static void put_plan(struct kb *b, struct out *o, const uint32_t *map)
{
	struct lk_op *v = kb_xcalloc(b->comp.nops ? b->comp.nops : 1, sizeof(*v));

	for (size_t i = 0; i < b->comp.nops; i++) {
		v[i] = b->comp.ops[i];
		if (v[i].code == LK_E_SYM || v[i].code == LK_S_ASSIGN)
			v[i].arg = map[v[i].arg];
	}
	put_table(o, &o->h.plan, v, b->comp.nops, sizeof(*v));
	free(v);
}

static void put_comdats(struct kb *b, struct out *o)
{
	struct lk_comdat *v = kb_xcalloc(b->ncsets + 1, sizeof(*v));

	for (size_t i = 0; i < b->ncsets; i++)
		v[i].name = kb_intern(b, b->groups[b->csets[i]].sig);
	put_table(o, &o->h.comdats, v, b->ncsets, sizeof(*v));
	free(v);
}

static int entry_symbol(struct kb *b, uint32_t *out)
{
	const char *e = ls_entry(b->script);
	uint32_t i;

	if (!e)
		e = "_start";
	i = kb_global(b, e, 0);
	if (i == NONE || b->syms[i].def == DEF_NONE) {
		kb_err(b, "entry symbol '%s' is not defined", e);
		return -1;
	}
	*out = i;
	return 0;
}

static uint32_t max_align(const struct kb *b)
{
	uint64_t m = 1;

	for (size_t i = 0; i < b->nchunks; i++)
		if (b->chunks[i].align > m)
			m = b->chunks[i].align;
	for (size_t i = 0; i < b->comp.noutsecs; i++)
		if (b->comp.outsecs[i].align > m)
			m = b->comp.outsecs[i].align;
	return m > UINT32_MAX ? UINT32_MAX : (uint32_t)m;
}

/*
 * The ksyms blob is appended last (the canonical link of the finished
 * payload names its symbols); it moves in front of data, so that data is
 * the payload's tail and every table lk_link_open reads comes before it
 * (lk_link_prefix): a stage with several processors parses while the
 * contents still inflate. data keeps its 16-byte alignment.
 */
static void data_last(struct kb_buf *buf, struct lk_payload_header *h)
{
	size_t d = h->data.off, dn = h->data.count, k = h->ksyms.off,
	       kn = h->ksyms.count, kpad = (kn + 15) & ~(size_t)15;
	uint8_t *blob;

	if (!kn || k < d + dn || d % 16)
		return;
	blob = kb_xcalloc(kn, 1);
	memcpy(blob, buf->p + k, kn);
	if (d + kpad + dn > buf->len) /* at most the 15 bytes of padding */
		kb_buf_add(buf, NULL, d + kpad + dn - buf->len);
	memmove(buf->p + d + kpad, buf->p + d, dn);
	memcpy(buf->p + d, blob, kn);
	memset(buf->p + d + kn, 0, kpad - kn);
	buf->len = d + kpad + dn;
	free(blob);
	h->ksyms.off = (uint32_t)d;
	h->data.off = (uint32_t)(d + kpad);
	memcpy(buf->p, h, sizeof(*h));
}

int kb_serialize(struct kb *b, uint8_t **payload, size_t *size)
{
	struct out o;
	struct kb_buf data = { 0 };
	struct symmap m;

	memset(&o, 0, sizeof(o));
	check_pins(b);
	if (entry_symbol(b, &o.h.entry_sym) || b->errors)
		return -1;
	o.h.magic = LK_PAYLOAD_MAGIC;
	o.h.version = LK_PAYLOAD_VERSION;
	o.h.protocol = b->pol.protocol;
	/* `linker lld`: merge groups are laid out as ld.lld does (kbmerge.c). */
	o.h.flags = b->pol.lld ? LK_PAYLOAD_F_LLD_MERGE : 0;
	/* `sort-tables linux`: scripts/sorttable's work after each link. */
	o.h.flags |= b->pol.sort_linux ? LK_PAYLOAD_F_LINUX_SORT : 0;
	o.h.max_align = max_align(b);
	kb_buf_add(&o.buf, NULL, sizeof(o.h));
	m = symbol_map(b, o.h.entry_sym);
	o.h.entry_sym = m.map[o.h.entry_sym];
	put_objects(b, &o);
	build_data(b, &data);
	put_relocs(b, &o, &data, m.map);
	if (b->errors) {
		free(m.map);
		free(m.own);
		free(data.p);
		free(o.buf.p);
		return -1;
	}
	put_symbols(b, &o, &m); /* interns names: before the strtab goes out */
	put_comdats(b, &o);
	/* A known string in every payload, so a kernel can scan RAM for
	 * leftovers of the inflated payload after the handoff. */
	kb_intern(b, LK_KIT_CANARY);
	put_table(&o, &o.h.chunks, b->chunks, b->nchunks, sizeof(*b->chunks));
	put_table(&o, &o.h.slots, b->comp.slots, b->comp.nslots, sizeof(struct lk_slot));
	put_table(&o, &o.h.outsecs, b->comp.outsecs, b->comp.noutsecs, sizeof(struct lk_outsec));
	put_table(&o, &o.h.phdrs, b->comp.phdrs, b->comp.nphdrs, sizeof(struct lk_phdr));
	put_plan(b, &o, m.map);
	free(m.map);
	free(m.own);
	put_table(&o, &o.h.mgroups, b->mgroups, b->nmgroups, sizeof(*b->mgroups));
	put_table(&o, &o.h.mclasses, b->mclasses, b->nmclasses, sizeof(*b->mclasses));
	put_table(&o, &o.h.mrefs, b->mrefs, b->nmrefs, sizeof(*b->mrefs));
	put_table(&o, &o.h.strtab, b->strtab.p, b->strtab.len, 1);
	put_table(&o, &o.h.data, data.p, data.len, 1);
	free(data.p);
	if (o.buf.len > UINT32_MAX) {
		kb_err(b, "payload too large (%zu bytes)", o.buf.len);
		free(o.buf.p);
		return -1;
	}
	memcpy(o.buf.p, &o.h, sizeof(o.h));
	if (b->pol.base_step && kb_base_fix(o.buf.p, o.buf.len, &b->pol)) {
		free(o.buf.p);
		return -1;
	}
	if (b->ksyms_map && kb_ksyms_attach(&o.buf, &o.h, b->ksyms_map, b->ksyms_obj)) {
		free(o.buf.p);
		return -1;
	}
	data_last(&o.buf, &o.h);
	/*
	 * The build id: ld's is a SHA-1 of the whole output file, which no
	 * relinked layout reproduces (and the build's own would make tools
	 * that look vmlinux up by its id take the build's symbol addresses).
	 * Here it names the kit: the first 20 bytes of the SHA-256 of the
	 * payload with the id still zero. Every boot of one kit has it.
	 */
	if (b->bid_input != NONE && b->input_chunk[b->bid_input] != NONE) {
		uint8_t h[32];
		size_t at = o.h.data.off + b->chunks[b->input_chunk[b->bid_input]].data_off + 16;

		lk_sha256(o.buf.p, o.buf.len, h);
		memcpy(o.buf.p + at, h, 20);
	}
	*payload = o.buf.p;
	*size = o.buf.len;
	return 0;
}

/* ---- strtab compaction ---- */

/* The header's tables, objects through addends, as one array. */
#define STR_NTABLES(h) ((size_t)(&(h)->addends - &(h)->objects) + 1)

struct str_users {
	uint32_t *field[6];
	size_t count[6], stride[6];
};

/* Every strtab offset a table holds, as (pointer, count, stride). */
static void str_users(uint8_t *pl, const struct lk_payload_header *h, struct str_users *u)
{
	const struct lk_table *t[6] = { &h->objects, &h->chunks, &h->comdats,
					&h->outsecs, &h->phdrs, &h->symbols };
	const size_t sz[6] = { sizeof(struct lk_object), sizeof(struct lk_chunk),
			       sizeof(struct lk_comdat), sizeof(struct lk_outsec),
			       sizeof(struct lk_phdr), sizeof(struct lk_symbol) };
	const size_t at[6] = { offsetof(struct lk_object, name), offsetof(struct lk_chunk, name),
			       offsetof(struct lk_comdat, name), offsetof(struct lk_outsec, name),
			       offsetof(struct lk_phdr, name), offsetof(struct lk_symbol, name) };

	for (int i = 0; i < 6; i++) {
		u->field[i] = (uint32_t *)(pl + t[i]->off + at[i]);
		u->count[i] = t[i]->count;
		u->stride[i] = sz[i] / 4;
	}
}

/* The table that follows strtab, or the payload's end. */
static size_t str_next_table(const struct lk_payload_header *h, size_t end)
{
	const struct lk_table *t = &h->objects;
	size_t next = end;

	for (size_t i = 0; i < STR_NTABLES(h); i++)
		if (t[i].off > h->strtab.off && t[i].off < next)
			next = t[i].off;
	return next;
}

static void str_mark(uint8_t *used, const struct lk_payload_header *h, uint8_t *pl,
		     const struct str_users *u)
{
	struct lk_op *op = (struct lk_op *)(pl + h->plan.off);
	for (int i = 0; i < 6; i++)
		for (size_t k = 0; k < u->count[i]; k++)
			used[u->field[i][k * u->stride[i]]] = 1;
	for (uint32_t k = 0; k < h->plan.count; k++)
		if (op[k].code == LK_S_ASSERT)
			used[op[k].imm] = 1;
}

int kb_strtab_compact(struct kb_buf *buf, struct lk_payload_header *h)
{
	uint8_t *pl = buf->p, *used = kb_xcalloc(h->strtab.count, 1), *out;
	const char *str = (const char *)pl + h->strtab.off;
	uint32_t *map = kb_xcalloc(h->strtab.count, sizeof(*map)), len = 0;
	size_t next = str_next_table(h, buf->len), start, delta;
	struct lk_table *t = &h->objects;
	struct str_users u;
	char *nstr = kb_xcalloc(h->strtab.count, 1);

	memcpy(pl, h, sizeof(*h));
	str_users(pl, h, &u);
	str_mark(used, h, pl, &u);
	for (uint32_t off = 0; off < h->strtab.count;) {
		uint32_t l = (uint32_t)strlen(str + off) + 1;

		/* The canary stays: kernels scan memory for it. */
		if (off == 0 || used[off] || !strcmp(str + off, LK_KIT_CANARY)) {
			map[off] = len;
			memcpy(nstr + len, str + off, l);
			len += l;
		}
		for (uint32_t k = off + 1; k < off + l; k++)
			if (used[k]) {
				fprintf(stderr, "linkkit: internal: a name points into "
						"another strtab string\n");
				free(used), free(map), free(nstr);
				return -1;
			}
		off += l;
	}
	for (int i = 0; i < 6; i++)
		for (size_t k = 0; k < u.count[i]; k++)
			u.field[i][k * u.stride[i]] = map[u.field[i][k * u.stride[i]]];
	for (uint32_t k = 0; k < h->plan.count; k++) {
		struct lk_op *op = (struct lk_op *)(pl + h->plan.off) + k;

		if (op->code == LK_S_ASSERT)
			op->imm = map[op->imm];
	}
	start = h->strtab.off + ((len + 7u) & ~7u);
	delta = next - start;
	out = kb_xcalloc(buf->len - delta, 1);
	memcpy(out, pl, h->strtab.off);
	memcpy(out + h->strtab.off, nstr, len);
	memcpy(out + start, pl + next, buf->len - next);
	h->strtab.count = len;
	for (size_t i = 0; i < STR_NTABLES(h); i++)
		if (t[i].off > h->strtab.off)
			t[i].off -= (uint32_t)delta;
	memcpy(out, h, sizeof(*h));
	free(buf->p);
	buf->p = out;
	buf->len -= delta;
	buf->cap = buf->len;
	free(used), free(map), free(nstr);
	return 0;
}
