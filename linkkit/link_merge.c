/*
 * SHF_MERGE groups. The host decided which pieces survive (that does not
 * depend on the order); the boot side only decides where. As ld.bfd does
 * (binutils merge.c), each surviving piece ("class") stays in the input
 * section where it first occurs in placement order, in first-occurrence
 * order, each aligned to the chunk's alignment; a chunk's size is the end
 * of the last class it brings first, and a chunk that brings none is empty.
 *
 * Kits with LK_PAYLOAD_F_LLD_MERGE (policy `linker lld`) follow ld.lld 14
 * instead (kit_format.h): a group is one block at its first chunk in
 * placement order, its classes in shards, first occurrence within each.
 */
#include "link_internal.h"

#define LK_ERR(L, ...) lk_log((L)->h, LK_LOG_ERROR, __VA_ARGS__)
#define LK_UNSET (~0ull)

static int lk_check_group(struct lk_link *L, lk_u32 g)
{
	const struct lk_merge_group *mg = &L->mgroup[g];
	lk_u64 total = 0;
	lk_u32 c;

	if ((lk_u64)mg->first_class + mg->class_count > L->nmc ||
	    mg->total_size > LK_MAX_SIZE)
		goto bad;
	for (c = mg->first_class; c < mg->first_class + mg->class_count; c++) {
		const struct lk_merge_class *k = &L->mclass[c];

		if (L->class_group[c] != LK_NONE || k->data_off > L->ndata ||
		    L->ndata - k->data_off < k->size)
			goto bad;
		L->class_group[c] = g;
		total += k->size;
	}
	if (total == mg->total_size)
		return 1;
bad:
	LK_ERR(L, "%s: merge group %u: bad class range %u+%u, shared or "
	       "out-of-range class, or size 0x%llx not the sum of its classes",
	       L->name, g, mg->first_class, mg->class_count, mg->total_size);
	return 0;
}

static int lk_check_merge_chunk(struct lk_link *L, lk_u32 i)
{
	const struct lk_chunk *c = &L->chunk[i];
	lk_u32 k;
	int bad = c->mgroup >= L->nmg ||
		  (lk_u64)c->mref_first + c->mref_count > L->nmref;

	for (k = 0; !bad && k < c->mref_count; k++) {
		lk_u32 cls = L->mref[c->mref_first + k];

		bad = cls >= L->nmc || L->class_group[cls] != c->mgroup;
	}
	if (bad)
		LK_ERR(L, "%s: %s(%s): bad merge group %u or piece list %u+%u",
		       L->name, lk_chunk_obj_name(L, i), lk_str(L, c->name),
		       c->mgroup, c->mref_first, c->mref_count);
	return !bad;
}

/* A class stays in the first chunk listing it, so each needs a lister. */
static int lk_check_listed(struct lk_link *L)
{
	lk_u8 *listed = lk_link_alloc(L, L->nmc, 1);
	lk_u32 i, k;

	if (!listed)
		return 0;
	for (i = 0; i < L->nchunk; i++)
		if (L->chunk[i].flags & LK_CHUNK_MERGE)
			for (k = 0; k < L->chunk[i].mref_count; k++)
				listed[L->mref[L->chunk[i].mref_first + k]] = 1;
	for (i = 0; i < L->nmc; i++)
		if (L->class_group[i] != LK_NONE && !listed[i]) {
			LK_ERR(L, "%s: merge class %u (group %u) is listed by "
			       "no chunk", L->name, i, L->class_group[i]);
			return 0;
		}
	return 1;
}

/* Shards exist only in ld.lld's layout. */
static int lk_check_shards(struct lk_link *L, int lld)
{
	lk_u32 i, lim = lld ? LK_MERGE_SHARDS : 1;

	for (i = 0; i < L->nmc; i++)
		if (L->mclass[i].shard >= lim) {
			LK_ERR(L, "%s: merge class %u: shard %u out of range",
			       L->name, i, L->mclass[i].shard);
			return 0;
		}
	return 1;
}

/* What of ld.lld's layout does not depend on the order: the group's
 * alignment (the largest of its chunks', as lld's synthetic section
 * takes), and for `fixed` groups the shard bases and the size. Sizes
 * are below LK_MAX_SIZE and classes below 2^32, so nothing wraps. */
static int lk_lld_open(struct lk_link *L)
{
	lk_u32 i, g;

	L->lld = lk_link_alloc(L, L->nmg, sizeof(*L->lld));
	L->slot_merge = lk_link_alloc(L, L->nslot, 1);
	if (!L->lld || !L->slot_merge)
		return 0;
	for (g = 0; g < L->nmg; g++) {
		L->lld[g].align = 1;
		L->lld[g].fixed = 1;
	}
	for (i = 0; i < L->nchunk; i++) {
		const struct lk_chunk *c = &L->chunk[i];

		if (!(c->flags & LK_CHUNK_MERGE))
			continue;
		L->slot_merge[c->slot] = 1;
		if (c->align > L->lld[c->mgroup].align)
			L->lld[c->mgroup].align = c->align;
	}
	for (i = 0; i < L->nmc; i++) {
		struct lk_lld_group *q = &L->lld[L->class_group[i]];

		if (L->mclass[i].size & (q->align - 1))
			q->fixed = 0;
		q->base[L->mclass[i].shard] += L->mclass[i].size;
	}
	for (g = 0; g < L->nmg; g++) {
		struct lk_lld_group *q = &L->lld[g];
		lk_u64 off = 0, n;

		for (i = 0; q->fixed && i < LK_MERGE_SHARDS; i++) {
			n = q->base[i];
			off = n ? lk_align_up(off, q->align) : off;
			q->base[i] = off;
			off += n;
		}
		q->size = off;
	}
	return 1;
}

int lk_merge_check(struct lk_link *L)
{
	lk_u32 i;
	int lld = (L->hdr->flags & LK_PAYLOAD_F_LLD_MERGE) != 0;

	L->class_group = lk_link_alloc(L, L->nmc, 4);
	if (!L->class_group || !lk_check_shards(L, lld))
		return 0;
	for (i = 0; i < L->nmc; i++)
		L->class_group[i] = LK_NONE;
	for (i = 0; i < L->nmg; i++)
		if (!lk_check_group(L, i))
			return 0;
	for (i = 0; i < L->nchunk; i++)
		if ((L->chunk[i].flags & LK_CHUNK_MERGE) &&
		    !lk_check_merge_chunk(L, i))
			return 0;
	return lk_check_listed(L) && (!lld || lk_lld_open(L));
}

/*
 * ld.lld's layout, before the plan runs (a group's size is needed where
 * its first chunk goes, and depends on all of them): every class gets
 * its owner (the group's first chunk) and offset, walking the merge
 * chunks in placement order. Slots are placed in plan order, each
 * chunk in slot_order.
 */
void lk_merge_lld_layout(struct lk_link *L)
{
	lk_u32 pc, i, k, c, cls, sh, owner;
	lk_u64 a, off, n;

	for (i = 0; i < L->nmg; i++)
		for (sh = 0; sh < LK_MERGE_SHARDS; sh++)
			L->lld[i].cur[sh] =
				L->lld[i].fixed ? L->lld[i].base[sh] : 0;
	for (pc = 0; pc < L->nop; pc++) {
		const struct lk_slot *sl;

		if (L->plan[pc].code != LK_S_SLOT ||
		    !L->slot_merge[L->plan[pc].arg])
			continue;
		sl = &L->slot[L->plan[pc].arg];
		for (i = 0; i < sl->chunk_count; i++) {
			const struct lk_chunk *ch;
			struct lk_lld_group *q;

			c = L->slot_order[sl->first_chunk + i];
			ch = &L->chunk[c];
			if (!(ch->flags & LK_CHUNK_MERGE))
				continue;
			if (L->group_owner[ch->mgroup] == LK_NONE)
				L->group_owner[ch->mgroup] = c;
			owner = L->group_owner[ch->mgroup];
			q = &L->lld[ch->mgroup];
			a = q->align - 1;
			for (k = 0; k < ch->mref_count; k++) {
				cls = L->mref[ch->mref_first + k];
				if (L->class_owner[cls] != LK_NONE)
					continue;
				sh = L->mclass[cls].shard;
				off = (q->cur[sh] + a) & ~a;
				L->class_owner[cls] = owner;
				L->class_off[cls] = off;
				q->cur[sh] = off + L->mclass[cls].size;
			}
		}
	}
	/* Padded pieces: the shard sizes are known only now. */
	for (i = 0; i < L->nmg; i++) {
		struct lk_lld_group *q = &L->lld[i];

		if (q->fixed)
			continue;
		for (sh = 0, off = 0; sh < LK_MERGE_SHARDS; sh++) {
			n = q->cur[sh];
			off = n ? lk_align_up(off, q->align) : off;
			q->base[sh] = off;
			off += n;
		}
		q->size = off;
		k = L->mgroup[i].first_class;
		for (; k < L->mgroup[i].first_class + L->mgroup[i].class_count;
		     k++)
			L->class_off[k] += q->base[L->mclass[k].shard];
	}
}

/* ld.lld: the group's first chunk holds the whole group, the others
 * nothing. */
static lk_u64 lk_lld_place(struct lk_link *L, lk_u32 chunk, lk_u64 *align)
{
	lk_u32 g = L->chunk[chunk].mgroup;

	if (L->group_owner[g] != chunk)
		return 0;
	*align = L->lld[g].align;
	return L->lld[g].size;
}

/* Size of a merge chunk being placed now: the classes it lists that no
 * earlier chunk listed, which it then holds at increasing offsets; align
 * is the chunk's alignment where it holds anything. */
lk_u64 lk_merge_place(struct lk_link *L, lk_u32 chunk, lk_u64 *align)
{
	const struct lk_chunk *c = &L->chunk[chunk];
	lk_u64 run = 0;
	lk_u32 k;

	if (L->lld)
		return lk_lld_place(L, chunk, align);
	*align = c->align;
	if (L->group_owner[c->mgroup] == LK_NONE)
		L->group_owner[c->mgroup] = chunk;
	for (k = 0; k < c->mref_count; k++) {
		lk_u32 cls = L->mref[c->mref_first + k];

		if (L->class_owner[cls] != LK_NONE)
			continue;
		/* ld.bfd aligns every piece to its section's alignment,
		 * which all chunks of a group share. */
		run = lk_align_up(run, c->align);
		L->class_owner[cls] = chunk;
		L->class_off[cls] = run;
		run += L->mclass[cls].size;
	}
	return run;
}

/* Every class is listed by some chunk (lk_merge_check), so placement has
 * given each one its place already. */
void lk_merge_offsets(struct lk_link *L)
{
	(void)L;
}

/* ld.lld's block: padding between pieces and shards is zero (lld writes
 * the pieces into a zeroed buffer and fills only between sections). */
static void lk_lld_write(const struct lk_link *L, lk_u32 chunk, lk_u8 *dst)
{
	lk_u32 g = L->chunk[chunk].mgroup, k;
	const struct lk_merge_group *mg = &L->mgroup[g];

	if (L->group_owner[g] != chunk)
		return;
	if (L->lld[g].align > 1)
		lk_memset(dst, 0, (lk_size)L->lld[g].size);
	for (k = mg->first_class; k < mg->first_class + mg->class_count; k++)
		lk_memcpy(dst + L->class_off[k],
			  L->data + L->mclass[k].data_off, L->mclass[k].size);
}

void lk_merge_write(const struct lk_link *L, lk_u32 chunk, lk_u8 *dst)
{
	const struct lk_chunk *c = &L->chunk[chunk];
	lk_u32 k;

	if (L->lld) {
		lk_lld_write(L, chunk, dst);
		return;
	}
	for (k = 0; k < c->mref_count; k++) {
		lk_u32 cls = L->mref[c->mref_first + k];

		if (L->class_owner[cls] == chunk)
			lk_memcpy(dst + L->class_off[cls],
				  L->data + L->mclass[cls].data_off,
				  L->mclass[cls].size);
	}
}
