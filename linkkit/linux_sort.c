/*
 * The tables Linux's scripts/sorttable (6.1) sorts in vmlinux at build time
 * (CONFIG_BUILDTIME_TABLE_SORT), sorted again after each per-boot link of
 * a `sort-tables linux` kit (LK_PAYLOAD_F_LINUX_SORT), so that the kernel
 * finds them as it expects:
 *
 * - ORC (.orc_unwind_ip: s32 offsets to the instruction, relative to the
 *   entry; .orc_unwind: 6-byte entries, same count), sorted by address;
 *   unwind_init and the lookup assume it. Among entries for one address,
 *   sorttable puts the "weak" section terminators (sp_reg
 *   ORC_REG_UNDEFINED, end 0) first; its comparison returns 1 both ways
 *   for two other entries at one address, so their order is whatever
 *   glibc's qsort makes of that. sorttable was built against glibc 2.36,
 *   whose qsort is a top-down merge sort (halves n / 2 and n - n / 2, the
 *   left element taken when the comparison is <= 0) whenever the array
 *   fits its memory limit. Each of its merges puts, per address, the left
 *   run's terminators, the right run's terminators, the right run's other
 *   entries, then the left run's; so, however the halves are cut, the
 *   terminators end up in link order and the other entries at one address
 *   in reverse link order. That order is what lk_sort_ties produces
 *   (test_linux_sort checks it against glibc's qsort itself; the 6.1
 *   defconfig corpus has 2,497 equal pairs, each a terminator and a
 *   function start).
 * - __ex_table (x86-64: {s32 insn, s32 fixup, s32 data}, insn and fixup
 *   relative to their own field), by insn address; equal addresses keep
 *   link order (the comparison is consistent, the merge sort stable).
 * - main_extable_sort_needed (an STT_OBJECT) set to 0: the kernel then
 *   does not sort __ex_table again at boot.
 *
 * Freestanding: memory from the host, every size and index checked, one
 * error line naming the table.
 */
#include "link_internal.h"

#define LK_ERR_SORT(L, ...) lk_log((L)->h, LK_LOG_ERROR, __VA_ARGS__)
#define LK_ORC_ENTRY 6u
#define LK_EXT_ENTRY 12u
#define LK_ORC_REG_UNDEFINED 0u

static lk_u32 lk_rd32(const lk_u8 *p)
{
	return (lk_u32)p[0] | (lk_u32)p[1] << 8 | (lk_u32)p[2] << 16 |
	       (lk_u32)p[3] << 24;
}

static void lk_wr32(lk_u8 *p, lk_u32 v)
{
	p[0] = (lk_u8)v;
	p[1] = (lk_u8)(v >> 8);
	p[2] = (lk_u8)(v >> 16);
	p[3] = (lk_u8)(v >> 24);
}

/*
 * sorttable's order in linear time: by address (stably: an address-range
 * pass with insertion sorts, else a 3-pass LSD radix sort of 11 bits over
 * key - min; see lk_sort_packed; ORC first tries lk_orc_by_runs), then
 * each run of equal addresses reordered as glibc's merge sort leaves it
 * (top of the file). The keys
 * are s32 offsets plus 4 or 12 times an index below 2^28 (sections are
 * below LK_MAX_SIZE), so they span less than 2^33; each entry is sorted as
 * one u64, (key - min) << 28 | index, so every pass reads and writes
 * sequentially (through an index array, the passes' random reads of the
 * keys took 7 of the ~8 ms of the 487,436 ORC entries of a defconfig
 * kernel; a merge sort compares ~9 million times, ~40 ms).
 */
#define LK_RADIX_BITS 11u
#define LK_RADIX_PASSES 3u
#define LK_IDX_BITS 28u
#define LK_IDX(v) ((lk_u32)((v) & ((1u << LK_IDX_BITS) - 1)))
#define LK_KEY(v) ((v) >> LK_IDX_BITS)

/* Sorts the n packed entries of pk (tmp: n more, count: 2^LK_RADIX_BITS)
 * by key, stably, in 3 radix passes; the result is in pk. */
static void lk_sort_radix(lk_u64 *pk, lk_u64 *tmp, lk_u32 n, lk_u32 *count)
{
	lk_u64 *src = pk, *dst = tmp, *t;

	for (lk_u32 p = 0; p < LK_RADIX_PASSES; p++) {
		lk_u32 sh = LK_IDX_BITS + p * LK_RADIX_BITS, sum = 0;

		lk_memset(count, 0, sizeof(*count) << LK_RADIX_BITS);
		for (lk_u32 i = 0; i < n; i++)
			count[(src[i] >> sh) & ((1u << LK_RADIX_BITS) - 1)]++;
		for (lk_u32 b = 0; b < (1u << LK_RADIX_BITS); b++) {
			lk_u32 c = count[b];

			count[b] = sum;
			sum += c;
		}
		for (lk_u32 i = 0; i < n; i++)
			dst[count[(src[i] >> sh) & ((1u << LK_RADIX_BITS) - 1)]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != pk)
		lk_memcpy(pk, src, (lk_size)n * sizeof(*pk));
}

/* Stable insertion sort of v[0..n) by key, giving up (returning 0) once
 * it has moved more than *budget entries. */
static int lk_sort_insert(lk_u64 *v, lk_u32 n, lk_u64 *budget)
{
	for (lk_u32 i = 1; i < n; i++) {
		lk_u64 x = v[i];
		lk_u32 j = i;

		while (j > 0 && LK_KEY(v[j - 1]) > LK_KEY(x)) {
			v[j] = v[j - 1];
			j--;
			if (--*budget == 0)
				return 0;
		}
		v[j] = x;
	}
	return 1;
}

/*
 * Sorts the n packed entries of pk by key, stably (tmp: n more, count:
 * 2^LK_RADIX_BITS), one counting pass into 2^LK_RADIX_BITS address
 * ranges, then an insertion sort of each range, which moves few entries
 * in a nearly sorted table. A table that would make it move more than 8
 * per entry (a hostile kit) gets the 3-pass radix sort instead, so the
 * time stays linear.
 */
static void lk_sort_packed(lk_u64 *pk, lk_u64 *tmp, lk_u32 n, lk_u32 *count)
{
	lk_u64 hi = 0, budget = (lk_u64)n * 8 + 64;
	lk_u32 sh = 0, sum = 0, b;

	for (lk_u32 i = 0; i < n; i++)
		hi = LK_KEY(pk[i]) > hi ? LK_KEY(pk[i]) : hi;
	while ((hi >> sh) >= (1u << LK_RADIX_BITS))
		sh++;
	lk_memset(count, 0, sizeof(*count) << LK_RADIX_BITS);
	for (lk_u32 i = 0; i < n; i++)
		count[LK_KEY(pk[i]) >> sh]++;
	for (b = 0; b < (1u << LK_RADIX_BITS); b++) {
		lk_u32 c = count[b];

		count[b] = sum;
		sum += c;
	}
	for (lk_u32 i = 0; i < n; i++)
		tmp[count[LK_KEY(pk[i]) >> sh]++] = pk[i];
	/* count[b] is now the end of range b, the start of range b + 1. */
	for (b = 0, sum = 0; b < (1u << LK_RADIX_BITS); sum = count[b++])
		if (!lk_sort_insert(tmp + sum, count[b] - sum, &budget)) {
			lk_sort_radix(pk, tmp, n, count);
			return;
		}
	lk_memcpy(pk, tmp, (lk_size)n * sizeof(*pk));
}

/* A weak section terminator: sp_reg ORC_REG_UNDEFINED, end 0. */
static int lk_orc_term(const lk_u8 *orc, lk_u32 i)
{
	const lk_u8 *e = orc + (lk_size)i * LK_ORC_ENTRY;

	return (e[4] & 0xf) == LK_ORC_REG_UNDEFINED && !(e[5] & 0x4);
}

/* ORC: within each run of equal addresses, the weak terminators (of the
 * unsorted orc, by original index) in link order, then the others in
 * reverse link order, as glibc's merge sort leaves them. tmp: n entries. */
static void lk_sort_ties(lk_u64 *pk, lk_u64 *tmp, lk_u32 n, const lk_u8 *orc)
{
	for (lk_u32 s = 0, e; s < n; s = e) {
		lk_u32 o = 0;

		for (e = s + 1; e < n && LK_KEY(pk[e]) == LK_KEY(pk[s]); e++)
			;
		if (e - s < 2)
			continue;
		for (lk_u32 i = s; i < e; i++)
			if (lk_orc_term(orc, LK_IDX(pk[i])))
				tmp[o++] = pk[i];
		for (lk_u32 i = e; i-- > s;)
			if (!lk_orc_term(orc, LK_IDX(pk[i])))
				tmp[o++] = pk[i];
		lk_memcpy(pk + s, tmp, (lk_size)o * sizeof(*pk));
	}
}

/* pk[i] = (key[i] - min) << LK_IDX_BITS | i for the n keys key(i) gives;
 * returns the minimum. */
#define LK_PACK(pk, n, keyexpr, lo)                                          \
	do {                                                                 \
		lo = 0;                                                      \
		for (lk_u32 i = 0; i < (n); i++) {                           \
			lk_i64 k_ = (keyexpr);                               \
			lo = i == 0 || k_ < lo ? k_ : lo;                    \
		}                                                            \
		for (lk_u32 i = 0; i < (n); i++)                             \
			(pk)[i] = (lk_u64)((keyexpr) - lo) << LK_IDX_BITS | i; \
	} while (0)

struct lk_sort_mem {
	const struct lk_host *h;
	void *p[4];
	lk_size n[4];
};

static void *lk_sort_alloc(struct lk_sort_mem *m, int i, lk_size n)
{
	m->n[i] = n ? n : 1;
	m->p[i] = m->h->alloc(m->h->ctx, m->n[i]);
	return m->p[i];
}

/* Last allocated, first freed: the BIOS stage's heap only takes back
 * its latest allocation. */
static void lk_sort_free(struct lk_sort_mem *m)
{
	for (int i = 3; i >= 0; i--)
		if (m->p[i]) {
			lk_wipe(m->p[i], m->n[i]); /* addresses of this layout */
			m->h->free(m->h->ctx, m->p[i], m->n[i]);
			m->p[i] = LK_NULL;
		}
}

/*
 * ORC by runs. A link leaves .orc_unwind_ip as ascending runs in the
 * objects' random order, and runs of different objects cover disjoint
 * address ranges: sorting is then ordering the runs by their first
 * address and copying each once, a third of the memory traffic of
 * packing, sorting and permuting every entry (defconfig's 487,436
 * entries; memory bandwidth is what these passes cost).
 *
 * A run ends where an address is below its predecessor or more than
 * LK_RUN_GAP above it: an object's entries for two of its sections
 * (.text, then .init.text) ascend, but other objects' sections lie
 * between them. Within one section of one object entries lie a few bytes
 * apart. Defconfig: 1,987 runs by descent alone, 3,953 with 4 KiB gaps,
 * no two of which overlap; one split too many costs one more copy, one
 * too few (overlapping runs) the general sort.
 */
#define LK_RUN_GAP 4096
#define LK_ORC_GROUP_MAX 64 /* entries at one address; more: general sort */

struct lk_orc_run {
	lk_u32 start, len;
	lk_i64 first, last;
};

struct lk_orc_runs {
	lk_u8 *ip, *orc;	  /* the tables, sorted in place */
	const lk_u8 *ip0, *orc0;  /* their unsorted copies */
	struct lk_orc_run *run;
	lk_u64 *order; /* 2 * cap: run order, packed, and sort space */
	lk_u32 n, nr, cap;
	lk_u64 grp[LK_ORC_GROUP_MAX]; /* tie group: original indices (key 0) */
	lk_u64 gtmp[LK_ORC_GROUP_MAX];
	lk_u32 ng, gpos;
	lk_i64 gkey;
};

static lk_i64 lk_orc_key(const lk_u8 *ip, lk_u32 i)
{
	return (lk_i64)i * 4 + (lk_i32)lk_rd32(ip + (lk_size)i * 4);
}

static int lk_orc_find_runs(struct lk_orc_runs *c)
{
	lk_i64 prev = 0, k;

	for (lk_u32 i = 0; i < c->n; i++, prev = k) {
		k = lk_orc_key(c->ip0, i);
		if (i == 0 || k < prev || k - prev > LK_RUN_GAP) {
			if (c->nr == c->cap)
				return 0;
			c->run[c->nr].start = i;
			c->run[c->nr++].first = k;
		}
		c->run[c->nr - 1].last = k;
	}
	for (lk_u32 r = 0; r < c->nr; r++)
		c->run[r].len = (r + 1 < c->nr ? c->run[r + 1].start : c->n) -
				c->run[r].start;
	return 1;
}

/* By first address, stably, then runs starting at one address the shorter
 * first ([a], then [a, b]); 0 past 8 moves per run (a hostile table). */
static int lk_orc_sort_runs(struct lk_orc_runs *c, lk_u32 *count)
{
	lk_u64 budget = (lk_u64)c->nr * 8 + 64;
	lk_i64 lo = c->run[0].first;

	for (lk_u32 r = 1; r < c->nr; r++)
		lo = c->run[r].first < lo ? c->run[r].first : lo;
	for (lk_u32 r = 0; r < c->nr; r++)
		c->order[r] = (lk_u64)(c->run[r].first - lo) << LK_IDX_BITS | r;
	lk_sort_packed(c->order, c->order + c->nr, c->nr, count);
	for (lk_u32 k = 1; k < c->nr; k++)
		for (lk_u32 j = k; j > 0 && LK_KEY(c->order[j - 1]) == LK_KEY(c->order[j]) &&
				   c->run[LK_IDX(c->order[j - 1])].last >
					   c->run[LK_IDX(c->order[j])].last;
		     j--) {
			lk_u64 t = c->order[j];

			c->order[j] = c->order[j - 1];
			c->order[j - 1] = t;
			if (--budget == 0)
				return 0;
		}
	return 1;
}

/* Run p holds addresses on both sides of `at`, where another run starts:
 * the entries above it become a run of their own. */
static int lk_orc_split(struct lk_orc_runs *c, lk_u32 p, lk_i64 at)
{
	struct lk_orc_run *r = &c->run[p], *t;
	lk_u32 lo = r->start, hi = r->start + r->len - 1; /* key(hi) > at */

	if (c->nr == c->cap)
		return 0;
	while (lo + 1 < hi) { /* key(lo) <= at < key(hi) */
		lk_u32 mid = lo + (hi - lo) / 2;

		if (lk_orc_key(c->ip0, mid) > at)
			hi = mid;
		else
			lo = mid;
	}
	t = &c->run[c->nr++];
	t->start = hi;
	t->len = r->start + r->len - hi;
	t->first = lk_orc_key(c->ip0, hi);
	t->last = r->last;
	r->len = hi - r->start;
	r->last = lk_orc_key(c->ip0, lo);
	return 1;
}

/*
 * By first address, stably. A run that another one starts inside (two
 * sections of one object less than LK_RUN_GAP apart, another object's
 * piece between them: 1 in 24 seeds of defconfig) is split there and
 * the runs ordered again; 0 when that does not settle.
 */
static int lk_orc_order_runs(struct lk_orc_runs *c, lk_u32 *count)
{
	for (int round = 0; round < 8; round++) {
		lk_u32 nr = c->nr; /* the sorted runs; splits add after them */
		int split = 0;

		if (!lk_orc_sort_runs(c, count))
			return 0;
		for (lk_u32 k = 1; k < nr; k++) {
			lk_u32 p = LK_IDX(c->order[k - 1]), q = LK_IDX(c->order[k]);

			if (c->run[q].first >= c->run[p].last)
				continue;
			if (!lk_orc_split(c, p, c->run[q].first))
				return 0;
			split = 1;
		}
		if (!split)
			return 1;
	}
	return 0;
}

/* Output entry o's address is k (ip entries are relative to themselves). */
static void lk_orc_set_ip(struct lk_orc_runs *c, lk_u32 o, lk_i64 k)
{
	lk_wr32(c->ip + (lk_size)o * 4, (lk_u32)(k - (lk_i64)o * 4));
}

/* The entries at one address in link order (the order a stable sort
 * leaves), then as sorttable leaves them (lk_sort_ties). */
static void lk_orc_fix_group(struct lk_orc_runs *c)
{
	lk_u64 *g = c->grp;

	for (lk_u32 i = 1; i < c->ng; i++)
		for (lk_u32 j = i; j > 0 && g[j - 1] > g[j]; j--) {
			lk_u64 t = g[j];

			g[j] = g[j - 1];
			g[j - 1] = t;
		}
	lk_sort_ties(g, c->gtmp, c->ng, c->orc0);
	for (lk_u32 j = 0; j < c->ng; j++) {
		lk_orc_set_ip(c, c->gpos + j, c->gkey);
		lk_memcpy(c->orc + (lk_size)(c->gpos + j) * LK_ORC_ENTRY,
			  c->orc0 + (lk_size)LK_IDX(g[j]) * LK_ORC_ENTRY,
			  LK_ORC_ENTRY);
	}
	c->ng = 0;
}

/* Output entry o is original entry i at address k: collects ties. */
static int lk_orc_tie(struct lk_orc_runs *c, lk_u32 o, lk_u32 i, lk_i64 k,
		      lk_i64 prevk, lk_u32 previ)
{
	if (o > 0 && k == prevk) {
		if (c->ng == 0) {
			c->grp[c->ng++] = previ;
			c->gpos = o - 1;
			c->gkey = k;
		}
		if (c->ng == LK_ORC_GROUP_MAX)
			return 0;
		c->grp[c->ng++] = i;
	} else if (c->ng) {
		lk_orc_fix_group(c);
	}
	return 1;
}

static int lk_orc_join_runs(struct lk_orc_runs *c)
{
	lk_i64 prevk = 0, k;
	lk_u32 o = 0, previ = 0;

	for (lk_u32 q = 0; q < c->nr; q++) {
		const struct lk_orc_run *r = &c->run[LK_IDX(c->order[q])];

		lk_memcpy(c->orc + (lk_size)o * LK_ORC_ENTRY,
			  c->orc0 + (lk_size)r->start * LK_ORC_ENTRY,
			  (lk_size)r->len * LK_ORC_ENTRY);
		for (lk_u32 i = r->start; i < r->start + r->len; i++, o++) {
			k = lk_orc_key(c->ip0, i);
			if (!lk_orc_tie(c, o, i, k, prevk, previ))
				return 0;
			lk_orc_set_ip(c, o, k);
			prevk = k;
			previ = i;
		}
	}
	if (c->ng)
		lk_orc_fix_group(c);
	return 1;
}

/* 1: sorted; 0: not runs like a link's, or no memory (tables as they were). */
static int lk_orc_by_runs(const struct lk_host *h, lk_u8 *ip, lk_u8 *orc,
			  lk_u32 n)
{
	struct lk_sort_mem m = { h, { 0 }, { 0 } };
	struct lk_orc_runs c;
	lk_u32 *count;
	lk_u8 *copy;
	int ok = 0;

	lk_memset(&c, 0, sizeof(c));
	c.ip = ip;
	c.orc = orc;
	c.n = n;
	c.cap = n / 16 + 1;
	copy = lk_sort_alloc(&m, 0, (lk_size)n * (4 + LK_ORC_ENTRY));
	c.run = lk_sort_alloc(&m, 1, (lk_size)c.cap * sizeof(*c.run));
	c.order = lk_sort_alloc(&m, 2, (lk_size)c.cap * 2 * sizeof(*c.order));
	count = lk_sort_alloc(&m, 3, (1u << LK_RADIX_BITS) * sizeof(*count));
	if (copy && c.run && c.order && count) {
		lk_memcpy(copy, ip, (lk_size)n * 4);
		lk_memcpy(copy + (lk_size)n * 4, orc, (lk_size)n * LK_ORC_ENTRY);
		c.ip0 = copy;
		c.orc0 = copy + (lk_size)n * 4;
		ok = lk_orc_find_runs(&c) && lk_orc_order_runs(&c, count) &&
		     lk_orc_join_runs(&c);
		if (!ok) { /* back as they were, for the general sort */
			lk_memcpy(ip, c.ip0, (lk_size)n * 4);
			lk_memcpy(orc, c.orc0, (lk_size)n * LK_ORC_ENTRY);
		}
	}
	lk_sort_free(&m);
	lk_wipe(&c, sizeof(c)); /* a tie group: addresses of this layout */
	return ok;
}

int lk_linux_sort_orc(const struct lk_host *h, const char *name, lk_u8 *ip,
		      lk_u64 ip_size, lk_u8 *orc, lk_u64 orc_size)
{
	struct lk_sort_mem m = { h, { 0 }, { 0 } };
	lk_u32 n, *count;
	lk_u64 *pk;
	lk_i64 lo;
	lk_u8 *copy;

	if (ip_size > LK_MAX_SIZE || orc_size > LK_MAX_SIZE || (ip_size & 3) ||
	    (lk_u32)orc_size % LK_ORC_ENTRY ||
	    (lk_u32)ip_size / 4 != (lk_u32)orc_size / LK_ORC_ENTRY) {
		lk_log(h, LK_LOG_ERROR,
		       "%s: .orc_unwind_ip (%llu bytes) and .orc_unwind (%llu bytes) "
		       "do not hold the same number of entries",
		       name, (unsigned long long)ip_size, (unsigned long long)orc_size);
		return LK_ERR_FORMAT;
	}
	n = (lk_u32)ip_size / 4;
	if (n < 2 || lk_orc_by_runs(h, ip, orc, n))
		return LK_OK;
	pk = lk_sort_alloc(&m, 0, (lk_size)n * 2 * sizeof(*pk));
	count = lk_sort_alloc(&m, 1, (1u << LK_RADIX_BITS) * sizeof(*count));
	copy = lk_sort_alloc(&m, 2, (lk_size)n * LK_ORC_ENTRY);
	if (!pk || !count || !copy) {
		lk_sort_free(&m);
		lk_log(h, LK_LOG_ERROR, "%s: .orc_unwind: out of memory sorting %u entries",
		       name, n);
		return LK_ERR_NOMEM;
	}
	/* Key: the instruction's offset from the section's start. */
	LK_PACK(pk, n, (lk_i64)i * 4 + (lk_i32)lk_rd32(ip + (lk_size)i * 4), lo);
	lk_sort_packed(pk, pk + n, n, count);
	lk_sort_ties(pk, pk + n, n, orc);
	lk_memcpy(copy, orc, (lk_size)n * LK_ORC_ENTRY);
	for (lk_u32 i = 0; i < n; i++) {
		lk_u32 s = LK_IDX(pk[i]);

		lk_wr32(ip + (lk_size)i * 4,
			(lk_u32)(lo + (lk_i64)LK_KEY(pk[i]) - (lk_i64)i * 4));
		if (s != i)
			lk_memcpy(orc + (lk_size)i * LK_ORC_ENTRY,
				  copy + (lk_size)s * LK_ORC_ENTRY, LK_ORC_ENTRY);
	}
	lk_sort_free(&m);
	return LK_OK;
}

int lk_linux_sort_extable(const struct lk_host *h, const char *name, lk_u8 *ex,
			  lk_u64 size)
{
	struct lk_sort_mem m = { h, { 0 }, { 0 } };
	lk_u32 n, *count;
	lk_u64 *pk;
	lk_i64 lo;
	lk_u8 *copy;

	if (size > LK_MAX_SIZE || (lk_u32)size % LK_EXT_ENTRY) {
		lk_log(h, LK_LOG_ERROR,
		       "%s: __ex_table: %llu bytes is not a whole number of 12-byte entries",
		       name, (unsigned long long)size);
		return LK_ERR_FORMAT;
	}
	n = (lk_u32)size / LK_EXT_ENTRY;
	if (n < 2)
		return LK_OK;
	pk = lk_sort_alloc(&m, 0, (lk_size)n * 2 * sizeof(*pk));
	count = lk_sort_alloc(&m, 1, (1u << LK_RADIX_BITS) * sizeof(*count));
	copy = lk_sort_alloc(&m, 2, (lk_size)size);
	if (!pk || !count || !copy) {
		lk_sort_free(&m);
		lk_log(h, LK_LOG_ERROR, "%s: __ex_table: out of memory sorting %u entries",
		       name, n);
		return LK_ERR_NOMEM;
	}
	/* sorttable: insn made relative to the section (32-bit wrap), then
	 * compared as a signed 32-bit value; equal ones keep link order. */
	LK_PACK(pk, n, (lk_i32)(lk_rd32(ex + (lk_size)i * LK_EXT_ENTRY) + i * LK_EXT_ENTRY), lo);
	lk_sort_packed(pk, pk + n, n, count);
	lk_memcpy(copy, ex, (lk_size)size);
	for (lk_u32 i = 0; i < n; i++) {
		lk_u32 s = LK_IDX(pk[i]), from = s * LK_EXT_ENTRY, to = i * LK_EXT_ENTRY;
		const lk_u8 *f = copy + from;
		lk_u8 *t = ex + to;

		if (s == i)
			continue;
		lk_wr32(t, lk_rd32(f) + from - to);
		lk_wr32(t + 4, lk_rd32(f + 4) + from - to);
		lk_memcpy(t + 8, f + 8, 4);
	}
	lk_sort_free(&m);
	return LK_OK;
}

/* Output section by name: its bytes in the image, or LK_NONE. */
static lk_u32 lk_find_os(const struct lk_link *L, const char *name)
{
	for (lk_u32 i = 0; i < L->nout; i++)
		if (!lk_strcmp(lk_str(L, L->outsec[i].name), name) &&
		    L->os[i].state == LK_OS_DONE)
			return i;
	return LK_NONE;
}

static lk_u8 *lk_os_bytes(const struct lk_link *L, lk_u8 *img, lk_u32 os,
			  const char *what)
{
	const struct lk_os *o = &L->os[os];

	if (L->outsec[os].type != LK_SHT_PROGBITS || o->lma < L->load_lo ||
	    o->size > L->load_hi - L->load_lo ||
	    o->lma - L->load_lo > L->load_hi - L->load_lo - o->size) {
		LK_ERR_SORT(L, "%s: %s: not a loaded PROGBITS section inside the image",
			    L->name, what);
		return LK_NULL;
	}
	return img + (o->lma - L->load_lo);
}

lk_u32 lk_linux_sort_sections(const struct lk_link *L, lk_u32 os[3])
{
	lk_u32 n = 0;

	os[0] = lk_find_os(L, ".orc_unwind_ip");
	os[1] = lk_find_os(L, ".orc_unwind");
	os[2] = lk_find_os(L, "__ex_table");
	for (int i = 0; i < 3; i++)
		n += os[i] != LK_NONE;
	return n;
}

int lk_linux_sort_tables(const struct lk_link *L, lk_u8 *img, lk_u32 *flag)
{
	lk_u32 os[3], ip, orc, ex;
	lk_u8 *p, *q;
	int rc;

	lk_linux_sort_sections(L, os);
	ip = os[0];
	orc = os[1];
	ex = os[2];
	*flag = LK_NONE;
	if ((ip == LK_NONE) != (orc == LK_NONE)) {
		LK_ERR_SORT(L, "%s: .orc_unwind_ip and .orc_unwind: one of them is missing",
			    L->name);
		return LK_ERR_FORMAT;
	}
	if (ip != LK_NONE) {
		p = lk_os_bytes(L, img, ip, ".orc_unwind_ip");
		q = lk_os_bytes(L, img, orc, ".orc_unwind");
		if (!p || !q)
			return LK_ERR_FORMAT;
		rc = lk_linux_sort_orc(L->h, L->name, p, L->os[ip].size, q, L->os[orc].size);
		if (rc)
			return rc;
	}
	/* sorttable refuses a kernel without __ex_table or the flag. */
	for (lk_u32 s = 0; s < L->nsym && *flag == LK_NONE; s++)
		if (L->sym[s].type == 1 /* STT_OBJECT */ && L->sym[s].kind != LK_SYM_ALT &&
		    !lk_strcmp(lk_str(L, L->sym[s].name), "main_extable_sort_needed"))
			*flag = s;
	if (ex == LK_NONE || *flag == LK_NONE) {
		LK_ERR_SORT(L, "%s: __ex_table: %s", L->name,
			    ex == LK_NONE ? "no such output section"
					  : "no main_extable_sort_needed symbol");
		return LK_ERR_FORMAT;
	}
	if (!(p = lk_os_bytes(L, img, ex, "__ex_table")))
		return LK_ERR_FORMAT;
	return lk_linux_sort_extable(L->h, L->name, p, L->os[ex].size);
}

int lk_linux_sort_flag(const struct lk_link *L, lk_u8 *img, lk_u32 flag)
{
	lk_u32 os = flag < L->nsym ? lk_sym_outsec(L, flag) : LK_NONE;
	const struct lk_os *o = os == LK_NONE ? LK_NULL : &L->os[os];
	lk_u64 v = o ? L->sym_val[flag] : 0;
	lk_u8 *q;

	if (!o || !(q = lk_os_bytes(L, img, os, "main_extable_sort_needed")) ||
	    v < o->vma || v - o->vma > o->size || o->size - (v - o->vma) < 4) {
		LK_ERR_SORT(L, "%s: __ex_table: main_extable_sort_needed lies outside "
			       "the loaded image", L->name);
		return LK_ERR_FORMAT;
	}
	lk_wr32(q + (v - o->vma), 0);
	return LK_OK;
}

int lk_linux_sort(const struct lk_link *L, lk_u8 *img)
{
	lk_u32 flag;
	int rc = lk_linux_sort_tables(L, img, &flag);

	return rc ? rc : lk_linux_sort_flag(L, img, flag);
}
