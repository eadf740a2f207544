/*
 * Host half of the boot-time kallsyms: the order-invariant work of Linux
 * 6.1's scripts/kallsyms (--all-symbols --absolute-percpu --base-relative)
 * done once, serialized for linkkit/linux_kallsyms.c.
 *
 * Why the result does not depend on the layout: the symbols kept are
 * chosen by name and type letter alone; the token table is grown from
 * pair counts summed over all symbols, the best pair being the highest
 * count and, among equal counts, the lowest value of first byte + 256 *
 * second byte; each symbol's compression only rewrites its own string.
 * Addresses reach the blob through the percpu letters only, and those
 * the boot side checks (a symbol may not cross the percpu range's border).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linkkit/linux_kallsyms.h"
#include "kbkallsyms.h"

#define KSYM_NAME_LEN 512 /* the kernel's KSYM_NAME_LEN in 6.1 */

struct ent {
	char *name;
	uint64_t addr;
	uint32_t line;
	uint32_t off; /* of the letter + name being compressed, in work */
	uint32_t len;
	char type;  /* the map's */
	char ktype; /* what kallsyms stores: 'A' for percpu symbols */
	uint8_t flags;
};

struct prep {
	struct kb_ksyms *k;
	struct ent *e;
	uint32_t n, cap;
	uint8_t *work; /* every letter + name, compressed in place */
	size_t work_len;
	int profit[0x10000];
	uint8_t tok[256][2]; /* the pair a token code stands for */
	uint8_t kind[256];   /* 0 unused, 1 a byte of some name, 2 a token */
};

static int fail(struct kb_ksyms *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail(struct kb_ksyms *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(k->err, sizeof(k->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- which symbols kallsyms keeps ---- */

static int starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static int ends(const char *s, const char *p)
{
	size_t ls = strlen(s), lp = strlen(p);

	return ls >= lp && strcmp(s + ls - lp, p) == 0;
}

/* scripts/kallsyms' ignore rules of 6.1 (is_ignored_symbol): its own
 * tables (added after pass 1), other architectures' linker stubs, CFI
 * type ids, undefined, debugging and most absolute symbols. */
static int ignored(const char *name, char type)
{
	static const char *const exact[] = {
		"kallsyms_addresses",
		"kallsyms_offsets",
		"kallsyms_relative_base",
		"kallsyms_num_syms",
		"kallsyms_names",
		"kallsyms_markers",
		"kallsyms_token_table",
		"kallsyms_token_index",
		"kallsyms_seqs_of_names",
		"_SDA_BASE_",
		"_SDA2_BASE_",
	};
	static const char *const prefix[] = {
		"__efistub_",
		"__kvm_nvhe_$",
		"__kvm_nvhe_.L",
		"__AArch64ADRPThunk_",
		"__ARMV5PILongThunk_",
		"__ARMV7PILongThunk_",
		"__ThumbV7PILongThunk_",
		"__LA25Thunk_",
		"__microLA25Thunk_",
		"__kcfi_typeid_",
	};
	static const char *const suffix[] = { "_from_arm", "_from_thumb",
					      "_veneer" };
	static const char *const inside[] = { ".long_branch.", ".plt_branch." };
	static const char *const keep_abs[] = {
		"__kernel_syscall_via_break",
		"__kernel_syscall_via_epc",
		"__kernel_sigtramp",
		"__gp",
	};
	size_t i;

	for (i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (!strcmp(name, exact[i]))
			return 1;
	for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (starts(name, prefix[i]))
			return 1;
	for (i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++)
		if (ends(name, suffix[i]))
			return 1;
	for (i = 0; i < sizeof(inside) / sizeof(inside[0]); i++)
		if (strstr(name, inside[i]))
			return 1;
	if (strchr("UuNn", type))
		return 1;
	if (type == 'A' || type == 'a') {
		for (i = 0; i < sizeof(keep_abs) / sizeof(keep_abs[0]); i++)
			if (!strcmp(name, keep_abs[i]))
				return 0;
		return 1;
	}
	return 0;
}

/* ---- reading the map ---- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static const char *blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static int add(struct prep *p, const char *name, size_t nlen, uint64_t addr,
	       char type, uint32_t line)
{
	struct ent *e;

	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 4096;
		e = realloc(p->e, p->cap * sizeof(*e));
		if (!e)
			return fail(p->k, "out of memory");
		p->e = e;
	}
	e = &p->e[p->n++];
	memset(e, 0, sizeof(*e));
	e->name = strndup(name, nlen);
	if (!e->name)
		return fail(p->k, "out of memory");
	e->addr = addr;
	e->type = type;
	e->ktype = type;
	e->line = line;
	return 0;
}

/* One "address letter name" line; blank lines are skipped as fscanf
 * would. */
static int parse_line(struct prep *p, const char *s, const char *end,
		      uint32_t line)
{
	uint64_t addr = 0;
	const char *name;
	int d, digits = 0;
	char type;

	s = blanks(s, end);
	if (s == end)
		return 0;
	for (; s < end && (d = hexval(*s)) >= 0; s++, digits++)
		addr = addr << 4 | (uint64_t)d;
	if (digits == 0 || digits > 16 || s == end || (*s != ' ' && *s != '\t'))
		return fail(p->k, "map line %u: not \"address type name\"",
			    line + 1);
	s = blanks(s, end);
	if (end - s < 3 || (s[1] != ' ' && s[1] != '\t'))
		return fail(p->k, "map line %u: not \"address type name\"",
			    line + 1);
	type = *s;
	name = blanks(s + 1, end);
	for (s = name; s < end && *s != ' ' && *s != '\t' && *s; s++)
		;
	if (s == name || blanks(s, end) != end)
		return fail(p->k, "map line %u: not \"address type name\"",
			    line + 1);
	if (s - name >= KSYM_NAME_LEN) {
		p->k->long_names++; /* kallsyms drops it with a message */
		return 0;
	}
	return add(p, name, (size_t)(s - name), addr, type, line);
}

static int read_map(struct prep *p, const char *map, size_t len)
{
	const char *s = map, *end = map + len, *nl;
	uint32_t line = 0;

	for (; s < end; s = nl + 1, line++) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			nl = end;
		if (parse_line(p, s, nl, line))
			return -1;
	}
	return 0;
}

/* Drops ignored symbols; with --absolute-percpu, the ones in
 * [__per_cpu_start, __per_cpu_end] (the last such names kept, inclusive)
 * get the letter 'A'. */
static void filter(struct prep *p)
{
	uint64_t lo = ~0ull, hi = 0;
	uint32_t i, o = 0;

	for (i = 0; i < p->n; i++) {
		if (ignored(p->e[i].name, p->e[i].type)) {
			free(p->e[i].name);
			continue;
		}
		if (!strcmp(p->e[i].name, "__per_cpu_start"))
			lo = p->e[i].addr;
		else if (!strcmp(p->e[i].name, "__per_cpu_end"))
			hi = p->e[i].addr;
		p->e[o++] = p->e[i];
	}
	p->n = o;
	for (i = 0; i < p->n; i++)
		if (p->e[i].addr >= lo && p->e[i].addr <= hi) {
			p->e[i].ktype = 'A';
			p->e[i].flags |= LK_KSYM_F_PERCPU;
		}
}

/* ---- compression ---- */

static void count(struct prep *p, const struct ent *e, int d)
{
	const uint8_t *s = p->work + e->off;
	uint32_t i;

	for (i = 0; i + 1 < e->len; i++)
		p->profit[s[i] | s[i + 1] << 8] += d;
}

static int has_pair(const uint8_t *s, uint32_t len, uint8_t a, uint8_t b)
{
	const uint8_t *q, *end = s + len;

	for (q = s; len > 1 && (q = memchr(q, a, (size_t)(end - q - 1))); q++)
		if (q[1] == b)
			return 1;
	return 0;
}

/* Left to right, each pair not overlapping one already replaced. */
static uint32_t replace(uint8_t *s, uint32_t len, uint8_t a, uint8_t b,
			uint8_t code)
{
	uint32_t i = 0, o = 0;

	while (i < len) {
		if (i + 1 < len && s[i] == a && s[i + 1] == b) {
			s[o++] = code;
			i += 2;
		} else
			s[o++] = s[i++];
	}
	return o;
}

static int load_work(struct prep *p)
{
	size_t total = 0;
	uint32_t i;
	struct ent *e;

	for (i = 0; i < p->n; i++)
		total += strlen(p->e[i].name) + 1;
	p->work = malloc(total ? total : 1);
	if (!p->work)
		return fail(p->k, "out of memory");
	for (i = 0, total = 0; i < p->n; i++) {
		e = &p->e[i];
		e->off = (uint32_t)total;
		e->len = (uint32_t)strlen(e->name) + 1;
		p->work[total] = (uint8_t)e->ktype;
		memcpy(p->work + total + 1, e->name, e->len - 1);
		total += e->len;
	}
	p->work_len = total;
	return 0;
}

/* The highest count, the lowest pair value among equals. */
static int best_pair(const struct prep *p)
{
	int i, best = 0;

	for (i = 1; i < 0x10000; i++)
		if (p->profit[i] > p->profit[best])
			best = i;
	return best;
}

/* Codes no name uses become tokens, from 255 down (0 last), each the
 * best pair of what is left, until the free codes run out or no pair is
 * left (a pair seen once still becomes a token, as in kallsyms). */
static void compress(struct prep *p)
{
	uint32_t i, j;
	int code, best;
	uint8_t a, b;
	struct ent *e;

	for (i = 0; i < p->work_len; i++)
		p->kind[p->work[i]] = 1;
	for (i = 0; i < p->n; i++)
		count(p, &p->e[i], 1);
	for (code = 255; code >= 0; code--) {
		if (p->kind[code])
			continue;
		best = best_pair(p);
		if (p->profit[best] == 0)
			break;
		a = (uint8_t)best;
		b = (uint8_t)(best >> 8);
		p->kind[code] = 2;
		p->tok[code][0] = a;
		p->tok[code][1] = b;
		for (j = 0; j < p->n; j++) {
			e = &p->e[j];
			if (!has_pair(p->work + e->off, e->len, a, b))
				continue;
			count(p, e, -1);
			e->len = replace(p->work + e->off, e->len, a, b,
					 (uint8_t)code);
			count(p, e, 1);
		}
	}
}

/* A code's text: itself for a name byte, its pair's texts for a token,
 * nothing for an unused code. */
static size_t expand(const struct prep *p, uint8_t c, char *out, size_t room)
{
	size_t l;

	if (p->kind[c] == 1) {
		if (room)
			*out = (char)c;
		return 1;
	}
	if (p->kind[c] != 2)
		return 0;
	l = expand(p, p->tok[c][0], out, room);
	return l + expand(p, p->tok[c][1], out + (l < room ? l : room),
			  l < room ? room - l : 0);
}

/* ---- blob order and flags ---- */

static int by_name(const void *x, const void *y)
{
	const struct ent *a = x, *b = y;
	int c = strcmp(a->name, b->name);
	int wa = a->ktype == 'w' || a->ktype == 'W';
	int wb = b->ktype == 'w' || b->ktype == 'W';
	int ga = a->type >= 'A' && a->type <= 'Z';
	int gb = b->type >= 'A' && b->type <= 'Z';

	if (c)
		return c;
	if (wa != wb)
		return wa - wb;
	/* At one address, nm lists equal names in symbol-table order, where
	 * ELF puts every local before the globals. */
	if (ga != gb)
		return ga - gb;
	if (a->type != b->type)
		return (unsigned char)a->type - (unsigned char)b->type;
	return a->line < b->line ? -1 : a->line > b->line;
}

static int provide(const char *s)
{
	size_t l = strlen(s);

	if (l < 8 || s[0] != '_' || s[1] != '_')
		return 0;
	return starts(s + 2, "start_") || starts(s + 2, "stop_") ||
	       starts(s + 2, "end_") || ends(s, "_start") || ends(s, "_end");
}

static int set_flags(struct prep *p)
{
	uint32_t i;
	size_t us;
	struct ent *e;

	for (i = 0; i < p->n; i++) {
		e = &p->e[i];
		us = strspn(e->name, "_");
		if (us > LK_KSYM_F_UNDERSCORES)
			return fail(p->k,
				    "map line %u: %s: more than 15 leading "
				    "underscores",
				    e->line + 1, e->name);
		e->flags |= (uint8_t)us;
		if (e->ktype == 'w' || e->ktype == 'W')
			e->flags |= LK_KSYM_F_WEAK;
		if (provide(e->name))
			e->flags |= LK_KSYM_F_PROVIDE;
		if (i && !strcmp(e->name, p->e[i - 1].name))
			e->flags |= LK_KSYM_F_SAME_NAME;
	}
	return 0;
}

/* ---- the blob ---- */

static void put32(uint8_t *d, uint32_t v)
{
	d[0] = (uint8_t)v;
	d[1] = (uint8_t)(v >> 8);
	d[2] = (uint8_t)(v >> 16);
	d[3] = (uint8_t)(v >> 24);
}

/* kallsyms takes the range from the last such name in the map. */
static uint32_t find(const struct prep *p, const char *name)
{
	uint32_t i, r = LK_KSYM_NONE;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->e[i].name, name) &&
		    (r == LK_KSYM_NONE || p->e[i].line > p->e[r].line))
			r = i;
	return r;
}

static int serialize(struct prep *p)
{
	size_t names = 0, tt = 0, off, l;
	uint32_t i, c;
	uint8_t *b;
	char text[KSYM_NAME_LEN * 4];

	for (i = 0; i < p->n; i++) {
		if (p->e[i].len > LK_KSYM_MAX_LEN)
			return fail(p->k, "map line %u: %s: name too long",
				    p->e[i].line + 1, p->e[i].name);
		names += p->e[i].len + (p->e[i].len > 0x7f ? 2 : 1);
	}
	for (c = 0; c < 256; c++)
		tt += expand(p, (uint8_t)c, text, 0) + 1;
	if (names > UINT32_MAX || tt > UINT32_MAX)
		return fail(p->k, "kallsyms tables too large");
	p->k->blob_len = LK_KSYM_HDR + p->n + names + tt;
	b = p->k->blob = calloc(1, p->k->blob_len);
	if (!b)
		return fail(p->k, "out of memory");
	put32(b, LK_KSYM_MAGIC);
	put32(b + 4, LK_KSYM_VERSION);
	put32(b + 8, p->n);
	put32(b + 12, (uint32_t)names);
	put32(b + 16, (uint32_t)tt);
	put32(b + 20, find(p, "__per_cpu_start"));
	put32(b + 24, find(p, "__per_cpu_end"));
	off = LK_KSYM_HDR;
	for (i = 0; i < p->n; i++)
		b[off++] = p->e[i].flags;
	for (i = 0; i < p->n; i++) {
		l = p->e[i].len;
		if (l > 0x7f) {
			b[off++] = (uint8_t)(0x80 | (l & 0x7f));
			b[off++] = (uint8_t)(l >> 7);
		} else
			b[off++] = (uint8_t)l;
		memcpy(b + off, p->work + p->e[i].off, l);
		off += l;
	}
	for (c = 0; c < 256; c++) {
		l = expand(p, (uint8_t)c, (char *)b + off, tt);
		off += l + 1;
	}
	return 0;
}

/* The blob against the boot side's own checks, to fail here first. */
static int self_check(struct prep *p)
{
	struct lk_ksym_blob v;
	const char *err = lk_ksym_open(&v, p->k->blob, p->k->blob_len);

	if (!err)
		err = lk_ksym_check(&v);
	return err ? fail(p->k, "internal error: %s", err) : 0;
}

static int publish(struct prep *p)
{
	struct kb_ksyms *k = p->k;
	size_t total = 0, l;
	uint32_t i;

	k->syms = calloc(p->n ? p->n : 1, sizeof(*k->syms));
	for (i = 0; i < p->n; i++)
		total += strlen(p->e[i].name) + 1;
	k->pool = malloc(total ? total : 1);
	if (!k->syms || !k->pool)
		return fail(k, "out of memory");
	for (i = 0, total = 0; i < p->n; i++) {
		l = strlen(p->e[i].name) + 1;
		memcpy(k->pool + total, p->e[i].name, l);
		k->syms[i].name = k->pool + total;
		k->syms[i].addr = p->e[i].addr;
		k->syms[i].line = p->e[i].line;
		k->syms[i].type = p->e[i].type;
		total += l;
	}
	k->n = p->n;
	return 0;
}

int kb_ksyms_prep(const char *map, size_t len, struct kb_ksyms *k)
{
	struct prep *p;
	uint32_t i;
	int rc = -1;

	memset(k, 0, sizeof(*k));
	p = calloc(1, sizeof(*p));
	if (!p)
		return fail(k, "out of memory");
	p->k = k;
	if (read_map(p, map, len))
		goto out;
	filter(p);
	if (p->n == 0 || p->n >= LK_KSYM_MAX_SYMS) {
		fail(k, "%u symbols: kallsyms needs 1 to 2^24-1", p->n);
		goto out;
	}
	/* Sorted first: the compression does not care, the blob does. */
	qsort(p->e, p->n, sizeof(*p->e), by_name);
	if (set_flags(p) || load_work(p))
		goto out;
	compress(p);
	rc = serialize(p) || self_check(p) || publish(p) ? -1 : 0;
out:
	for (i = 0; i < p->n; i++)
		free(p->e[i].name);
	free(p->e);
	free(p->work);
	free(p);
	return rc;
}

void kb_ksyms_free(struct kb_ksyms *k)
{
	free(k->blob);
	free(k->syms);
	free(k->pool);
	k->blob = NULL;
	k->syms = NULL;
	k->pool = NULL;
}
