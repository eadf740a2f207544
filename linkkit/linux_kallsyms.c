/*
 * Linux kallsyms tables for this boot's layout (see linux_kallsyms.h for
 * why the host can compress once and for the blob format). Everything
 * here reads an untrusted blob: each offset is checked before use, and
 * lk_ksym_emit checks the caller's buffers against the blob's sizes.
 */
#include "linux_kallsyms.h"
#include "linkkit.h" /* lk_memcpy */

#define LK_KSYM_INDEX_SIZE (2u * LK_KSYM_TOKENS)

static lk_u32 lk_ksym_rd32(const lk_u8 *p)
{
	return (lk_u32)p[0] | (lk_u32)p[1] << 8 | (lk_u32)p[2] << 16 |
	       (lk_u32)p[3] << 24;
}

static void lk_ksym_wr32(lk_u8 *p, lk_u32 v)
{
	p[0] = (lk_u8)v;
	p[1] = (lk_u8)(v >> 8);
	p[2] = (lk_u8)(v >> 16);
	p[3] = (lk_u8)(v >> 24);
}

static void lk_ksym_copy(lk_u8 *dst, const lk_u8 *src, lk_u64 len)
{
	lk_u64 i;

	for (i = 0; i < len; i++)
		dst[i] = src[i];
}

static lk_u64 lk_ksym_up8(lk_u64 v)
{
	return (v + 7) & ~7ull;
}

/* One kallsyms_names entry at off: its ULEB128 length (1 or 2 bytes, the
 * shortest form, as scripts/kallsyms writes it) and the whole entry's
 * size. Returns 0 when it is malformed or runs past end. */
static lk_u32 lk_ksym_entry(const lk_u8 *names, lk_u64 end, lk_u64 off,
			    lk_u32 *len)
{
	lk_u32 l, hdr = 1;

	if (off >= end)
		return 0;
	l = names[off];
	if (l & 0x80) {
		if (off + 1 >= end || (names[off + 1] & 0x80) ||
		    names[off + 1] == 0)
			return 0;
		l = (l & 0x7f) | (lk_u32)names[off + 1] << 7;
		hdr = 2;
	}
	if (l == 0 || end - off - hdr < l)
		return 0;
	*len = l;
	return hdr + l;
}

/* The token table is 256 NUL-terminated strings whose start offsets fit
 * kallsyms_token_index's u16. Fills idx with those offsets. */
static const char *lk_ksym_tokens(const lk_u8 *t, lk_u32 len, lk_u16 *idx)
{
	lk_u32 i, k = 0, start = 0;

	for (i = 0; i < len && k < LK_KSYM_TOKENS; i++) {
		if (t[i])
			continue;
		if (start > 0xffff)
			return "kallsyms: token table too large for "
			       "kallsyms_token_index";
		if (idx)
			idx[k] = (lk_u16)start;
		k++;
		start = i + 1;
	}
	if (k != LK_KSYM_TOKENS || i != len)
		return "kallsyms: token table is not 256 NUL-terminated "
		       "strings";
	return LK_NULL;
}

static const char *lk_ksym_header(struct lk_ksym_blob *b, const lk_u8 *p,
				  lk_u64 len)
{
	lk_u64 need;

	if (!p || len < LK_KSYM_HDR)
		return "kallsyms: blob shorter than its header";
	if (lk_ksym_rd32(p) != LK_KSYM_MAGIC)
		return "kallsyms: blob has a bad magic";
	if (lk_ksym_rd32(p + 4) != LK_KSYM_VERSION)
		return "kallsyms: blob has an unknown version";
	b->n = lk_ksym_rd32(p + 8);
	b->names_len = lk_ksym_rd32(p + 12);
	b->token_table_len = lk_ksym_rd32(p + 16);
	b->percpu_start = lk_ksym_rd32(p + 20);
	b->percpu_end = lk_ksym_rd32(p + 24);
	if (lk_ksym_rd32(p + 28) != 0)
		return "kallsyms: blob header's reserved word is not zero";
	if (b->n == 0 || b->n >= LK_KSYM_MAX_SYMS)
		return "kallsyms: symbol count is 0 or not below 2^24";
	if ((b->percpu_start != LK_KSYM_NONE && b->percpu_start >= b->n) ||
	    (b->percpu_end != LK_KSYM_NONE && b->percpu_end >= b->n))
		return "kallsyms: percpu range symbol index out of range";
	need = (lk_u64)LK_KSYM_HDR + b->n + b->names_len + b->token_table_len;
	if (need != len)
		return "kallsyms: blob size does not match its header";
	b->flags = p + LK_KSYM_HDR;
	b->names = b->flags + b->n;
	b->token_table = b->names + b->names_len;
	return LK_NULL;
}

const char *lk_ksym_open(struct lk_ksym_blob *b, const void *blob, lk_u64 len)
{
	const char *err;
	lk_u64 off = 0;
	lk_u32 i, l, sz;

	err = lk_ksym_header(b, blob, len);
	if (err)
		return err;
	if (b->flags[0] & LK_KSYM_F_SAME_NAME)
		return "kallsyms: first symbol marked as a repeated name";
	for (i = 0; i < b->n; i++) {
		sz = lk_ksym_entry(b->names, b->names_len, off, &l);
		if (!sz)
			return "kallsyms: name entry malformed or past the "
			       "name stream";
		off += sz;
	}
	if (off != b->names_len)
		return "kallsyms: name stream longer than its entries";
	return lk_ksym_tokens(b->token_table, b->token_table_len, LK_NULL);
}

lk_u64 lk_ksym_work_size(const struct lk_ksym_blob *b)
{
	return 16ull * b->n;
}

lk_u64 lk_ksym_markers_size(const struct lk_ksym_blob *b)
{
	return 4ull * (((lk_u64)b->n + 255) >> 8);
}

/* scripts/kallsyms prints the tables in this order, each after
 * ".balign 8", into one .rodata. */
void lk_ksym_layout(const struct lk_ksym_blob *b, struct lk_ksym_layout *l)
{
	l->offsets = 0;
	l->relative_base = lk_ksym_up8(l->offsets + 4ull * b->n);
	l->num_syms = lk_ksym_up8(l->relative_base + 8);
	l->names = lk_ksym_up8(l->num_syms + 4);
	l->markers = lk_ksym_up8(l->names + b->names_len);
	l->seqs = lk_ksym_up8(l->markers + lk_ksym_markers_size(b));
	l->token_table = lk_ksym_up8(l->seqs + 3ull * b->n);
	l->token_index = lk_ksym_up8(l->token_table + b->token_table_len);
	l->size = l->token_index + LK_KSYM_INDEX_SIZE;
}

/* ---- the semantic check ---- */

/* Expands entry off (type letter first) into out; returns its length or
 * 0 when it does not fit kallsyms' limit. */
static lk_u32 lk_ksym_expand(const struct lk_ksym_blob *b, const lk_u16 *idx,
			     lk_u64 off, lk_u8 *out, lk_u64 *next)
{
	lk_u32 l = 0, sz, i, o = 0;
	const lk_u8 *t;

	sz = lk_ksym_entry(b->names, b->names_len, off, &l);
	*next = off + sz;
	for (i = 0; i < l; i++) {
		t = b->token_table + idx[b->names[off + sz - l + i]];
		for (; *t; t++) {
			if (o >= LK_KSYM_NAME_MAX)
				return 0;
			out[o++] = *t;
		}
	}
	out[o] = 0;
	return o;
}

void lk_ksym_names_begin(struct lk_ksym_names *it, const struct lk_ksym_blob *b)
{
	it->b = b;
	it->off = 0;
	it->i = 0;
	/* lk_ksym_open checked the table: this cannot fail. */
	lk_ksym_tokens(b->token_table, b->token_table_len, it->idx);
}

lk_u32 lk_ksym_names_next(struct lk_ksym_names *it, char *out)
{
	lk_u8 buf[LK_KSYM_NAME_MAX + 1];
	lk_u32 len;

	if (it->i >= it->b->n)
		return 0;
	it->i++;
	len = lk_ksym_expand(it->b, it->idx, it->off, buf, &it->off);
	if (len < 2) {
		out[0] = 0;
		return 0;
	}
	lk_ksym_copy((lk_u8 *)out, buf + 1, len); /* the name and its NUL */
	return len - 1;
}

static int lk_ksym_has(const lk_u8 *s, lk_u32 len, lk_u32 at, const char *what)
{
	lk_u32 i;

	for (i = 0; what[i]; i++)
		if (at + i >= len || s[at + i] != (lk_u8)what[i])
			return 0;
	return 1;
}

/* kallsyms' guess at a linker-script symbol: __start_*, __stop_*,
 * __end_*, __*_start, __*_end, for names of at least 8 bytes. */
static int lk_ksym_provide(const lk_u8 *name, lk_u32 len)
{
	if (len < 8 || name[0] != '_' || name[1] != '_')
		return 0;
	return lk_ksym_has(name, len, 2, "start_") ||
	       lk_ksym_has(name, len, 2, "stop_") ||
	       lk_ksym_has(name, len, 2, "end_") ||
	       lk_ksym_has(name, len, len - 6, "_start") ||
	       lk_ksym_has(name, len, len - 4, "_end");
}

/* What the flags byte must be for this name (minus SAME_NAME), or -1
 * when it cannot be expressed. */
static int lk_ksym_want_flags(const lk_u8 *s, lk_u32 len, lk_u8 have)
{
	lk_u32 us = 0;
	int f = 0;

	while (1 + us < len && s[1 + us] == '_')
		us++;
	if (us > LK_KSYM_F_UNDERSCORES)
		return -1;
	f = (int)us;
	if (s[0] == 'w' || s[0] == 'W')
		f |= LK_KSYM_F_WEAK;
	if (lk_ksym_provide(s + 1, len - 1))
		f |= LK_KSYM_F_PROVIDE;
	/* --absolute-percpu rewrote the letter of every percpu symbol. */
	if (have & LK_KSYM_F_PERCPU) {
		if (s[0] != 'A')
			return -1;
		f |= LK_KSYM_F_PERCPU;
	}
	return f;
}

/* strcmp of the names without their type letters. */
static int lk_ksym_namecmp(const lk_u8 *a, lk_u32 la, const lk_u8 *b, lk_u32 lb)
{
	lk_u32 i;

	for (i = 1; i < la && i < lb; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return la == lb ? 0 : (la < lb ? -1 : 1);
}

const char *lk_ksym_check(const struct lk_ksym_blob *b)
{
	lk_u16 idx[LK_KSYM_TOKENS];
	lk_u8 buf[2][LK_KSYM_NAME_MAX + 1];
	lk_u32 i, len[2] = { 0, 0 }, c;
	lk_u64 off = 0;
	int want, cmp;
	const char *err;

	err = lk_ksym_tokens(b->token_table, b->token_table_len, idx);
	if (err)
		return err;
	for (i = 0; i < b->n; i++) {
		c = i & 1;
		len[c] = lk_ksym_expand(b, idx, off, buf[c], &off);
		if (len[c] < 2)
			return "kallsyms: a name expands to nothing or past "
			       "512 bytes";
		want = lk_ksym_want_flags(buf[c], len[c], b->flags[i]);
		if (want < 0 ||
		    (lk_u8)want != (b->flags[i] & ~LK_KSYM_F_SAME_NAME))
			return "kallsyms: a symbol's flags do not match its "
			       "name";
		if (i == 0)
			continue;
		cmp = lk_ksym_namecmp(buf[c ^ 1], len[c ^ 1], buf[c], len[c]);
		if (cmp > 0 ||
		    (cmp == 0) != !!(b->flags[i] & LK_KSYM_F_SAME_NAME))
			return "kallsyms: symbols are not in name order";
	}
	return LK_NULL;
}

/* ---- this boot's tables ---- */

struct lk_ksym_sort {
	const lk_u64 *addr;
	const lk_u8 *flags;
};

/* The tie key at one address: non-weak, non-provide, fewer leading
 * underscores first. */
static lk_u32 lk_ksym_tie(lk_u8 f)
{
	return (lk_u32)(f & LK_KSYM_F_WEAK) << 2 | (f & LK_KSYM_F_PROVIDE) |
	       (f & LK_KSYM_F_UNDERSCORES);
}

/* kallsyms' address order; the blob index stands for nm's name order. */
static int lk_ksym_before(const struct lk_ksym_sort *s, lk_u32 x, lk_u32 y)
{
	lk_u32 tx, ty;

	if (s->addr[x] != s->addr[y])
		return s->addr[x] < s->addr[y];
	tx = lk_ksym_tie(s->flags[x]);
	ty = lk_ksym_tie(s->flags[y]);
	if (tx != ty)
		return tx < ty;
	return x < y;
}

static void lk_ksym_merge(const struct lk_ksym_sort *s, const lk_u32 *src,
			  lk_u32 *dst, lk_u32 lo, lk_u32 mid, lk_u32 hi)
{
	lk_u32 i = lo, j = mid, k = lo;

	while (i < mid && j < hi)
		dst[k++] =
			lk_ksym_before(s, src[j], src[i]) ? src[j++] : src[i++];
	while (i < mid)
		dst[k++] = src[i++];
	while (j < hi)
		dst[k++] = src[j++];
}

/* Bottom-up merge sort of 0..n-1 into order (tmp: n more words):
 * O(n log n) time, no recursion. */
static void lk_ksym_sort(const struct lk_ksym_sort *s, lk_u32 n, lk_u32 *order,
			 lk_u32 *tmp)
{
	lk_u32 *src = order, *dst = tmp, *t, i, w, mid, hi;

	for (i = 0; i < n; i++)
		order[i] = i;
	for (w = 1; w < n; w *= 2) {
		for (i = 0; i < n; i += 2 * w) {
			mid = n - i > w ? i + w : n;
			hi = n - i > 2 * w ? i + 2 * w : n;
			lk_ksym_merge(s, src, dst, i, mid, hi);
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != order)
		for (i = 0; i < n; i++)
			order[i] = src[i];
}

static void lk_ksym_sift(lk_u32 *a, lk_u32 root, lk_u32 n)
{
	lk_u32 child, t;

	while ((child = 2 * root + 1) < n) {
		if (child + 1 < n && a[child + 1] > a[child])
			child++;
		if (a[root] >= a[child])
			return;
		t = a[root];
		a[root] = a[child];
		a[child] = t;
		root = child;
	}
}

/* Ascending heapsort of one group of equal names' positions. */
static void lk_ksym_heapsort(lk_u32 *a, lk_u32 n)
{
	lk_u32 i, t;

	if (n < 2)
		return;
	for (i = n / 2; i-- > 0;)
		lk_ksym_sift(a, i, n);
	for (i = n - 1; i > 0; i--) {
		t = a[0];
		a[0] = a[i];
		a[i] = t;
		lk_ksym_sift(a, 0, i);
	}
}

static const char *lk_ksym_sizes(const struct lk_ksym_blob *b,
				 const struct lk_ksym_out *o)
{
	if (!o->offsets.p || o->offsets.len != 4ull * b->n)
		return "kallsyms: kallsyms_offsets is not 4 bytes a symbol";
	if (!o->relative_base.p || o->relative_base.len != 8)
		return "kallsyms: kallsyms_relative_base is not 8 bytes";
	if (!o->num_syms.p || o->num_syms.len != 4)
		return "kallsyms: kallsyms_num_syms is not 4 bytes";
	if (!o->names.p || o->names.len != b->names_len)
		return "kallsyms: kallsyms_names is not the reserved size";
	if (!o->markers.p || o->markers.len != lk_ksym_markers_size(b))
		return "kallsyms: kallsyms_markers is not the reserved size";
	if (!o->seqs.p || o->seqs.len != 3ull * b->n)
		return "kallsyms: kallsyms_seqs_of_names is not 3 bytes a "
		       "symbol";
	if (o->token_table.p && o->token_table.len != b->token_table_len)
		return "kallsyms: kallsyms_token_table is not the reserved "
		       "size";
	if (o->token_index.p && o->token_index.len != LK_KSYM_INDEX_SIZE)
		return "kallsyms: kallsyms_token_index is not 512 bytes";
	return LK_NULL;
}

/* --absolute-percpu: kallsyms takes the range from the symbols' own
 * values, inclusive at both ends, and rewrote the type letters from it;
 * the blob's compressed names hold those letters, so no symbol may
 * cross the range's border. */
static const char *lk_ksym_percpu(const struct lk_ksym_blob *b,
				  const lk_u64 *addr, lk_u32 *bad)
{
	lk_u64 lo = ~0ull, hi = 0;
	lk_u32 i;
	int in;

	if (b->percpu_start != LK_KSYM_NONE)
		lo = addr[b->percpu_start];
	if (b->percpu_end != LK_KSYM_NONE)
		hi = addr[b->percpu_end];
	for (i = 0; i < b->n; i++) {
		in = addr[i] >= lo && addr[i] <= hi;
		if (in != !!(b->flags[i] & LK_KSYM_F_PERCPU)) {
			*bad = i;
			return "kallsyms: a symbol crossed the percpu range's "
			       "border (its type letter would change)";
		}
	}
	return LK_NULL;
}

/* kallsyms_offsets in address order and kallsyms_relative_base: the
 * lowest non-percpu address; percpu values are stored as they are. */
static const char *lk_ksym_offsets(const struct lk_ksym_blob *b,
				   const lk_u64 *addr, const lk_u32 *order,
				   const struct lk_ksym_out *o, lk_u32 *bad)
{
	lk_u64 base = 0, a, d;
	lk_u32 k, i;

	for (k = 0; k < b->n; k++)
		if (!(b->flags[order[k]] & LK_KSYM_F_PERCPU)) {
			base = addr[order[k]];
			break;
		}
	for (k = 0; k < b->n; k++) {
		i = order[k];
		a = addr[i];
		if (b->flags[i] & LK_KSYM_F_PERCPU) {
			if (a > 0x7fffffffull) {
				*bad = i;
				return "kallsyms: percpu symbol value above "
				       "INT_MAX";
			}
			lk_ksym_wr32(o->offsets.p + 4ull * k, (lk_u32)a);
			continue;
		}
		d = a - base;
		if (d > 0x7fffffffull) {
			*bad = i;
			return "kallsyms: symbol more than 2 GiB above the "
			       "relative base";
		}
		/* base - a - 1, negative: the kernel tells it from percpu */
		lk_ksym_wr32(o->offsets.p + 4ull * k, (lk_u32)~d);
	}
	lk_ksym_wr32(o->relative_base.p, (lk_u32)base);
	lk_ksym_wr32(o->relative_base.p + 4, (lk_u32)(base >> 32));
	lk_ksym_wr32(o->num_syms.p, b->n);
	return LK_NULL;
}

/* kallsyms_names in address order and kallsyms_markers (the names'
 * offset at every 256th symbol). order[k]: the k-th symbol's blob index;
 * pos[i]: where blob entry i starts, its size up to the next one's start. */
static void lk_ksym_names(const struct lk_ksym_blob *b, const lk_u32 *order,
			  const lk_u32 *pos, const struct lk_ksym_out *o)
{
	lk_u64 out = 0;
	lk_u32 k, i, sz;

	for (k = 0; k < b->n; k++) {
		if ((k & 0xff) == 0)
			lk_ksym_wr32(o->markers.p + 4ull * (k >> 8),
				     (lk_u32)out);
		i = order[k];
		sz = pos[i + 1] - pos[i];
		lk_memcpy(o->names.p + out, b->names + pos[i], sz);
		out += sz;
	}
}

/* kallsyms_seqs_of_names: for each name in name order, the address-order
 * positions of its symbols, ascending (kallsyms breaks name ties by
 * address, then position, which is the same order). seq is consumed. */
static void lk_ksym_seqs(const struct lk_ksym_blob *b, lk_u32 *seq,
			 const struct lk_ksym_out *o)
{
	lk_u32 i = 0, j, g;
	lk_u8 *p = o->seqs.p;

	while (i < b->n) {
		for (g = i + 1; g < b->n && (b->flags[g] & LK_KSYM_F_SAME_NAME);
		     g++)
			;
		lk_ksym_heapsort(seq + i, g - i);
		for (j = i; j < g; j++, p += 3) {
			p[0] = (lk_u8)(seq[j] >> 16);
			p[1] = (lk_u8)(seq[j] >> 8);
			p[2] = (lk_u8)seq[j];
		}
		i = g;
	}
}

static void lk_ksym_token_out(const struct lk_ksym_blob *b,
			      const struct lk_ksym_out *o)
{
	lk_u16 idx[LK_KSYM_TOKENS];
	lk_u32 i;

	if (o->token_table.p)
		lk_ksym_copy(o->token_table.p, b->token_table,
			     b->token_table_len);
	if (!o->token_index.p)
		return;
	lk_ksym_tokens(b->token_table, b->token_table_len, idx);
	for (i = 0; i < LK_KSYM_TOKENS; i++) {
		o->token_index.p[2 * i] = (lk_u8)idx[i];
		o->token_index.p[2 * i + 1] = (lk_u8)(idx[i] >> 8);
	}
}

/* The tables, work already checked. */
/* The fast path's keys. On x86-64 percpu values are small offsets and
 * the kernel sits in the top 2 GiB: when every percpu value fits 31 bits,
 * every other symbol lies less than 2 GiB above the lowest (base) and
 * base is above them all, one u64 holds the whole sort key: a 32-bit
 * address rank, the tie key (7 bits) and the blob index (24 bits).
 * Plain words sort faster than indices compared through the address
 * array (4.0 against 7.1 ms for the whole emit of 107,069 symbols). Returns 0
 * when the layout does not fit: the general sort then decides (and finds any
 * overflow). */
static int lk_ksym_keys(const struct lk_ksym_blob *b, const lk_u64 *addr,
			lk_u64 *key)
{
	lk_u64 base = ~0ull, a, r;
	lk_u32 i;

	for (i = 0; i < b->n; i++)
		if (!(b->flags[i] & LK_KSYM_F_PERCPU) && addr[i] < base)
			base = addr[i];
	if (base < 0x80000000ull)
		return 0;
	for (i = 0; i < b->n; i++) {
		a = addr[i];
		if (b->flags[i] & LK_KSYM_F_PERCPU)
			r = a;
		else if (a - base <= 0x7fffffffull)
			r = 0x80000000ull + (a - base);
		else
			return 0;
		if (r > 0xffffffffull)
			return 0;
		key[i] = r << 31 | (lk_u64)lk_ksym_tie(b->flags[i]) << 24 | i;
	}
	return 1;
}

/* LSD radix sort of n words, a byte a pass, skipping the bytes all keys
 * share (most of the address's): ~2x faster than a merge sort of the same
 * words, whose compares the CPU cannot predict. The low 24 bits (the blob
 * index) are not sorted on: the words come in index order and every pass
 * is stable, so equal keys stay in it (3 passes fewer, of up to 8).
 * Returns whichever buffer holds the result. */
static lk_u64 *lk_ksym_sort64(lk_u64 *a, lk_u64 *t, lk_u32 n)
{
	lk_u32 cnt[256], sh, i, sum, c;
	lk_u64 *src = a, *dst = t, *x;

	for (sh = 24; sh < 64; sh += 8) {
		for (i = 0; i < 256; i++)
			cnt[i] = 0;
		for (i = 0; i < n; i++)
			cnt[(src[i] >> sh) & 0xff]++;
		if (cnt[(src[0] >> sh) & 0xff] == n)
			continue;
		for (i = 0, sum = 0; i < 256; i++) {
			c = cnt[i];
			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[(src[i] >> sh) & 0xff]++] = src[i];
		x = src;
		src = dst;
		dst = x;
	}
	return src;
}

/* This boot's address order into order[0..n), leaving order[n..2n) free;
 * both inside work (16n bytes). */
static lk_u32 *lk_ksym_order(const struct lk_ksym_blob *b, const lk_u64 *addr,
			     lk_u64 *work)
{
	struct lk_ksym_sort s;
	lk_u64 *sorted;
	lk_u32 *order, k;

	if (lk_ksym_keys(b, addr, work)) {
		sorted = lk_ksym_sort64(work, work + b->n, b->n);
		order = (lk_u32 *)(sorted == work ? work + b->n : work);
		for (k = 0; k < b->n; k++)
			order[k] = (lk_u32)(sorted[k] & 0xffffff);
		return order;
	}
	s.addr = addr;
	s.flags = b->flags;
	order = (lk_u32 *)work;
	lk_ksym_sort(&s, b->n, order, order + b->n);
	return order;
}

/* The tables, work already checked. */
static const char *lk_ksym_fill(const struct lk_ksym_blob *b,
				const lk_u64 *addr,
				const struct lk_ksym_out *out, lk_u64 *work,
				lk_u32 *bad)
{
	lk_u32 *order, *seq, *pos, i, k, l;
	lk_u64 off = 0;
	const char *err;

	err = lk_ksym_sizes(b, out);
	if (!err)
		err = lk_ksym_percpu(b, addr, bad);
	if (err)
		return err;
	order = lk_ksym_order(b, addr, work);
	seq = order + b->n;
	err = lk_ksym_offsets(b, addr, order, out, bad);
	if (err)
		return err;
	for (k = 0; k < b->n; k++)
		seq[order[k]] = k;
	/* Each entry's start, in blob order (lk_ksym_open checked them all),
	 * n + 1 words in the half of work that order and seq left free. */
	pos = order == (lk_u32 *)work ? order + 2 * b->n : (lk_u32 *)work;
	for (i = 0; i < b->n; i++) {
		pos[i] = (lk_u32)off;
		off += lk_ksym_entry(b->names, b->names_len, off, &l);
	}
	pos[b->n] = (lk_u32)off;
	lk_ksym_names(b, order, pos, out);
	lk_ksym_seqs(b, seq, out);
	lk_ksym_token_out(b, out);
	return LK_NULL;
}

const char *lk_ksym_emit(const struct lk_ksym_blob *b, const lk_u64 *addr,
			 lk_u64 naddr, const struct lk_ksym_out *out,
			 void *work, lk_u64 work_len, lk_u32 *bad)
{
	lk_u64 *w = work, i;
	lk_u32 dummy;
	const char *err;

	if (!bad)
		bad = &dummy;
	*bad = LK_KSYM_NONE;
	if (!addr || naddr != b->n)
		return "kallsyms: address count differs from the blob's "
		       "symbols";
	if (!work || ((lk_uptr)work & 7) || work_len < lk_ksym_work_size(b))
		return "kallsyms: work memory too small or unaligned";
	err = lk_ksym_fill(b, addr, out, w, bad);
	/* The work holds this boot's symbol order: the layout. */
	for (i = 0; i < 2ull * b->n; i++)
		w[i] = 0;
	return err;
}

/* Zeroes sec[from, to). */
static void lk_ksym_zero(lk_u8 *sec, lk_u64 from, lk_u64 to)
{
	for (; from < to; from++)
		sec[from] = 0;
}

const char *lk_ksym_emit_section(const struct lk_ksym_blob *b,
				 const lk_u64 *addr, lk_u64 naddr, lk_u8 *sec,
				 lk_u64 sec_len, void *work, lk_u64 work_len,
				 lk_u32 *bad)
{
	struct lk_ksym_layout l;
	struct lk_ksym_out o;

	lk_ksym_layout(b, &l);
	if (!sec || sec_len != l.size)
		return "kallsyms: section is not the size scripts/kallsyms "
		       "lays out";
	/* Every table is written whole: only the .balign gaps need zeros. */
	lk_ksym_zero(sec, 4ull * b->n, l.relative_base);
	lk_ksym_zero(sec, l.relative_base + 8, l.num_syms);
	lk_ksym_zero(sec, l.num_syms + 4, l.names);
	lk_ksym_zero(sec, l.names + b->names_len, l.markers);
	lk_ksym_zero(sec, l.markers + lk_ksym_markers_size(b), l.seqs);
	lk_ksym_zero(sec, l.seqs + 3ull * b->n, l.token_table);
	lk_ksym_zero(sec, l.token_table + b->token_table_len, l.token_index);
	o.offsets.p = sec + l.offsets;
	o.offsets.len = 4ull * b->n;
	o.relative_base.p = sec + l.relative_base;
	o.relative_base.len = 8;
	o.num_syms.p = sec + l.num_syms;
	o.num_syms.len = 4;
	o.names.p = sec + l.names;
	o.names.len = b->names_len;
	o.markers.p = sec + l.markers;
	o.markers.len = lk_ksym_markers_size(b);
	o.seqs.p = sec + l.seqs;
	o.seqs.len = 3ull * b->n;
	o.token_table.p = sec + l.token_table;
	o.token_table.len = b->token_table_len;
	o.token_index.p = sec + l.token_index;
	o.token_index.len = LK_KSYM_INDEX_SIZE;
	return lk_ksym_emit(b, addr, naddr, &o, work, work_len, bad);
}
