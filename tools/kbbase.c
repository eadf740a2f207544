/*
 * Policy `random-base STEP LIMIT SYMBOL` (create --linux: KASLR at link
 * time): the script's first top-level `. = EXPR;` becomes
 * `. = EXPR + SHIFT;`, SHIFT a random multiple of STEP drawn at each
 * layout (LK_E_SHIFT), and how many steps fit is fixed here from a
 * canonical link: SYMBOL (Linux: _end) must stay at or below LIMIT in
 * every order, and no order pads more than the alignment slack of all
 * the chunks together. The script's own ASSERTs still check each link.
 * Hosted C.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linkkit/linkkit.h"
#include "kbint.h"

/* Before the first top-level `. =`: push the shift and add it. */
int kb_base_insert(struct kb *b)
{
	struct ls_compiled *c = &b->comp;
	uint32_t i;

	for (i = 0; i < c->nops && c->ops[i].code != LK_S_SECTION; i++)
		if (c->ops[i].code == LK_S_SET_DOT)
			break;
	if (i == c->nops || c->ops[i].code != LK_S_SET_DOT) {
		kb_err(b, "policy: random-base: the script sets no address before its first "
			  "section");
		return -1;
	}
	c->ops = kb_xrealloc(c->ops, c->nops + 2, sizeof(*c->ops));
	memmove(c->ops + i + 2, c->ops + i, (c->nops - i) * sizeof(*c->ops));
	memset(c->ops + i, 0, 2 * sizeof(*c->ops));
	c->ops[i].code = LK_E_SHIFT;
	c->ops[i].imm = b->pol.base_step;
	c->ops[i + 1].code = LK_E_ADD;
	c->nops += 2;
	return 0;
}

/* The most any order can add to the canonical one: every chunk's
 * alignment slack. */
static uint64_t kbb_slack(const uint8_t *pl, const struct lk_payload_header *h)
{
	const struct lk_chunk *c = (const void *)(pl + h->chunks.off);
	uint64_t s = 0;

	for (uint32_t i = 0; i < h->chunks.count; i++)
		s += c[i].align - 1 + ((c[i].flags & LK_CHUNK_GAP) ? c[i].size : 0);
	return s;
}

static int kbb_symbol(const uint8_t *pl, const struct lk_payload_header *h, const char *name,
		      uint32_t *out)
{
	const struct lk_symbol *y = (const void *)(pl + h->symbols.off);
	const char *str = (const char *)pl + h->strtab.off;

	for (uint32_t i = 0; i < h->symbols.count; i++)
		if (y[i].name && !strcmp(str + y[i].name, name)) {
			*out = i;
			return 0;
		}
	fprintf(stderr, "linkkit: policy: random-base: no symbol %s\n", name);
	return -1;
}

/* Sets the LK_E_SHIFT op's step count; the payload is complete. */
int kb_base_fix(uint8_t *pl, size_t len, const struct kb_policy *pol)
{
	const struct lk_payload_header *h = (const void *)pl;
	struct lk_op *op = (struct lk_op *)(pl + h->plan.off);
	struct lk_link *L = NULL;
	uint32_t i = 0, sym;
	lk_u64 end = 0;
	uint64_t room, slack = kbb_slack(pl, h);
	int rc = -1;

	while (i < h->plan.count && op[i].code != LK_E_SHIFT)
		i++;
	if (i == h->plan.count || kbb_symbol(pl, h, pol->base_sym, &sym) ||
	    kb_canonical_link(pl, len, &L) || !lk_link_sym_value(L, sym, &end))
		goto out;
	room = end + slack < end || end + slack > pol->base_limit ? 0
								    : pol->base_limit - end - slack;
	op[i].arg = (uint32_t)(room / pol->base_step > 0x100000 ? 0x100000
								 : room / pol->base_step);
	if (!op[i].arg)
		fprintf(stderr, "linkkit: policy: random-base: %s at 0x%llx leaves no room below "
				"0x%llx: the base stays fixed\n",
			pol->base_sym, (unsigned long long)end, (unsigned long long)pol->base_limit);
	rc = 0;
out:
	if (L)
		lk_link_close(L);
	return rc;
}
