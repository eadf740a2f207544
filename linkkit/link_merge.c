/*
 * SHF_MERGE groups. The host decided which pieces survive (that does not
 * depend on the order); the boot side only decides where. As ld.bfd does
 * (binutils merge.c), each surviving piece ("class") stays in the input
 * section where it first occurs in placement order, in first-occurrence
 * order, each aligned to the chunk's alignment; a chunk's size is the end
 * of the last class it brings first, and a chunk that brings none is empty.
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
	return lk_check_listed(L);
}

/* Size of a merge chunk being placed now: the classes it lists that no
 * earlier chunk listed, which it then holds at increasing offsets. */
lk_u64 lk_merge_place(struct lk_link *L, lk_u32 chunk)
{
	const struct lk_chunk *c = &L->chunk[chunk];
	lk_u64 run = 0;
	lk_u32 k;

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

void lk_merge_write(const struct lk_link *L, lk_u32 chunk, lk_u8 *dst)
{
	const struct lk_chunk *c = &L->chunk[chunk];
	lk_u32 k;

	for (k = 0; k < c->mref_count; k++) {
		lk_u32 cls = L->mref[c->mref_first + k];

		if (L->class_owner[cls] == chunk)
			lk_memcpy(dst + L->class_off[cls],
				  L->data + L->mclass[cls].data_off,
				  L->mclass[cls].size);
	}
}
