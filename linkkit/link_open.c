/*
 * lk_link_open: validates every table, index, offset and size of an inflated
 * payload before anything else touches it, so the layout and write phases
 * can index the tables without further checks. lk_link_close wipes and
 * frees what the link allocated.
 */
#include "link_internal.h"
#include "proto/proto.h"

#define LK_ERR(L, ...) lk_log((L)->h, LK_LOG_ERROR, __VA_ARGS__)

int lk_is_pow2(lk_u64 v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

void *lk_link_alloc(struct lk_link *L, lk_u64 count, lk_u64 elsize)
{
	lk_u64 n = count * elsize;
	void *p;

	/* count comes from a validated table, so the product cannot wrap.
	 * After one failure the rest fail quietly: one line per problem. */
	if (L->nomem)
		return LK_NULL;
	if (n == 0)
		n = 16;
	if (n > LK_MAX_SIZE || n != (lk_size)n || L->nallocs >= LK_MAX_ALLOCS) {
		LK_ERR(L, "%s: payload needs too much memory", L->name);
		return LK_NULL;
	}
	p = L->h->alloc(L->h->ctx, (lk_size)n);
	if (!p) {
		L->nomem = 1;
		LK_ERR(L, "%s: out of memory (%llu bytes)", L->name, n);
		return LK_NULL;
	}
	/* Zero-filled already (lk_host.h): every host's alloc clears, and
	 * clearing again cost the OpenBSD kit ~3.4 MB of stores per link. */
	L->allocs[L->nallocs].p = p;
	L->allocs[L->nallocs].n = (lk_size)n;
	L->nallocs++;
	return p;
}

const char *lk_str(const struct lk_link *L, lk_u32 off)
{
	return off < L->nstr ? L->str + off : "?";
}

const char *lk_chunk_obj_name(const struct lk_link *L, lk_u32 chunk)
{
	return lk_str(L, L->obj[L->chunk[chunk].object].name);
}

const char *lk_sym_label(const struct lk_link *L, lk_u32 s, char *buf)
{
	const struct lk_symbol *y = &L->sym[s];

	if (*lk_str(L, y->name))
		return lk_str(L, y->name);
	if (lk_linux_sym_name(L, s, buf))
		return buf;
	if (y->kind == LK_SYM_CHUNK && y->ref < L->nchunk)
		lk_snprintf(buf, LK_SYM_LABEL, "%s(%s+0x%llx)",
			    lk_chunk_obj_name(L, y->ref),
			    lk_str(L, L->chunk[y->ref].name), y->value);
	else if (y->kind == LK_SYM_MERGE)
		lk_snprintf(buf, LK_SYM_LABEL, "merged piece %u+0x%llx", y->ref,
			    y->value);
	else
		lk_snprintf(buf, LK_SYM_LABEL, "#%u", s);
	return buf;
}

static int lk_name_ok(const struct lk_link *L, lk_u32 off, const char *what,
		      lk_u32 idx)
{
	if (off < L->nstr)
		return 1;
	LK_ERR(L, "%s: %s %u: name offset 0x%x outside strtab", L->name, what,
	       idx, off);
	return 0;
}

/* Record sizes of the header's tables, objects through addends, in
 * header order: lk_table checks each table with its own, and
 * lk_link_prefix finds where the tables but data end. */
static const lk_u8 lk_table_rec[] = {
	sizeof(struct lk_object),	sizeof(struct lk_chunk),
	sizeof(struct lk_slot),		sizeof(struct lk_outsec),
	sizeof(struct lk_phdr),		sizeof(struct lk_symbol),
	8,				sizeof(struct lk_op),
	sizeof(struct lk_merge_group),	sizeof(struct lk_merge_class),
	4,				1,
	1,				sizeof(struct lk_comdat),
	1,				sizeof(struct lk_reloc_addend),
};
_Static_assert(__builtin_offsetof(struct lk_payload_header, addends) -
			       __builtin_offsetof(struct lk_payload_header, objects) ==
		       (sizeof(lk_table_rec) - 1) * sizeof(struct lk_table),
	       "lk_table_rec lists the header's tables");

/* Checks one table and returns a pointer to its records. Records are read
 * in place, so a table must be aligned for its record type. */
static const void *lk_table(struct lk_link *L, const struct lk_table *t,
			    lk_u32 align, const char *what, lk_u32 *count)
{
	lk_u32 recsize = lk_table_rec[t - &L->hdr->objects];
	lk_u64 end = (lk_u64)t->off + (lk_u64)t->count * recsize;

	if (end > L->size || (t->off & (align - 1)) != 0) {
		LK_ERR(L, "%s: %s table (offset 0x%x, %u entries) is outside "
		       "the payload or misaligned", L->name, what, t->off,
		       t->count);
		return LK_NULL;
	}
	*count = t->count;
	return L->base + t->off;
}

lk_u64 lk_link_prefix(const void *payload, lk_u64 have, lk_u64 size)
{
	const struct lk_payload_header *hd = payload;
	const struct lk_table *t;
	lk_u64 end = sizeof(*hd), e;
	lk_u32 i;

	if (have < sizeof(*hd) || size < sizeof(*hd))
		return size;
	for (i = 0, t = &hd->objects; i < sizeof(lk_table_rec); i++, t++) {
		e = (lk_u64)t->off + (lk_u64)t->count * lk_table_rec[i];
		if (t != &hd->data && e > end)
			end = e;
	}
	return end < size ? end : size;
}

static int lk_open_header(struct lk_link *L)
{
	const struct lk_payload_header *hd = L->hdr;

	if (L->size < sizeof(*hd) || ((lk_uptr)L->base & 7) != 0) {
		LK_ERR(L, "%s: payload too small or misaligned", L->name);
		return 0;
	}
	if (hd->magic != LK_PAYLOAD_MAGIC || hd->version != LK_PAYLOAD_VERSION) {
		LK_ERR(L, "%s: bad payload magic or version %u", L->name,
		       hd->version);
		return 0;
	}
	if (hd->flags & ~(LK_PAYLOAD_F_LLD_MERGE | LK_PAYLOAD_F_LINUX_SORT |
			  LK_PAYLOAD_F_LINUX_KALLSYMS)) {
		LK_ERR(L, "%s: unknown payload flags 0x%x", L->name, hd->flags);
		return 0;
	}
	if (!lk_proto_by_id(hd->protocol)) {
		LK_ERR(L, "%s: unknown protocol %u", L->name, hd->protocol);
		return 0;
	}
	if (!lk_is_pow2(hd->max_align) || hd->max_align > LK_MAX_SIZE) {
		LK_ERR(L, "%s: bad max_align 0x%x", L->name, hd->max_align);
		return 0;
	}
	return 1;
}

static int lk_open_tables(struct lk_link *L)
{
	const struct lk_payload_header *hd = L->hdr;

	L->obj = lk_table(L, &hd->objects, 4, "objects", &L->nobj);
	L->chunk = lk_table(L, &hd->chunks, 8, "chunks", &L->nchunk);
	L->slot = lk_table(L, &hd->slots, 4, "slots", &L->nslot);
	L->outsec = lk_table(L, &hd->outsecs, 8, "outsecs", &L->nout);
	L->phdr = lk_table(L, &hd->phdrs, 4, "phdrs", &L->nphdr);
	L->sym = lk_table(L, &hd->symbols, 8, "symbols", &L->nsym);
	L->rel_delta = lk_table(L, &hd->relocs, 4, "relocs", &L->nrel);
	L->rel_info = L->rel_delta ? L->rel_delta + L->nrel : LK_NULL;
	L->radd = lk_table(L, &hd->addends, 8, "addends",
			   &L->nradd);
	L->plan = lk_table(L, &hd->plan, 8, "plan", &L->nop);
	L->mgroup = lk_table(L, &hd->mgroups, 8, "mgroups", &L->nmg);
	L->mclass = lk_table(L, &hd->mclasses, 4, "mclasses", &L->nmc);
	L->mref = lk_table(L, &hd->mrefs, 4, "mrefs", &L->nmref);
	L->str = lk_table(L, &hd->strtab, 1, "strtab", &L->nstr);
	L->data = lk_table(L, &hd->data, 1, "data", &L->ndata);
	L->comdat = lk_table(L, &hd->comdats, 4, "comdats",
			     &L->ncomdat);
	L->ksyms = lk_table(L, &hd->ksyms, 4, "ksyms", &L->nksyms);
	if (!L->obj || !L->chunk || !L->slot || !L->outsec || !L->phdr ||
	    !L->sym || !L->rel_delta || !L->radd || !L->plan || !L->mgroup || !L->mclass ||
	    !L->mref || !L->str || !L->data || !L->comdat || !L->ksyms)
		return 0;
	/* Names are read as C strings: the table must end in a NUL. */
	if (L->nstr == 0 || L->str[L->nstr - 1] != '\0') {
		LK_ERR(L, "%s: strtab is empty or not NUL-terminated", L->name);
		return 0;
	}
	if (L->nphdr > 32) {
		LK_ERR(L, "%s: %u phdrs (at most 32)", L->name, L->nphdr);
		return 0;
	}
	return 1;
}

static int lk_check_objects(struct lk_link *L)
{
	lk_u32 i;

	for (i = 0; i < L->nobj; i++) {
		if (!lk_name_ok(L, L->obj[i].name, "object", i))
			return 0;
		if (L->obj[i].flags & ~(LK_OBJ_GAP | LK_OBJ_SYNTHETIC)) {
			LK_ERR(L, "%s: object %s: unknown flags 0x%x", L->name,
			       lk_str(L, L->obj[i].name), L->obj[i].flags);
			return 0;
		}
	}
	return 1;
}

static int lk_check_comdats(struct lk_link *L)
{
	lk_u32 i;

	for (i = 0; i < L->ncomdat; i++) {
		if (!lk_name_ok(L, L->comdat[i].name, "comdat", i))
			return 0;
		if (L->comdat[i].flags) {
			LK_ERR(L, "%s: COMDAT group '%s': unknown flags 0x%x",
			       L->name, lk_str(L, L->comdat[i].name),
			       L->comdat[i].flags);
			return 0;
		}
	}
	return 1;
}

static int lk_check_slots(struct lk_link *L)
{
	lk_u64 total = 0;
	lk_u32 i;
	const lk_u32 known = LK_SLOT_CANONICAL | LK_SLOT_SORT_ALIGN |
			     LK_SLOT_SORT_NAME | LK_SLOT_SHUFFLE;

	for (i = 0; i < L->nslot; i++) {
		const struct lk_slot *s = &L->slot[i];

		if (s->outsec >= L->nout || (s->flags & ~known) ||
		    (lk_u64)s->first_chunk + s->chunk_count > L->nchunk) {
			LK_ERR(L, "%s: slot %u: bad outsec %u, flags 0x%x or "
			       "chunk range %u+%u", L->name, i, s->outsec,
			       s->flags, s->first_chunk, s->chunk_count);
			return 0;
		}
		total += s->chunk_count;
	}
	/* With each chunk inside its own slot's range (lk_check_chunk),
	 * this makes the ranges a partition: the layout orders all slots
	 * with one counting sort. */
	if (total != L->nchunk) {
		LK_ERR(L, "%s: slots hold %llu chunks, the table has %u",
		       L->name, total, L->nchunk);
		return 0;
	}
	return 1;
}

/*
 * Only the chunk's range of records is checked here. Each record (type,
 * symbol, offset) is checked by lk_reloc_chunk_apply as it is applied:
 * the records are a fifth of the payload, and reading them twice cost the
 * OpenBSD kernel ~0.6 ms of a 6 ms link (docs/bench.md). A dead COMDAT
 * copy's records are never read at all.
 */
static int lk_check_chunk_relocs(struct lk_link *L, lk_u32 i)
{
	const struct lk_chunk *c = &L->chunk[i];

	if (c->reloc_count == 0)
		return 1;
	if ((lk_u64)c->reloc_first + c->reloc_count > L->nrel ||
	    (c->flags & (LK_CHUNK_NOBITS | LK_CHUNK_GAP | LK_CHUNK_MERGE))) {
		LK_ERR(L, "%s: %s(%s): bad relocation range %u+%u", L->name,
		       lk_chunk_obj_name(L, i), lk_str(L, c->name),
		       c->reloc_first, c->reloc_count);
		return 0;
	}
	return 1;
}

/* Addends the fields cannot hold: a binary search finds them, so they
 * must be sorted, each relocation at most once. */
static int lk_check_addends(struct lk_link *L)
{
	for (lk_u32 i = 0; i < L->nradd; i++) {
		const struct lk_reloc_addend *a = &L->radd[i];

		if (a->reloc >= L->nrel || a->reserved ||
		    (i && a->reloc <= L->radd[i - 1].reloc)) {
			LK_ERR(L, "%s: addends entry %u (relocation %u) is out "
			       "of order or range", L->name, i, a->reloc);
			return 0;
		}
	}
	return 1;
}

/* A dead copy only loses its size and relocations: it must not be a
 * merge or gap chunk, whose size means something else. */
static int lk_check_chunk_comdat(struct lk_link *L, lk_u32 i)
{
	const struct lk_chunk *c = &L->chunk[i];

	if (c->reserved) {
		LK_ERR(L, "%s: %s(%s): reserved field 0x%x is not 0", L->name,
		       lk_chunk_obj_name(L, i), lk_str(L, c->name),
		       c->reserved);
		return 0;
	}
	if (c->comdat == 0)
		return 1;
	if (c->comdat > L->ncomdat) {
		LK_ERR(L,
		       "%s: %s(%s): COMDAT group %u out of range (%u groups)",
		       L->name, lk_chunk_obj_name(L, i), lk_str(L, c->name),
		       c->comdat - 1, L->ncomdat);
		return 0;
	}
	if ((c->flags & (LK_CHUNK_MERGE | LK_CHUNK_GAP)) ||
	    (L->obj[c->object].flags & LK_OBJ_SYNTHETIC)) {
		LK_ERR(L,
		       "%s: %s(%s): a merge, gap or synthetic chunk cannot "
		       "be in COMDAT group '%s'",
		       L->name, lk_chunk_obj_name(L, i), lk_str(L, c->name),
		       lk_str(L, L->comdat[c->comdat - 1].name));
		return 0;
	}
	return 1;
}

static int lk_check_chunk(struct lk_link *L, lk_u32 i)
{
	const struct lk_chunk *c = &L->chunk[i];
	const struct lk_slot *s;
	const lk_u32 known = LK_CHUNK_NOBITS | LK_CHUNK_GAP | LK_CHUNK_MERGE |
			     LK_CHUNK_EXEC | LK_CHUNK_WRITE;
	int bad;

	if (c->object >= L->nobj || c->slot >= L->nslot) {
		LK_ERR(L, "%s: chunk %u: bad object %u or slot %u", L->name, i,
		       c->object, c->slot);
		return 0;
	}
	if (!lk_name_ok(L, c->name, "chunk", i))
		return 0;
	s = &L->slot[c->slot];
	bad = (c->flags & ~known) || !lk_is_pow2(c->align) ||
	      c->align > L->hdr->max_align || c->size > LK_MAX_SIZE ||
	      i < s->first_chunk || i - s->first_chunk >= s->chunk_count;
	if (!bad && (c->flags & LK_CHUNK_GAP))
		bad = c->data_off > 0xff;
	else if (!bad && !(c->flags & (LK_CHUNK_NOBITS | LK_CHUNK_MERGE)))
		bad = c->data_off > L->ndata || L->ndata - c->data_off < c->size;
	if (bad) {
		LK_ERR(L, "%s: %s(%s): bad flags 0x%x, size 0x%llx, align "
		       "0x%llx, data offset 0x%llx or slot %u", L->name,
		       lk_chunk_obj_name(L, i), lk_str(L, c->name), c->flags,
		       c->size, c->align, c->data_off, c->slot);
		return 0;
	}
	return lk_check_chunk_comdat(L, i) && lk_check_chunk_relocs(L, i);
}

static int lk_check_outsecs(struct lk_link *L)
{
	lk_u32 i;

	for (i = 0; i < L->nout; i++) {
		const struct lk_outsec *o = &L->outsec[i];

		if (!lk_name_ok(L, o->name, "outsec", i))
			return 0;
		if ((o->type != LK_SHT_PROGBITS && o->type != LK_SHT_NOBITS) ||
		    !lk_is_pow2(o->align) || o->align > LK_MAX_SIZE ||
		    o->fill_len > 4 ||
		    (L->nphdr < 32 && (o->phdr_mask >> L->nphdr) != 0) ||
		    (o->oflags & ~(LK_OUTSEC_RANDOM_FILL | LK_OUTSEC_KEEP_EMPTY))) {
			LK_ERR(L, "%s: output section %s: bad type %u, align "
			       "0x%llx, fill length %u, phdr mask 0x%x or "
			       "flags 0x%x", L->name, lk_str(L, o->name),
			       o->type, o->align, o->fill_len, o->phdr_mask,
			       o->oflags);
			return 0;
		}
	}
	for (i = 0; i < L->nphdr; i++)
		if (!lk_name_ok(L, L->phdr[i].name, "phdr", i))
			return 0;
	return 1;
}

/* Candidates are plain chunk symbols, so picking one never recurses. */
static int lk_check_alt(struct lk_link *L, lk_u32 i)
{
	const struct lk_symbol *s = &L->sym[i];
	char label[LK_SYM_LABEL];
	lk_u64 k;

	if (s->value == 0 || s->ref >= L->nsym || s->value > L->nsym - s->ref) {
		LK_ERR(L, "%s: symbol '%s': candidates %u+%llu out of range",
		       L->name, lk_sym_label(L, i, label), s->ref, s->value);
		return 0;
	}
	for (k = s->ref; k < s->ref + s->value; k++) {
		if (L->sym[k].kind != LK_SYM_CHUNK) {
			LK_ERR(L,
			       "%s: symbol '%s': candidate %llu is not a "
			       "chunk symbol",
			       L->name, lk_sym_label(L, i, label), k);
			return 0;
		}
	}
	return 1;
}

static int lk_check_symbol(struct lk_link *L, lk_u32 i)
{
	const struct lk_symbol *s = &L->sym[i];
	char label[LK_SYM_LABEL];
	int bad = 0;

	if (!lk_name_ok(L, s->name, "symbol", i))
		return 0;
	switch (s->kind) {
	case LK_SYM_CHUNK:
		/* Offsets inside a merge chunk lose meaning once pieces move:
		 * the host must express them as LK_SYM_MERGE. */
		/* In a gap only its start is fixed (OpenBSD's endboot). */
		bad = s->ref >= L->nchunk || s->value > L->chunk[s->ref].size ||
		      (L->chunk[s->ref].flags & LK_CHUNK_MERGE) ||
		      ((L->chunk[s->ref].flags & LK_CHUNK_GAP) && s->value);
		break;
	case LK_SYM_ABS:
	case LK_SYM_PLAN:
		break;
	case LK_SYM_OUTSEC_START:
	case LK_SYM_OUTSEC_END:
		bad = s->ref >= L->nout;
		break;
	case LK_SYM_MERGE:
		bad = s->ref >= L->nmc || s->value > L->mclass[s->ref].size;
		break;
	case LK_SYM_ALT:
		return lk_check_alt(L, i);
	default:
		bad = 1;
	}
	if (bad)
		LK_ERR(L, "%s: symbol '%s': bad kind %u, reference %u or value "
		       "0x%llx", L->name, lk_sym_label(L, i, label), s->kind, s->ref,
		       s->value);
	return !bad;
}

static int lk_check_chunks_syms(struct lk_link *L)
{
	lk_u32 i;

	for (i = 0; i < L->nchunk; i++)
		if (!lk_check_chunk(L, i))
			return 0;
	for (i = 0; i < L->nsym; i++)
		if (!lk_check_symbol(L, i))
			return 0;
	if (L->hdr->entry_sym >= L->nsym) {
		LK_ERR(L, "%s: entry symbol index %u out of range", L->name,
		       L->hdr->entry_sym);
		return 0;
	}
	return 1;
}

/* Stack effect of each opcode: how many values it pops and pushes. */
static int lk_op_effect(const struct lk_op *op, int *pop, int *push)
{
	*push = 1;
	switch (op->code) {
	case LK_E_CONST: case LK_E_DOT: case LK_E_SYM: case LK_E_ADDR:
	case LK_E_LOADADDR: case LK_E_SIZEOF: case LK_E_ALIGNOF:
	case LK_E_SHIFT:
		*pop = 0;
		return 1;
	case LK_E_ALIGN: case LK_E_NEG: case LK_E_NOT: case LK_E_LNOT:
		*pop = 1;
		return 1;
	case LK_E_COND:
		*pop = 3;
		return 1;
	default:
		break;
	}
	if (op->code >= LK_E_ALIGN2 && op->code <= LK_E_MIN) {
		*pop = 2;
		return 1;
	}
	*push = 0;
	switch (op->code) {
	case LK_S_SET_DOT: case LK_S_ASSIGN: case LK_S_DATA: case LK_S_ASSERT:
		*pop = 1;
		return 1;
	case LK_S_SECTION:
		*pop = !!(op->flags & LK_SEC_VMA) + !!(op->flags & LK_SEC_ALIGN) +
		       !!(op->flags & LK_SEC_LMA);
		return 1;
	case LK_S_SLOT: case LK_S_END_SECTION:
		*pop = 0;
		return 1;
	}
	return 0;
}

struct lk_plan_walk {
	lk_u32 cur;      /* open outsec or LK_NONE */
	int has;         /* the open outsec has data or `. =` */
	lk_u8 *seen_os;  /* outsec begun */
	lk_u8 *seen_slot;
};

#define LK_SHIFT_MAX_STEPS 0x100000u

/* The base shift: once, before any section, a page-to-1-GiB step. */
static const char *lk_shift_check(struct lk_link *L, const struct lk_op *op,
				  const struct lk_plan_walk *w)
{
	if (L->shift_step || w->cur != LK_NONE)
		return "base shift repeated or inside a section";
	if (!lk_is_pow2(op->imm) || op->imm < 4096 || op->imm > (1ull << 30) ||
	    op->arg > LK_SHIFT_MAX_STEPS)
		return "base shift step or count out of range";
	L->shift_step = op->imm;
	L->shift_steps = op->arg;
	return LK_NULL;
}

/* Index and nesting rules of one op; returns an error text or LK_NULL. */
static const char *lk_op_check(struct lk_link *L, const struct lk_op *op,
			       struct lk_plan_walk *w)
{
	switch (op->code) {
	case LK_E_SYM:
		return op->arg < L->nsym ? LK_NULL : "symbol index out of range";
	case LK_E_ADDR: case LK_E_LOADADDR: case LK_E_SIZEOF: case LK_E_ALIGNOF:
		return op->arg < L->nout ? LK_NULL : "outsec index out of range";
	case LK_S_ASSIGN:
		if (op->arg >= L->nsym || L->sym[op->arg].kind != LK_SYM_PLAN)
			return "assignment to a symbol that is not a plan symbol";
		return LK_NULL;
	case LK_S_SET_DOT:
		w->has = 1;
		return LK_NULL;
	case LK_S_SECTION:
		if (op->arg >= L->nout || w->cur != LK_NONE || w->seen_os[op->arg] ||
		    (op->flags & ~(LK_SEC_VMA | LK_SEC_ALIGN | LK_SEC_LMA)))
			return "bad, nested or repeated output section";
		w->cur = op->arg;
		w->has = 0;
		w->seen_os[op->arg] = 1;
		return LK_NULL;
	case LK_S_SLOT:
		if (op->arg >= L->nslot || w->cur == LK_NONE ||
		    L->slot[op->arg].outsec != w->cur || w->seen_slot[op->arg])
			return "slot out of range, repeated or outside its section";
		w->seen_slot[op->arg] = 1;
		return LK_NULL;
	case LK_S_DATA:
		if (w->cur == LK_NONE || !lk_is_pow2(op->arg) || op->arg > 8)
			return "data outside a section or bad width";
		w->has = 1;
		return LK_NULL;
	case LK_S_END_SECTION:
		if (w->cur == LK_NONE)
			return "end of section without a section";
		/* Only input sections in it: if they come to nothing, GNU ld
		 * discards it and ignores its address (link_layout.c). */
		L->os_bare[w->cur] = !w->has;
		w->cur = LK_NONE;
		return LK_NULL;
	case LK_S_ASSERT:
		return op->imm < L->nstr ? LK_NULL : "assert message out of range";
	case LK_E_SHIFT:
		return lk_shift_check(L, op, w);
	}
	return LK_NULL;
}

static int lk_check_plan(struct lk_link *L)
{
	struct lk_plan_walk w;
	lk_u32 i;
	int depth = 0, pop, push;
	const char *err = LK_NULL;

	w.cur = LK_NONE;
	w.has = 0;
	w.seen_os = lk_link_alloc(L, L->nout, 1);
	w.seen_slot = lk_link_alloc(L, L->nslot, 1);
	L->os_bare = lk_link_alloc(L, L->nout, 1);
	if (!L->os_bare)
		return 0;
	if (!w.seen_os || !w.seen_slot)
		return 0;
	for (i = 0; i < L->nop && !err; i++) {
		if (!lk_op_effect(&L->plan[i], &pop, &push))
			err = "unknown opcode";
		else if (depth < pop)
			err = "stack underflow";
		else if ((depth = depth - pop + push) > LK_PLAN_STACK_MAX)
			err = "stack overflow";
		else
			err = lk_op_check(L, &L->plan[i], &w);
	}
	if (err) {
		LK_ERR(L, "%s: plan op %u (code 0x%x, arg %u): %s", L->name,
		       i - 1, L->plan[i - 1].code, L->plan[i - 1].arg, err);
		return 0;
	}
	if (w.cur != LK_NONE || depth != 0) {
		LK_ERR(L, "%s: plan ends inside a section or with %d values on "
		       "the stack", L->name, depth);
		return 0;
	}
	for (i = 0; i < L->nslot; i++) {
		if (!w.seen_slot[i]) {
			LK_ERR(L, "%s: slot %u (output section %s) is never "
			       "placed by the plan", L->name, i,
			       lk_str(L, L->outsec[L->slot[i].outsec].name));
			return 0;
		}
	}
	return 1;
}

static lk_u32 lk_max3(lk_u32 a, lk_u32 b, lk_u32 c)
{
	lk_u32 m = a > b ? a : b;

	return m > c ? m : c;
}

static int lk_link_validate(struct lk_link *L)
{
	if (!lk_open_header(L) || !lk_open_tables(L) || !lk_check_objects(L) ||
	    !lk_check_comdats(L) || !lk_check_addends(L) || !lk_check_slots(L) ||
	    !lk_check_outsecs(L) || !lk_check_chunks_syms(L) ||
	    !lk_merge_check(L) || !lk_check_plan(L) ||
	    !lk_linux_kallsyms_open(L))
		return 0;
	L->tmp = lk_link_alloc(L, lk_max3(L->nobj, L->nchunk, L->nout), 4);
	return L->tmp != LK_NULL;
}

int lk_link_open(const struct lk_host *h, const void *payload, lk_u64 size,
		 const char *name, struct lk_link **out)
{
	struct lk_link *L;

	*out = LK_NULL;
	L = h->alloc(h->ctx, sizeof(*L));
	if (!L) {
		lk_log(h, LK_LOG_ERROR, "%s: out of memory", name);
		return LK_ERR_NOMEM;
	}
	lk_memset(L, 0, sizeof(*L));
	L->h = h;
	L->name = name;
	L->base = payload;
	L->size = size;
	L->hdr = payload;
	if (!lk_link_validate(L)) {
		int nomem = L->nomem;

		lk_link_close(L);
		return nomem ? LK_ERR_NOMEM : LK_ERR_FORMAT;
	}
	*out = L;
	return LK_OK;
}

void lk_link_close(struct lk_link *L)
{
	const struct lk_host *h;
	lk_u32 i;

	if (!L)
		return;
	h = L->h;
	for (i = 0; i < L->nallocs; i++) {
		lk_wipe(L->allocs[i].p, L->allocs[i].n);
		h->free(h->ctx, L->allocs[i].p, L->allocs[i].n);
	}
	lk_wipe(L, sizeof(*L));
	h->free(h->ctx, L, sizeof(*L));
}
