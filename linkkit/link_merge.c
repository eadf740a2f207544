/*
 * SHF_MERGE groups. The host decided which pieces survive (that does not
 * depend on the order); the boot side only decides where: the first chunk
 * of a group in placement order carries the merged bytes, and classes get
 * offsets in order of first reference in placement order, as GNU ld does.
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

int lk_merge_check(struct lk_link *L)
{
	lk_u32 i;

	L->class_group = lk_link_alloc(L, L->nmc, 4);
	if (!L->class_group)
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
	return 1;
}

/* Size of a merge chunk being placed now: the whole group for the first. */
lk_u64 lk_merge_place(struct lk_link *L, lk_u32 chunk)
{
	lk_u32 g = L->chunk[chunk].mgroup;

	if (L->group_owner[g] != LK_NONE)
		return 0;
	L->group_owner[g] = chunk;
	return L->mgroup[g].total_size;
}

static void lk_class_assign(struct lk_link *L, lk_u32 cls)
{
	lk_u32 g = L->class_group[cls];

	if (L->class_off[cls] != LK_UNSET)
		return;
	L->class_off[cls] = L->group_run[g];
	L->group_run[g] += L->mclass[cls].size;
}

void lk_merge_offsets(struct lk_link *L)
{
	lk_u32 i, k;

	for (i = 0; i < L->nmc; i++)
		L->class_off[i] = LK_UNSET;
	for (i = 0; i < L->nitem; i++) {
		const struct lk_chunk *c;

		if (L->item[i].kind != LK_ITEM_CHUNK)
			continue;
		c = &L->chunk[L->item[i].chunk];
		if (!(c->flags & LK_CHUNK_MERGE))
			continue;
		for (k = 0; k < c->mref_count; k++)
			lk_class_assign(L, L->mref[c->mref_first + k]);
	}
	/* Pieces no chunk lists still take their place, after the others,
	 * so the group's size stays the sum of its classes. */
	for (i = 0; i < L->nmc; i++)
		if (L->class_group[i] != LK_NONE)
			lk_class_assign(L, i);
}

void lk_merge_write(const struct lk_link *L, lk_u32 g, lk_u8 *dst)
{
	const struct lk_merge_group *mg = &L->mgroup[g];
	lk_u32 c;

	for (c = mg->first_class; c < mg->first_class + mg->class_count; c++)
		lk_memcpy(dst + L->class_off[c], L->data + L->mclass[c].data_off,
			  L->mclass[c].size);
}
