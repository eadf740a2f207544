/*
 * lk_link_layout: picks the object order and gap sizes from the generator,
 * orders each slot's chunks, runs the plan (GNU ld's rules for dot, VMA and
 * LMA) and resolves every symbol. Nothing here logs the layout except
 * lk_link_dump_layout, at debug level.
 */
#include "link_internal.h"

#define LK_ERR(L, ...) lk_log((L)->h, LK_LOG_ERROR, __VA_ARGS__)

/* GNU ld's align_n: alignments 0 and 1 leave the value alone. Wraps like
 * ld's bfd_vma; callers that place things check for wrap-around. */
lk_u64 lk_align_up(lk_u64 v, lk_u64 a)
{
	lk_u64 rem;

	if (a <= 1)
		return v;
	if (lk_is_pow2(a))
		return (v + a - 1) & ~(a - 1);
	lk_udivmod64(v, a, &rem);
	return rem ? v + (a - rem) : v;
}

/* Bottom-up merge sort: stable and O(n log n) without recursion. */
void lk_stable_sort(lk_u32 *v, lk_u32 *tmp, lk_u32 n,
		    int (*less)(const void *ctx, lk_u32 a, lk_u32 b),
		    const void *ctx)
{
	lk_u32 w, lo, i, j, k, mid, hi;

	for (w = 1; w < n; w = w > n / 2 ? n : w * 2) {
		for (lo = 0; lo < n - w; lo += 2 * w) {
			mid = lo + w;
			hi = n - mid > w ? mid + w : n;
			i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] = less(ctx, v[j], v[i]) ? v[j++] : v[i++];
			while (i < mid)
				tmp[k++] = v[i++];
			while (j < hi)
				tmp[k++] = v[j++];
			lk_memcpy(v + lo, tmp + lo, (hi - lo) * sizeof(*v));
			if (hi == n)
				break;
		}
	}
}

static int lk_less_pin(const void *ctx, lk_u32 a, lk_u32 b)
{
	const struct lk_link *L = ctx;

	return L->obj[a].pin_rank < L->obj[b].pin_rank;
}

static int lk_less_align(const void *ctx, lk_u32 a, lk_u32 b)
{
	const struct lk_link *L = ctx;

	return L->chunk[a].align > L->chunk[b].align;
}

static int lk_less_name(const void *ctx, lk_u32 a, lk_u32 b)
{
	const struct lk_link *L = ctx;

	return L->chunk[a].sort_key < L->chunk[b].sort_key;
}

static int lk_layout_alloc(struct lk_link *L)
{
	if (L->order)
		return 1; /* a second layout reuses the arrays */
	L->order = lk_link_alloc(L, L->nobj, 4);
	L->obj_pos = lk_link_alloc(L, L->nobj, 4);
	L->slot_order = lk_link_alloc(L, L->nchunk, 4);
	L->pos_start = lk_link_alloc(L, (lk_u64)L->nobj + 1, 4);
	L->slot_fill = lk_link_alloc(L, L->nslot, 4);
	L->comdat_win = lk_link_alloc(L, L->ncomdat, 4);
	L->chunk_dead = lk_link_alloc(L, L->nchunk, 1);
	L->chunk_vma = lk_link_alloc(L, L->nchunk, 8);
	L->chunk_size = lk_link_alloc(L, L->nchunk, 8);
	L->group_owner = lk_link_alloc(L, L->nmg, 4);
	L->group_run = lk_link_alloc(L, L->nmg, 8);
	L->class_off = lk_link_alloc(L, L->nmc, 8);
	L->class_owner = lk_link_alloc(L, L->nmc, 4);
	L->sym_val = lk_link_alloc(L, L->nsym, 8);
	L->sym_sec = lk_link_alloc(L, L->nsym, 4);
	L->sym_known = lk_link_alloc(L, L->nsym, 1);
	L->slot_done = lk_link_alloc(L, L->nslot, 1);
	L->os = lk_link_alloc(L, L->nout, sizeof(struct lk_os));
	L->os_seq = lk_link_alloc(L, L->nout, 4);
	L->os_tmp = lk_link_alloc(L, L->nout, 8);
	L->item = lk_link_alloc(L, (lk_u64)L->nchunk + L->nop,
				sizeof(struct lk_item));
	return L->order && L->obj_pos && L->slot_order && L->pos_start &&
	       L->slot_fill && L->comdat_win && L->chunk_dead &&
	       L->chunk_vma && L->chunk_size &&
	       L->group_owner && L->group_run && L->class_off &&
	       L->class_owner && L->sym_val && L->sym_sec && L->sym_known &&
	       L->slot_done && L->os && L->os_seq && L->os_tmp && L->item;
}

static void lk_layout_reset(struct lk_link *L)
{
	lk_u32 i;

	lk_memset(L->sym_known, 0, L->nsym);
	lk_memset(L->slot_done, 0, L->nslot);
	lk_memset(L->os, 0, L->nout * sizeof(*L->os));
	lk_memset(L->group_run, 0, L->nmg * sizeof(*L->group_run));
	for (i = 0; i < L->nmg; i++)
		L->group_owner[i] = LK_NONE;
	for (i = 0; i < L->nmc; i++)
		L->class_owner[i] = LK_NONE;
	for (i = 0; i < L->nsym; i++)
		L->sym_sec[i] = LK_NONE;
	L->nitem = 0;
	L->nseq = 0;
	L->laid_out = 0;
}

/* Pinned objects by rank, then the gap object(s), then a permutation. */
static void lk_order_objects(struct lk_link *L, struct lk_rng *rng)
{
	lk_u32 i, n = 0, npin, nfixed;

	for (i = 0; i < L->nobj; i++)
		if (L->obj[i].pin_rank)
			L->order[n++] = i;
	npin = n;
	lk_stable_sort(L->order, L->tmp, npin, lk_less_pin, L);
	for (i = 0; i < L->nobj; i++)
		if (!L->obj[i].pin_rank && (L->obj[i].flags & LK_OBJ_GAP))
			L->order[n++] = i;
	nfixed = n;
	for (i = 0; i < L->nobj; i++)
		if (!L->obj[i].pin_rank && !(L->obj[i].flags & LK_OBJ_GAP))
			L->order[n++] = i;
	if (!L->canonical)
		lk_shuffle_u32(rng, L->order + nfixed, n - nfixed);
	for (i = 0; i < n; i++)
		L->obj_pos[L->order[i]] = i;
}

/* GNU ld keeps the copy of a COMDAT group it meets first on its command
 * line: here, the copy whose object comes first in the order. */
static void lk_choose_comdats(struct lk_link *L)
{
	lk_u32 i, g, w;

	if (L->ncomdat == 0)
		return; /* chunk_dead stays all zero */
	for (i = 0; i < L->ncomdat; i++)
		L->comdat_win[i] = LK_NONE;
	for (i = 0; i < L->nchunk; i++) {
		if (!L->chunk[i].comdat)
			continue;
		g = L->chunk[i].comdat - 1;
		w = L->comdat_win[g];
		if (w == LK_NONE ||
		    L->obj_pos[L->chunk[i].object] < L->obj_pos[w])
			L->comdat_win[g] = L->chunk[i].object;
	}
	for (i = 0; i < L->nchunk; i++)
		L->chunk_dead[i] = L->chunk[i].comdat &&
				   L->comdat_win[L->chunk[i].comdat - 1] !=
					   L->chunk[i].object;
}

/* Does candidate a beat b? As GNU ld resolves names: a definition beats a
 * weak one whatever the order, otherwise the first in the order wins. */
static int lk_alt_beats(const struct lk_link *L, lk_u32 a, lk_u32 b)
{
	int wa = L->sym[a].bind == LK_STB_WEAK,
	    wb = L->sym[b].bind == LK_STB_WEAK;

	if (wa != wb)
		return wb;
	return L->obj_pos[L->chunk[L->sym[a].ref].object] <
	       L->obj_pos[L->chunk[L->sym[b].ref].object];
}

/* Candidates in dead COMDAT copies are undefined, as in ld. Computed
 * when asked: ALT symbols are few, and a pass over every symbol is not. */
lk_u32 lk_alt_pick(const struct lk_link *L, lk_u32 s)
{
	const struct lk_symbol *y = &L->sym[s];
	lk_u32 k, best = LK_NONE;

	for (k = y->ref; k < y->ref + y->value; k++)
		if (!L->chunk_dead[L->sym[k].ref] &&
		    (best == LK_NONE || lk_alt_beats(L, k, best)))
			best = k;
	return best;
}

static void lk_choose_gaps(struct lk_link *L, struct lk_rng *rng)
{
	lk_u32 i;
	lk_u64 steps;

	for (i = 0; i < L->nchunk; i++) {
		const struct lk_chunk *c = &L->chunk[i];

		L->chunk_size[i] = L->chunk_dead[i] ? 0 : c->size;
		if (!(c->flags & LK_CHUNK_GAP))
			continue;
		steps = lk_udivmod64(c->size, c->align, LK_NULL);
		L->chunk_size[i] = steps && !L->canonical
					   ? lk_rng_below(rng, steps) * c->align
					   : 0;
	}
}

/* Drawn even when none is wanted, so that the rest of a layout does not
 * depend on lk_link_set_no_shift. */
static void lk_choose_shift(struct lk_link *L, struct lk_rng *rng)
{
	lk_u64 k = 0;

	if (L->shift_step && !L->canonical)
		k = lk_rng_below(rng, (lk_u64)L->shift_steps + 1);
	L->shift = L->no_shift ? 0 : k * L->shift_step;
}

static int lk_chunk_fixed(const struct lk_link *L, lk_u32 c)
{
	const struct lk_object *o = &L->obj[L->chunk[c].object];

	return o->pin_rank != 0 || (o->flags & LK_OBJ_GAP) != 0;
}

/*
 * Every chunk by object position (ties by index), with one counting sort
 * instead of a comparison sort per slot; dealt out to the slots in that
 * order, each slot gets its chunks stably sorted by position. The slots
 * partition the chunk table (lk_link_open).
 */
static void lk_sort_by_pos(struct lk_link *L)
{
	lk_u32 *start = L->pos_start, *all = L->tmp;
	lk_u32 c, p, s;

	lk_memset(start, 0, ((lk_size)L->nobj + 1) * sizeof(*start));
	for (c = 0; c < L->nchunk; c++)
		start[L->obj_pos[L->chunk[c].object] + 1]++;
	for (p = 0; p < L->nobj; p++)
		start[p + 1] += start[p];
	for (c = 0; c < L->nchunk; c++)
		all[start[L->obj_pos[L->chunk[c].object]]++] = c;
	lk_memset(L->slot_fill, 0, (lk_size)L->nslot * sizeof(*L->slot_fill));
	for (p = 0; p < L->nchunk; p++) {
		c = all[p];
		s = L->chunk[c].slot;
		L->slot_order[L->slot[s].first_chunk + L->slot_fill[s]++] = c;
	}
}

static void lk_order_slot(struct lk_link *L, lk_u32 s, struct lk_rng *rng)
{
	const struct lk_slot *sl = &L->slot[s];
	lk_u32 *v = L->slot_order + sl->first_chunk;
	lk_u32 i, n = sl->chunk_count, nfixed = 0;

	if (sl->flags & LK_SLOT_CANONICAL)
		for (i = 0; i < n; i++)
			v[i] = sl->first_chunk + i;
	if ((sl->flags & LK_SLOT_SHUFFLE) && !L->canonical) {
		while (nfixed < n && lk_chunk_fixed(L, v[nfixed]))
			nfixed++;
		lk_shuffle_u32(rng, v + nfixed, n - nfixed);
	}
	/* Name first so that, when both are given, alignment is primary. */
	if (sl->flags & LK_SLOT_SORT_NAME)
		lk_stable_sort(v, L->tmp, n, lk_less_name, L);
	if (sl->flags & LK_SLOT_SORT_ALIGN)
		lk_stable_sort(v, L->tmp, n, lk_less_align, L);
}

lk_u32 lk_sym_outsec(const struct lk_link *L, lk_u32 s)
{
	const struct lk_symbol *y = &L->sym[s];
	lk_u32 owner;

	if (y->kind == LK_SYM_ALT) {
		s = lk_alt_pick(L, s);
		if (s == LK_NONE)
			return LK_NONE;
		y = &L->sym[s];
	}
	switch (y->kind) {
	case LK_SYM_CHUNK:
		return L->slot[L->chunk[y->ref].slot].outsec;
	case LK_SYM_OUTSEC_START:
	case LK_SYM_OUTSEC_END:
		return y->ref;
	case LK_SYM_PLAN:
		return L->sym_sec[s];
	case LK_SYM_MERGE:
		owner = L->class_owner[y->ref];
		return owner == LK_NONE ? LK_NONE : L->slot[L->chunk[owner].slot].outsec;
	}
	return LK_NONE;
}

lk_u64 lk_chunk_lma(const struct lk_link *L, lk_u32 c)
{
	const struct lk_os *o = &L->os[L->slot[L->chunk[c].slot].outsec];

	return L->chunk_vma[c] + (o->lma - o->vma);
}

/* The value of a symbol as far as the layout has got; 0 if not yet known.
 * Merge symbols are known only once the whole plan has run. */
static int lk_sym_now(const struct lk_link *L, lk_u32 s, int final, lk_u64 *v)
{
	const struct lk_symbol *y = &L->sym[s];
	lk_u32 owner;

	if (y->kind == LK_SYM_ALT) {
		s = lk_alt_pick(L, s);
		if (s == LK_NONE)
			return 0;
		y = &L->sym[s];
	}
	switch (y->kind) {
	case LK_SYM_CHUNK:
		if (!L->slot_done[L->chunk[y->ref].slot] ||
		    L->chunk_dead[y->ref])
			return 0;
		*v = L->chunk_vma[y->ref] + y->value;
		return 1;
	case LK_SYM_ABS:
		*v = y->value;
		return 1;
	case LK_SYM_PLAN:
		*v = L->sym_val[s];
		return L->sym_known[s];
	case LK_SYM_OUTSEC_START:
		*v = L->os[y->ref].vma;
		return L->os[y->ref].state != LK_OS_UNSEEN;
	case LK_SYM_OUTSEC_END:
		*v = L->os[y->ref].vma + L->os[y->ref].size;
		return L->os[y->ref].state == LK_OS_DONE;
	case LK_SYM_MERGE:
		owner = L->class_owner[y->ref];
		if (!final || owner == LK_NONE)
			return 0;
		*v = L->chunk_vma[owner] + L->class_off[y->ref] + y->value;
		return 1;
	}
	return 0;
}

struct lk_eval {
	lk_u64 stack[LK_PLAN_STACK_MAX];
	int sp;
	lk_u64 dot;
	lk_u64 prev_off; /* LMA - VMA of the previous output section */
	lk_u64 dot_before; /* dot before the open section began */
	lk_u32 cur;
	lk_u32 pc;
};

static lk_u64 lk_pop(struct lk_eval *e)
{
	return e->stack[--e->sp];
}

static int lk_eval_fail(struct lk_link *L, struct lk_eval *e, const char *what,
			const char *name)
{
	LK_ERR(L, "%s: linker script (plan op %u): %s%s%s%s", L->name, e->pc,
	       what, name ? " '" : "", name ? name : "", name ? "'" : "");
	return 0;
}

static int lk_eval_binary(struct lk_link *L, struct lk_eval *e, lk_u16 code)
{
	lk_u64 b = lk_pop(e), a = lk_pop(e), r = 0;

	switch (code) {
	case LK_E_ALIGN2: r = lk_align_up(a, b); break;
	case LK_E_ADD: r = a + b; break;
	case LK_E_SUB: r = a - b; break;
	case LK_E_MUL: r = a * b; break;
	case LK_E_DIV: case LK_E_MOD:
		if (b == 0)
			return lk_eval_fail(L, e, "division by zero", LK_NULL);
		r = lk_udivmod64(a, b, &b);
		if (code == LK_E_MOD)
			r = b;
		break;
	case LK_E_AND: r = a & b; break;
	case LK_E_OR: r = a | b; break;
	case LK_E_XOR: r = a ^ b; break;
	case LK_E_SHL: r = b >= 64 ? 0 : a << b; break;
	case LK_E_SHR: r = b >= 64 ? 0 : a >> b; break;
	case LK_E_LT: r = a < b; break;
	case LK_E_LE: r = a <= b; break;
	case LK_E_GT: r = a > b; break;
	case LK_E_GE: r = a >= b; break;
	case LK_E_EQ: r = a == b; break;
	case LK_E_NE: r = a != b; break;
	case LK_E_LAND: r = a && b; break;
	case LK_E_LOR: r = a || b; break;
	case LK_E_MAX: r = a > b ? a : b; break;
	case LK_E_MIN: r = a < b ? a : b; break;
	}
	e->stack[e->sp++] = r;
	return 1;
}

/* Operands that name an output section need it placed (or ended). */
static int lk_eval_outsec(struct lk_link *L, struct lk_eval *e,
			  const struct lk_op *op, lk_u64 *v)
{
	const struct lk_os *o = &L->os[op->arg];
	const char *n = lk_str(L, L->outsec[op->arg].name);

	if (o->state == LK_OS_UNSEEN ||
	    (op->code == LK_E_SIZEOF && o->state != LK_OS_DONE))
		return lk_eval_fail(L, e, "output section used before it is "
				    "placed:", n);
	switch (op->code) {
	case LK_E_ADDR: *v = o->vma; break;
	case LK_E_LOADADDR: *v = o->lma; break;
	case LK_E_SIZEOF: *v = o->size; break;
	default: *v = o->align; break;
	}
	return 1;
}

static int lk_eval_expr(struct lk_link *L, struct lk_eval *e,
			const struct lk_op *op)
{
	lk_u64 v = 0, a, b, c;

	switch (op->code) {
	case LK_E_CONST: v = op->imm; break;
	case LK_E_SHIFT: v = L->shift; break;
	case LK_E_DOT: v = e->dot; break;
	case LK_E_SYM:
		if (!lk_sym_now(L, op->arg, 0, &v)) {
			char label[LK_SYM_LABEL];

			return lk_eval_fail(L, e, "symbol used before it is "
					    "defined:", lk_sym_label(L, op->arg, label));
		}
		break;
	case LK_E_ADDR: case LK_E_LOADADDR: case LK_E_SIZEOF: case LK_E_ALIGNOF:
		if (!lk_eval_outsec(L, e, op, &v))
			return 0;
		break;
	case LK_E_ALIGN: v = lk_align_up(e->dot, lk_pop(e)); break;
	case LK_E_NEG: v = 0 - lk_pop(e); break;
	case LK_E_NOT: v = ~lk_pop(e); break;
	case LK_E_LNOT: v = !lk_pop(e); break;
	case LK_E_COND:
		b = lk_pop(e), a = lk_pop(e), c = lk_pop(e);
		v = c ? a : b;
		break;
	default:
		return lk_eval_binary(L, e, op->code);
	}
	e->stack[e->sp++] = v;
	return 1;
}

/* Moves dot forward inside the open section, refusing to wrap. */
static int lk_advance(struct lk_link *L, struct lk_eval *e, lk_u64 to)
{
	const struct lk_os *o = &L->os[e->cur];

	if (to < e->dot)
		return lk_eval_fail(L, e, "'. =' moves the location counter "
				    "backwards in section",
				    lk_str(L, L->outsec[e->cur].name));
	if (to - o->vma > LK_MAX_SIZE)
		return lk_eval_fail(L, e, "address overflow or section too "
				    "large:", lk_str(L, L->outsec[e->cur].name));
	e->dot = to;
	return 1;
}

/* Internal growth (chunks, data, alignment) that wraps is an overflow,
 * not a script moving dot backwards. */
static int lk_grow(struct lk_link *L, struct lk_eval *e, lk_u64 to)
{
	if (to < e->dot)
		return lk_eval_fail(L, e, "address overflow or section too "
				    "large:", lk_str(L, L->outsec[e->cur].name));
	return lk_advance(L, e, to);
}

static int lk_add_item(struct lk_link *L, struct lk_eval *e, lk_u16 kind,
		       lk_u32 chunk, lk_u16 width, lk_u64 value)
{
	struct lk_item *it = &L->item[L->nitem++];

	it->vma = e->dot;
	it->value = value;
	it->outsec = e->cur;
	it->kind = kind;
	it->width = width;
	it->chunk = chunk;
	return lk_grow(L, e, e->dot + (kind == LK_ITEM_CHUNK ?
				       L->chunk_size[chunk] : width));
}

static int lk_place_slot(struct lk_link *L, struct lk_eval *e, lk_u32 s)
{
	const struct lk_slot *sl = &L->slot[s];
	lk_u64 align;
	lk_u32 i, c;

	for (i = 0; i < sl->chunk_count; i++) {
		c = L->slot_order[sl->first_chunk + i];
		/* A discarded COMDAT copy takes no room and no alignment. */
		align = L->chunk_dead[c] ? 1 : L->chunk[c].align;
		if (L->chunk[c].flags & LK_CHUNK_MERGE) {
			L->chunk_size[c] = lk_merge_place(L, c, &align);
			/* ld.bfd excludes a merge section left empty, and
			 * ld.lld's synthetic section replaces all but one:
			 * neither aligns the location counter. */
			if (L->chunk_size[c] == 0)
				align = 1;
		}
		if (!lk_grow(L, e, lk_align_up(e->dot, align)))
			return 0;
		L->chunk_vma[c] = e->dot;
		if (!lk_add_item(L, e, LK_ITEM_CHUNK, c, 0, 0))
			return 0;
	}
	L->slot_done[s] = 1;
	return 1;
}

static int lk_begin_section(struct lk_link *L, struct lk_eval *e,
			    const struct lk_op *op)
{
	struct lk_os *o = &L->os[op->arg];
	lk_u64 vma = 0, align = L->outsec[op->arg].align, lma = 0, a;

	if (op->flags & LK_SEC_LMA)
		lma = lk_pop(e);
	if (op->flags & LK_SEC_ALIGN) {
		a = lk_pop(e);
		if (!lk_is_pow2(a) || a > LK_MAX_SIZE)
			return lk_eval_fail(L, e, "bad ALIGN() of section",
					    lk_str(L, L->outsec[op->arg].name));
		align = a > align ? a : align;
	}
	if (op->flags & LK_SEC_VMA)
		vma = lk_pop(e);
	else if ((vma = lk_align_up(e->dot, align)) < e->dot)
		return lk_eval_fail(L, e, "address overflow at section",
				    lk_str(L, L->outsec[op->arg].name));
	if (!(op->flags & LK_SEC_LMA))
		lma = (op->flags & LK_SEC_VMA) ? vma : vma + e->prev_off;
	o->vma = vma;
	o->lma = lma;
	o->align = align;
	o->state = LK_OS_OPEN;
	L->os_seq[L->nseq++] = op->arg;
	e->cur = op->arg;
	e->dot_before = e->dot;
	e->dot = vma;
	return 1;
}

static void lk_end_section(struct lk_link *L, struct lk_eval *e)
{
	struct lk_os *o = &L->os[e->cur];

	o->size = e->dot - o->vma;
	o->state = LK_OS_DONE;
	/* GNU ld (2.40) discards a section whose input sections are all
	 * empty and that has no data or `. =`, and ignores its address
	 * (symbols assigned inside keep their values). */
	if (L->os_bare[e->cur] && o->size == 0 &&
	    !(L->outsec[e->cur].oflags & LK_OUTSEC_KEEP_EMPTY))
		e->dot = e->dot_before;
	else
		e->prev_off = o->lma - o->vma;
	e->cur = LK_NONE;
}

static int lk_eval_stmt(struct lk_link *L, struct lk_eval *e,
			const struct lk_op *op)
{
	lk_u64 v;

	switch (op->code) {
	case LK_S_SET_DOT:
		v = lk_pop(e);
		if (e->cur == LK_NONE)
			e->dot = v;
		return e->cur == LK_NONE || lk_advance(L, e, v);
	case LK_S_ASSIGN:
		L->sym_val[op->arg] = lk_pop(e);
		L->sym_known[op->arg] = 1;
		L->sym_sec[op->arg] = e->cur;
		return 1;
	case LK_S_SECTION:
		return lk_begin_section(L, e, op);
	case LK_S_SLOT:
		return lk_place_slot(L, e, op->arg);
	case LK_S_DATA:
		v = lk_pop(e);
		return lk_add_item(L, e, LK_ITEM_DATA, LK_NONE,
				   (lk_u16)op->arg, v);
	case LK_S_END_SECTION:
		lk_end_section(L, e);
		return 1;
	case LK_S_ASSERT:
		if (lk_pop(e) == 0)
			return lk_eval_fail(L, e, "ASSERT failed:",
					    lk_str(L, (lk_u32)op->imm));
		return 1;
	}
	return lk_eval_expr(L, e, op);
}

static int lk_run_plan(struct lk_link *L)
{
	struct lk_eval e;
	int ok = 1;

	lk_memset(&e, 0, sizeof(e));
	e.cur = LK_NONE;
	/* lk_link_open proved the stack depth and nesting of every op. */
	for (e.pc = 0; e.pc < L->nop && ok; e.pc++)
		ok = lk_eval_stmt(L, &e, &L->plan[e.pc]);
	lk_wipe(&e, sizeof(e));
	return ok;
}

/*
 * Nearly all symbols are offsets in a chunk or in a merged string (the
 * OpenBSD kit: 55,330 and 101,963 of 157,333): they take a short path,
 * with the chunk's liveness (its slot placed, its COMDAT copy kept)
 * looked up once per chunk into the sort scratch, and the arrays in
 * locals (with -fno-strict-aliasing every store would reload them).
 * The results are lk_sym_now's.
 */
static int lk_resolve_symbols(struct lk_link *L)
{
	const struct lk_symbol *y = L->sym;
	const lk_u64 *cvma = L->chunk_vma, *coff = L->class_off;
	const lk_u32 *cown = L->class_owner;
	lk_u64 *val = L->sym_val, v;
	lk_u8 *known = L->sym_known;
	lk_u32 *live = L->tmp, i, n = L->nsym, owner;

	for (i = 0; i < L->nchunk; i++)
		live[i] = L->slot_done[L->chunk[i].slot] && !L->chunk_dead[i];
	for (i = 0; i < n; i++, y++) {
		if (y->kind == LK_SYM_CHUNK) {
			if (live[y->ref]) {
				val[i] = cvma[y->ref] + y->value;
				known[i] = 1;
			}
		} else if (y->kind == LK_SYM_MERGE) {
			owner = cown[y->ref];
			if (owner != LK_NONE) {
				val[i] = cvma[owner] + coff[y->ref] + y->value;
				known[i] = 1;
			}
		} else if (lk_sym_now(L, i, 1, &v)) {
			val[i] = v;
			known[i] = 1;
		}
	}
	return 1;
}

static int lk_less_lma(const void *ctx, lk_u32 a, lk_u32 b)
{
	const struct lk_link *L = ctx;

	return L->os[a].lma < L->os[b].lma;
}

/* The load range, and no two output sections may share load bytes. */
static int lk_load_range(struct lk_link *L)
{
	lk_u32 i, n = 0, a, b;
	lk_u32 *v = L->os_tmp, *scratch = L->os_tmp + L->nout;

	for (i = 0; i < L->nseq; i++) {
		a = L->os_seq[i];
		L->os[a].shndx = 0;
		if (L->os[a].size == 0)
			continue;
		if (L->os[a].lma + L->os[a].size < L->os[a].lma) {
			LK_ERR(L, "%s: output section %s: load address wraps",
			       L->name, lk_str(L, L->outsec[a].name));
			return 0;
		}
		L->os[a].shndx = ++n;
		v[n - 1] = a;
	}
	L->nemit = n;
	if (n == 0) {
		LK_ERR(L, "%s: the linked image is empty", L->name);
		return 0;
	}
	lk_stable_sort(v, scratch, n, lk_less_lma, L);
	L->load_lo = L->os[v[0]].lma;
	L->load_hi = 0;
	for (i = 0; i < n; i++) {
		a = v[i];
		if (i > 0) {
			b = v[i - 1];
			if (L->os[a].lma < L->os[b].lma + L->os[b].size) {
				LK_ERR(L, "%s: output sections %s and %s overlap "
				       "in load memory", L->name,
				       lk_str(L, L->outsec[b].name),
				       lk_str(L, L->outsec[a].name));
				return 0;
			}
		}
		if (L->os[a].lma + L->os[a].size > L->load_hi)
			L->load_hi = L->os[a].lma + L->os[a].size;
	}
	if (!lk_link_headers(L))
		return 0;
	if (L->load_hi - L->load_lo > LK_MAX_SIZE) {
		LK_ERR(L, "%s: the linked image spans 0x%llx bytes (too large)",
		       L->name, L->load_hi - L->load_lo);
		return 0;
	}
	return 1;
}

/* The placed, non-empty output section whose virtual (or, with lma,
 * load) addresses hold a, or LK_NONE. */
static lk_u32 lk_os_at(const struct lk_link *L, lk_u64 a, int lma)
{
	lk_u32 i;

	for (i = 0; i < L->nseq; i++) {
		const struct lk_os *q = &L->os[L->os_seq[i]];
		lk_u64 base = lma ? q->lma : q->vma;

		if (a >= base && a - base < q->size)
			return L->os_seq[i];
	}
	return LK_NONE;
}

/* An entry outside every output section (an absolute 0, say) would be a
 * jump into memory the image does not hold: refused, as the fallback
 * loader refuses an entry outside every PT_LOAD. A load address counts:
 * Linux's ENTRY(phys_startup_64) is one. */
static int lk_entry(struct lk_link *L)
{
	lk_u32 s = L->hdr->entry_sym, o;
	char label[LK_SYM_LABEL];

	if (!L->sym_known[s]) {
		LK_ERR(L, "%s: entry symbol '%s' is undefined", L->name,
		       lk_sym_label(L, s, label));
		return 0;
	}
	L->entry_vma = L->sym_val[s];
	L->entry_lma = L->entry_vma;
	if (lk_os_at(L, L->entry_vma, 0) == LK_NONE &&
	    lk_os_at(L, L->entry_vma, 1) == LK_NONE) {
		LK_ERR(L, "%s: entry symbol '%s' at 0x%llx lies outside every "
		       "output section", L->name, lk_sym_label(L, s, label),
		       L->entry_vma);
		return 0;
	}
	o = lk_sym_outsec(L, s);
	if (o == LK_NONE)
		o = lk_os_at(L, L->entry_vma, 0);
	if (o != LK_NONE && L->os[o].state == LK_OS_DONE)
		L->entry_lma = L->entry_vma + (L->os[o].lma - L->os[o].vma);
	return 1;
}

int lk_link_layout(struct lk_link *L, struct lk_rng *rng)
{
	if (!lk_layout_alloc(L))
		return LK_ERR_NOMEM;
	lk_layout_reset(L);
	lk_order_objects(L, rng);
	lk_choose_comdats(L);
	lk_choose_gaps(L, rng);
	lk_sort_by_pos(L);
	for (lk_u32 s = 0; s < L->nslot; s++)
		lk_order_slot(L, s, rng);
	lk_choose_shift(L, rng);
	if (L->lld)
		lk_merge_lld_layout(L);
	if (!lk_run_plan(L))
		return LK_ERR_LINK;
	lk_merge_offsets(L);
	if (!lk_resolve_symbols(L) || !lk_load_range(L) || !lk_entry(L))
		return LK_ERR_LINK;
	L->laid_out = 1;
	return LK_OK;
}

void lk_link_set_canonical(struct lk_link *L)
{
	L->canonical = 1;
}

void lk_link_set_no_shift(struct lk_link *L)
{
	L->no_shift = 1;
}

int lk_link_sym_value(const struct lk_link *L, lk_u32 sym, lk_u64 *value)
{
	if (!L->laid_out || sym >= L->nsym || !L->sym_known[sym])
		return 0;
	*value = L->sym_val[sym];
	return 1;
}

void lk_link_info(const struct lk_link *L, struct lk_image_info *out)
{
	lk_memset(out, 0, sizeof(*out));
	out->protocol = L->hdr->protocol;
	out->nphdrs = L->nphdr;
	if (!L->laid_out)
		return;
	out->load_lo = L->load_lo;
	out->load_hi = L->load_hi;
	out->entry_vma = L->entry_vma;
	out->entry_lma = L->entry_lma;
	out->noutsecs = L->nemit;
	out->flags = L->hdr_phdr != LK_NONE ? LK_IMAGE_HEADERS : 0;
}

void lk_link_dump_layout(const struct lk_link *L, int level)
{
	lk_u32 i;

	/* Never below debug: these lines reveal the layout. */
	if (level < LK_LOG_DEBUG)
		level = LK_LOG_DEBUG;
	if (!L->laid_out)
		return;
	for (i = 0; i < L->nobj; i++)
		lk_log(L->h, level, "object %s", lk_str(L, L->obj[L->order[i]].name));
	for (i = 0; i < L->nchunk; i++)
		if (L->chunk[i].flags & LK_CHUNK_GAP)
			lk_log(L->h, level, "gap %s %llu",
			       lk_str(L, L->chunk[i].name), L->chunk_size[i]);
	if (L->shift_step)
		lk_log(L->h, level, "base-shift 0x%llx", L->shift);
}
