/*
 * libFuzzer target: the payload v3 relocation stream (reloc_stream.h), as a
 * differential test against a byte-at-a-time reference decoder written here
 * from kit_format.h's description of the format, not from the decoder.
 *
 * Input: a 24-byte header (little-endian u64 chunk size, u32 symbol count,
 * u32 record count, u32 first record byte, u32 salt for the symbol values
 * and section address) and then the stream bytes, copied to a buffer of
 * exactly their size so ASan sees any read past the stream end.
 *
 * Checked, for the same bytes:
 * - at every byte offset of the stream, the three decode paths
 *   (lk_rs_fast1, lk_rs_fast, lk_rs_fields, each on the window lk_rs_next
 *   gives them) against the reference: same status, fields and length;
 *   each fast path takes exactly the records it is meant for;
 * - lk_rs_next over the chunk's records: same records, bytes used, and the
 *   same refusal (status, record, refused value) as the reference; each
 *   record re-encoded by the host's lk_rs_encode decodes to itself;
 * - lk_reloc_chunk_apply on a one-chunk link (small sizes only), live and
 *   as a dead copy: the same patched bytes as a reference S + A - P, the
 *   same error count, and the refusal's line naming the record and stream
 *   byte. The salt also picks symbol values at the edges of the field
 *   ranges, which hashed values would not hit.
 *
 * fz_replay.c runs the same harness built for i386 (make test).
 */
#include "fz_host.h"
#include "link_internal.h"

enum { RF_HDR = 24, RF_MAX_APPLY_SIZE = 1 << 20, RF_MAX_APPLY_SYMS = 1 << 16 };

/* One record as the reference reads it. */
struct rf_rec {
	int st;		    /* LK_RS_* */
	lk_u32 used;	    /* bytes, when st == LK_RS_OK */
	lk_u32 longest;	    /* longest varint, bytes */
	lk_u32 header;	    /* the header byte (0x100: none) */
	lk_u32 tix;	    /* type index */
	lk_u64 delta, symz; /* offset delta, zigzag symbol delta */
	lk_i64 addend;
};

/* A LEB128 varint at s[*pos] of a stream of n bytes: at most 10 bytes, the
 * 10th only 0 or 1 (bit 63). */
static int rf_varint(const lk_u8 *s, lk_u32 n, lk_u32 *pos, lk_u64 *v,
		     lk_u32 *longest)
{
	lk_u64 x = 0;
	lk_u32 k, b;

	for (k = 0; k < 10; k++) {
		if (*pos >= n)
			return LK_RS_TRUNC;
		b = s[(*pos)++];
		if (k == 9 && b > 1)
			return LK_RS_VARINT;
		x |= (lk_u64)(b & 0x7f) << (7 * k);
		if (!(b & 0x80)) {
			*v = x;
			if (k + 1 > *longest)
				*longest = k + 1;
			return LK_RS_OK;
		}
	}
	return LK_RS_VARINT;
}

static lk_i64 rf_unzigzag(lk_u64 z)
{
	lk_i64 h = (lk_i64)(z >> 1);

	return (z & 1) ? -h - 1 : h;
}

/* The record at s[pos] of a stream of n bytes, fields not yet checked
 * against the chunk. */
static void rf_record(const lk_u8 *s, lk_u32 n, lk_u32 pos, struct rf_rec *r)
{
	lk_u32 start = pos, form;
	lk_u64 az = 0;

	memset(r, 0, sizeof(*r));
	r->header = 0x100;
	if (pos >= n) {
		r->st = LK_RS_TRUNC;
		return;
	}
	r->header = s[pos++];
	r->tix = r->header & 0xf;
	form = (r->header >> 4) & 3;
	if (r->tix >= LK_RS_NTYPES) {
		r->st = LK_RS_TYPE;
		return;
	}
	if ((r->header & 0xc0) || form == 3) {
		r->st = LK_RS_RESERVED;
		return;
	}
	r->st = rf_varint(s, n, &pos, &r->delta, &r->longest);
	if (r->st == LK_RS_OK)
		r->st = rf_varint(s, n, &pos, &r->symz, &r->longest);
	if (r->st == LK_RS_OK && form == 2)
		r->st = rf_varint(s, n, &pos, &az, &r->longest);
	r->addend = form == 0 ? 0 : form == 1 ? -4 : rf_unzigzag(az);
	r->used = pos - start;
}

/* R_X86_64_* facts for the reference: field bytes, PC-relative, and the
 * values that fit (as signed 64-bit; 32 is unsigned, 16 and 8 either). */
struct rf_type {
	lk_u32 type, width, pc;
	lk_i64 lo, hi;
};

static const struct rf_type rf_types[] = {
	{ LK_R_X86_64_64, 8, 0, INT64_MIN, INT64_MAX },
	{ LK_R_X86_64_PC32, 4, 1, -0x80000000ll, 0x7fffffffll },
	{ LK_R_X86_64_32, 4, 0, 0, 0xffffffffll },
	{ LK_R_X86_64_32S, 4, 0, -0x80000000ll, 0x7fffffffll },
	{ LK_R_X86_64_16, 2, 0, -0x8000, 0xffff },
	{ LK_R_X86_64_PC16, 2, 1, -0x8000, 0x7fff },
	{ LK_R_X86_64_8, 1, 0, -0x80, 0xff },
	{ LK_R_X86_64_PC8, 1, 1, -0x80, 0x7f },
	{ LK_R_X86_64_PC64, 8, 1, INT64_MIN, INT64_MAX },
};

/* One chunk's records decoded by the reference, with the chunk checks. */
struct rf_chunk {
	lk_u64 size, off, sym;
	lk_u32 nsym, pos;
};

/* The next record: r->st is its status after the chunk checks; bad (on
 * LK_RS_OFFSET, LK_RS_SYMBOL) the refused offset or symbol. */
static void rf_next(struct rf_chunk *c, const lk_u8 *s, lk_u32 n,
		    struct rf_rec *r, lk_u64 *off, lk_u64 *sym, lk_u64 *bad)
{
	lk_u64 width, end, y;
	lk_i64 dz;
	int wraps, out;

	rf_record(s, n, c->pos, r);
	if (r->st != LK_RS_OK)
		return;
	/* No __int128: this also builds for i386, as the BIOS stage. */
	width = rf_types[r->tix].width;
	wraps = r->delta > UINT64_MAX - c->off;
	end = c->off + r->delta;
	if (wraps || end > c->size || width > c->size - end) {
		*bad = wraps ? UINT64_MAX : end;
		r->st = LK_RS_OFFSET;
		return;
	}
	dz = rf_unzigzag(r->symz);
	y = c->sym + (lk_u64)dz; /* the decoder reports it modulo 2^64 */
	out = dz < 0 ? (lk_u64) - (dz + 1) + 1 > c->sym
		     : (lk_u64)dz >= c->nsym - c->sym;
	if (out) {
		*bad = y;
		r->st = LK_RS_SYMBOL;
		return;
	}
	c->off = *off = end;
	c->sym = *sym = y;
	c->pos += r->used;
}

static void rf_fail(const char *what, lk_u32 pos)
{
	fprintf(stderr, "fuzz_rstream: %s (stream byte %u)\n", what, pos);
	abort();
}

/* ---- The three decode paths at every byte ---- */

static void rf_paths_at(const lk_u8 *s, lk_u32 n, lk_u32 pos)
{
	lk_u8 tail[LK_RS_WINDOW];
	const lk_u8 *w = s + pos;
	lk_u32 left = n - pos, k, used = 0;
	lk_u64 delta = 0, symz = 0, addz = 0, bad = 0;
	struct rf_rec r;
	int st, ok;

	/* The window lk_rs_next hands the paths. */
	if (left < LK_RS_WINDOW) {
		for (k = 0; k < LK_RS_WINDOW; k++)
			tail[k] = k < left ? s[pos + k] : 0xff;
		w = tail;
	}
	rf_record(s, n, pos, &r);
	ok = r.st == LK_RS_OK;

	st = lk_rs_fields(w, &used, &delta, &symz, &addz, &bad);
	if (r.st == LK_RS_TRUNC) {
		if (used <= left)
			rf_fail("fields: a cut record not read as cut", pos);
	} else if (st != r.st || used > left) {
		rf_fail("fields: status differs", pos);
	}
	if (ok && (used != r.used || delta != r.delta || symz != r.symz ||
		   rf_unzigzag(addz) != r.addend))
		rf_fail("fields: record differs", pos);

	used = 0;
	st = lk_rs_fast(w, &used, &delta, &symz, &addz);
	if (st != (ok && r.longest <= 8))
		rf_fail("fast: takes the wrong records", pos);
	if (st && (used != r.used || delta != r.delta || symz != r.symz ||
		   rf_unzigzag(addz) != r.addend))
		rf_fail("fast: record differs", pos);

	used = 0;
	st = lk_rs_fast1(w, &used, &delta, &symz, &addz);
	if (st != (ok && r.used <= 9))
		rf_fail("fast1: takes the wrong records", pos);
	if (st && (used != r.used || delta != r.delta || symz != r.symz ||
		   rf_unzigzag(addz) != r.addend))
		rf_fail("fast1: record differs", pos);
}

/* ---- lk_rs_next over one chunk ---- */

/* The host's encoder on a record the decoder took (after prev_off and
 * prev_sym): no longer than the bytes it came from (its encoding is the
 * shortest), and decoded back to the same record from a buffer of exactly
 * its size. */
static void rf_reencode(const struct lk_reloc *got, const struct lk_rs *d,
			const struct rf_rec *r, lk_u64 prev_off,
			lk_u64 prev_sym, lk_u32 at)
{
	lk_u8 enc[LK_RS_MAX], *b;
	struct lk_reloc back;
	struct lk_rs e;
	lk_u32 len = lk_rs_encode(enc, got, prev_off, (lk_u32)prev_sym);

	if (len == 0 || len > r->used)
		rf_fail("encode: refused or longer than the input", at);
	b = malloc(len);
	if (!b)
		return;
	memcpy(b, enc, len);
	lk_rs_begin(&e, b, 0, len, d->size, d->nsym);
	e.off = prev_off;
	e.sym = prev_sym;
	if (lk_rs_next(&e, &back) != LK_RS_OK || e.p != b + len ||
	    back.offset != got->offset || back.type != got->type ||
	    back.sym != got->sym || back.addend != got->addend)
		rf_fail("encode: does not decode to the record", at);
	free(b);
}

static void rf_chunk_decode(const lk_u8 *s, lk_u32 n, lk_u32 first,
			    lk_u32 count, lk_u64 size, lk_u32 nsym)
{
	struct rf_chunk c = { size, 0, 0, nsym, first };
	struct lk_reloc got;
	struct rf_rec r;
	struct lk_rs d;
	lk_u64 off = 0, sym = 0, bad = 0, prev_off = 0, prev_sym = 0;
	lk_u32 k;
	int st;

	lk_rs_begin(&d, s, first, n, size, nsym);
	for (k = 0; k < count; k++) {
		lk_u32 at = c.pos;

		rf_next(&c, s, n, &r, &off, &sym, &bad);
		st = lk_rs_next(&d, &got);
		if (st != r.st)
			rf_fail("next: status differs", at);
		if (st != LK_RS_OK) {
			if ((lk_u32)(d.p - s) != at)
				rf_fail("next: refusal names another byte", at);
			if ((st == LK_RS_OFFSET || st == LK_RS_SYMBOL) &&
			    d.bad != bad)
				rf_fail("next: refused value differs", at);
			if ((st == LK_RS_TYPE || st == LK_RS_RESERVED) &&
			    d.bad != r.header)
				rf_fail("next: refused header differs", at);
			if (st == LK_RS_OFFSET && d.tix != r.tix)
				rf_fail("next: refused type differs", at);
			return;
		}
		if (got.offset != off || got.sym != sym ||
		    got.type != rf_types[r.tix].type ||
		    got.addend != r.addend || (lk_u32)(d.p - s) != c.pos)
			rf_fail("next: record differs", at);
		rf_reencode(&got, &d, &r, prev_off, prev_sym, at);
		prev_off = off;
		prev_sym = sym;
	}
}

/* ---- lk_reloc_chunk_apply on a one-chunk link ---- */

static char rf_line[256];
static lk_u32 rf_lines;

static void rf_log(void *ctx, int level, const char *line)
{
	(void)ctx;
	(void)level;
	if (strchr(line, '\n') || strchr(line, '\r'))
		abort();
	rf_lines++; /* the last line is the one checked: a refusal ends */
	snprintf(rf_line, sizeof(rf_line), "%s", line);
}

static lk_u64 rf_mix(lk_u64 x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Values around the edges of the field ranges (rf_types). */
static const lk_u64 rf_edges[] = {
	0,
	0x7f,
	0x80,
	0xff,
	0x100,
	0x7fff,
	0x8000,
	0xffff,
	0x10000,
	0x7fffffff,
	0x80000000,
	0xffffffff,
	0x100000000,
	-0x80ull,
	-0x81ull,
	-0x8000ull,
	-0x8001ull,
	-0x80000000ull,
	-0x80000001ull,
	0x7fffffffffffffffull,
	0x8000000000000000ull,
};

/* Symbol values: near the section (kernel-like, most relocations fit),
 * low (32 fits), tiny (8 and 16 fit), anything, or (section at 0) the
 * edges of the ranges give or take a few bytes, which random values
 * almost never hit. */
static lk_u64 rf_symval(lk_u32 mode, lk_u64 vma, lk_u64 m)
{
	switch (mode) {
	case 0:
	case 1:
		return vma + (m >> 44) - (1 << 19);
	case 2:
		return m >> 36;
	case 3:
		return m >> 57;
	case 4:
		return m;
	}
	return rf_edges[(m >> 8) % (sizeof(rf_edges) / sizeof(rf_edges[0]))] +
	       (lk_u64)((lk_i64)((m >> 32) % 9) - 4);
}

/* The line lk_reloc_chunk_apply gives for refused record k at byte at. */
static void rf_expect_line(char *buf, lk_size n, const struct rf_rec *r,
			   lk_u32 k, lk_u32 at, lk_u64 bad, lk_u64 size,
			   lk_u32 nsym, lk_u32 nrel)
{
	char why[128];

	switch (r->st) {
	case LK_RS_TYPE:
		snprintf(why, sizeof(why), "unknown type index %u",
			 r->header & 0xf);
		break;
	case LK_RS_RESERVED:
		snprintf(why, sizeof(why),
			 "reserved bits set in header byte 0x%02x", r->header);
		break;
	case LK_RS_VARINT:
		snprintf(why, sizeof(why),
			 "varint longer than 10 bytes or over 64 bits");
		break;
	case LK_RS_SYMBOL:
		snprintf(why, sizeof(why),
			 "symbol %llu out of range (%u symbols)",
			 (unsigned long long)bad, nsym);
		break;
	case LK_RS_OFFSET:
		snprintf(
			why, sizeof(why),
			"offset 0x%llx + %u bytes past the section size 0x%llx",
			(unsigned long long)bad, rf_types[r->tix].width,
			(unsigned long long)size);
		break;
	default:
		snprintf(
			why, sizeof(why),
			"runs past the end of the relocation stream (%u bytes)",
			nrel);
	}
	snprintf(buf, n,
		 "fuzz.kit: r.o(.text): bad relocation %u (stream byte %u): %s",
		 k, at, why);
}

/* The reference link of one chunk: patches img, returns the error count;
 * *line: the refusal's expected line, or "" when every record decoded. */
static lk_u32 rf_apply(const lk_u8 *s, lk_u32 n, const struct lk_chunk *ch,
		       lk_u32 nsym, lk_u64 vma, const lk_u64 *val,
		       const lk_u8 *known, lk_u8 *img, char *line, lk_size ln)
{
	struct rf_chunk c = { ch->size, 0, 0, nsym, ch->reloc_first };
	struct rf_rec r;
	lk_u64 off = 0, sym = 0, bad = 0, v;
	lk_u32 k, i, nerr = 0;

	line[0] = 0;
	for (k = 0; k < ch->reloc_count; k++) {
		lk_u32 at = c.pos;
		const struct rf_type *t;

		rf_next(&c, s, n, &r, &off, &sym, &bad);
		if (r.st != LK_RS_OK) {
			rf_expect_line(line, ln, &r, k, at, bad, ch->size, nsym,
				       n);
			return nerr + 1;
		}
		t = &rf_types[r.tix];
		if (!img)
			continue;
		if (!known[sym]) {
			nerr++;
			continue;
		}
		v = val[sym] + (lk_u64)r.addend - (t->pc ? vma + off : 0);
		if ((lk_i64)v < t->lo || (lk_i64)v > t->hi) {
			nerr++;
			continue;
		}
		for (i = 0; i < t->width; i++)
			img[off + i] = (lk_u8)(v >> (8 * i));
	}
	return nerr;
}

static void rf_chunk_apply(const lk_u8 *s, lk_u32 n, lk_u32 first, lk_u32 count,
			   lk_u64 size, lk_u32 nsym, lk_u32 salt)
{
	static const char str[] = "\0r.o\0.text";
	struct lk_host h = fz_host;
	struct lk_object obj = { 1, 0, 0, 0 };
	struct lk_chunk ch;
	struct lk_link L;
	struct lk_symbol *sy = calloc(nsym + 1, sizeof(*sy));
	lk_u64 *val = calloc(nsym + 1, sizeof(*val)), vma;
	lk_u8 *known = calloc(nsym + 1, 1), *img = malloc(size ? size : 1);
	lk_u8 *ref = malloc(size ? size : 1);
	char want[256];
	lk_u32 i, nerr, want_nerr, pass;

	if (!sy || !val || !known || !img || !ref)
		goto out;
	memset(&ch, 0, sizeof(ch));
	ch.name = 5;
	ch.size = size;
	ch.reloc_first = first;
	ch.reloc_count = count;
	vma = (salt & 7) >= 5
		      ? (salt >> 8) & 0xf
		      : 0xffffffff81000000ull + ((lk_u64)(salt >> 8) << 4);
	for (i = 0; i < nsym; i++) {
		lk_u64 m = rf_mix((lk_u64)salt << 32 | i);

		sy[i].kind = LK_SYM_ABS;
		known[i] = (m & 0xf) != 0 || !(salt & 8);
		val[i] = rf_symval(salt & 7, vma, m);
	}
	for (i = 0; i < size; i++)
		img[i] = ref[i] = (lk_u8)(i * 0x9d + salt);
	memset(&L, 0, sizeof(L));
	h.log = rf_log;
	L.h = &h;
	L.name = "fuzz.kit";
	L.obj = &obj;
	L.nobj = 1;
	L.chunk = &ch;
	L.nchunk = 1;
	L.sym = sy;
	L.nsym = nsym;
	L.rel = s;
	L.nrel = n;
	L.str = str;
	L.nstr = sizeof(str);
	L.chunk_vma = &vma;
	L.sym_val = val;
	L.sym_known = known;
	/* Live (patched) and dead (p == NULL: only checked). */
	for (pass = 0; pass < 2; pass++) {
		lk_u8 *p = pass ? NULL : img;

		rf_lines = 0;
		rf_line[0] = 0;
		nerr = 0;
		want_nerr = rf_apply(s, n, &ch, nsym, vma, val, known,
				     pass ? NULL : ref, want, sizeof(want));
		lk_reloc_chunk_apply(&L, 0, p, &nerr);
		if (nerr != want_nerr)
			rf_fail("apply: error count differs", first);
		if (rf_lines !=
		    (nerr < LK_RELOC_ERR_CAP ? nerr : LK_RELOC_ERR_CAP))
			rf_fail("apply: line count differs", first);
		if (want[0] && nerr <= LK_RELOC_ERR_CAP &&
		    strcmp(rf_line, want)) {
			fprintf(stderr, "got  %s\nwant %s\n", rf_line, want);
			rf_fail("apply: refusal line differs", first);
		}
		if (size && memcmp(img, ref, size))
			rf_fail("apply: patched bytes differ", first);
	}
out:
	free(sy);
	free(val);
	free(known);
	free(img);
	free(ref);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lk_u64 csize;
	lk_u32 nsym, count, first, salt, n, pos;
	lk_u8 *s;

	if (size < RF_HDR || (lk_u64)size - RF_HDR > 0xffffffffu)
		return 0;
	memcpy(&csize, data, 8);
	memcpy(&nsym, data + 8, 4);
	memcpy(&count, data + 12, 4);
	memcpy(&first, data + 16, 4);
	memcpy(&salt, data + 20, 4);
	n = (lk_u32)(size - RF_HDR);
	s = malloc(n ? n : 1);
	if (!s)
		return 0;
	memcpy(s, data + RF_HDR, n);
	for (pos = 0; pos <= n; pos++)
		rf_paths_at(s, n, pos);
	/* Where lk_link_open lets records start (below the stream end). */
	first = n ? first % n : 0;
	rf_chunk_decode(s, n, first, count, csize, nsym);
	if (csize <= RF_MAX_APPLY_SIZE && nsym <= RF_MAX_APPLY_SYMS)
		rf_chunk_apply(s, n, first, count, csize, nsym, salt);
	free(s);
	return 0;
}
