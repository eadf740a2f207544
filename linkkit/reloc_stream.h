/*
 * The relocation stream of payload version 3 (kit_format.h has the exact
 * encoding): the host's encoder and the boot side's decoder of one record,
 * both inline so the boot side decodes inside its relocation loop and the
 * tools and tests share the one encoder.
 *
 * The decoder reads LK_RS_WINDOW bytes at the cursor without a bound check
 * per byte; within LK_RS_WINDOW of the stream end it decodes from a copy
 * of the tail padded with 0xff, a byte no record can end with, so a record
 * cut by the end always reads as one that runs past it.
 */
#ifndef LK_RELOC_STREAM_H
#define LK_RELOC_STREAM_H

#include "kit_format.h"
#include "elf64.h"

/* Longest record: header + three 10-byte varints. */
#define LK_RS_MAX 31
#define LK_RS_WINDOW 32

/* Type index (header bits 0-3) -> R_X86_64_* and field bytes. */
#define LK_RS_NTYPES 9
static const lk_u8 lk_rs_types[LK_RS_NTYPES] = {
	LK_R_X86_64_64,	 LK_R_X86_64_PC32, LK_R_X86_64_32,
	LK_R_X86_64_32S, LK_R_X86_64_16,   LK_R_X86_64_PC16,
	LK_R_X86_64_8,	 LK_R_X86_64_PC8,  LK_R_X86_64_PC64,
};
static const lk_u8 lk_rs_widths[LK_RS_NTYPES] = { 8, 4, 4, 4, 2, 2, 1, 1, 8 };

/* Why a record was refused; LK_RS_OK = 0 when it was not. */
enum lk_rs_status {
	LK_RS_OK = 0,
	LK_RS_TYPE,	/* type index >= LK_RS_NTYPES */
	LK_RS_RESERVED, /* header bits 6-7 set, or addend form 3 */
	LK_RS_VARINT,	/* a varint over 10 bytes or 64 bits */
	LK_RS_SYMBOL,	/* symbol index >= the symbol count */
	LK_RS_OFFSET,	/* offset + field width past the chunk size */
	LK_RS_TRUNC,	/* the record runs past the stream end */
};

/* ---- Host side: encoding ---- */

static inline lk_u32 lk_rs_put_uleb(lk_u8 *out, lk_u64 v)
{
	lk_u32 n = 0;

	while (v >= 0x80) {
		out[n++] = (lk_u8)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (lk_u8)v;
	return n;
}

static inline lk_u64 lk_rs_zigzag(lk_i64 v)
{
	return ((lk_u64)v << 1) ^ (lk_u64)(v >> 63);
}

/* Type index of an R_X86_64_* type, -1 when the boot side has none. */
static inline int lk_rs_type_index(lk_u32 type)
{
	int i;

	for (i = 0; i < LK_RS_NTYPES; i++)
		if (lk_rs_types[i] == type)
			return i;
	return -1;
}

/*
 * Encodes r after the chunk's previous record (prev_off, prev_sym; 0 and 0
 * for the first) into out (LK_RS_MAX bytes). Returns the bytes written,
 * 0 when r cannot be encoded (unknown type, offset below prev_off).
 */
static inline lk_u32 lk_rs_encode(lk_u8 *out, const struct lk_reloc *r,
				  lk_u64 prev_off, lk_u32 prev_sym)
{
	int t = lk_rs_type_index(r->type);
	lk_u32 form = r->addend == 0 ? 0 : r->addend == -4 ? 1 : 2, n = 1;

	if (t < 0 || r->offset < prev_off)
		return 0;
	out[0] = (lk_u8)(t | form << 4);
	n += lk_rs_put_uleb(out + n, r->offset - prev_off);
	n += lk_rs_put_uleb(out + n,
			    lk_rs_zigzag((lk_i64)r->sym - (lk_i64)prev_sym));
	if (form == 2)
		n += lk_rs_put_uleb(out + n, lk_rs_zigzag(r->addend));
	return n;
}

/* ---- Boot side: decoding ---- */

/* The boot side's decode loop must be inlined whole, also at -Os. */
#define LK_RS_INLINE static inline __attribute__((always_inline))

/* A LEB128 varint at p[*i], at most 10 bytes and 64 bits. On failure *i
 * is just past the byte that failed. */
static inline int lk_rs_uleb_long(const lk_u8 *p, lk_u32 *i, lk_u64 *v)
{
	lk_u64 x = 0;
	lk_u32 k, b;

	for (k = 0; k < 10; k++) {
		b = p[(*i)++];
		x |= (lk_u64)(b & 0x7f) << (7 * k);
		if (b < 0x80) {
			/* The 10th byte holds only bit 63. */
			if (k == 9 && b > 1)
				return 0;
			*v = x;
			return 1;
		}
	}
	return 0;
}

/* The same, with the one- and two-byte forms (nearly every offset delta
 * and symbol delta) inline. */
LK_RS_INLINE int lk_rs_uleb(const lk_u8 *p, lk_u32 *i, lk_u64 *v)
{
	lk_u32 b0 = p[*i], b1;

	if (b0 < 0x80) {
		*v = b0;
		*i += 1;
		return 1;
	}
	b1 = p[*i + 1];
	if (b1 < 0x80) {
		*v = (b0 & 0x7f) | b1 << 7;
		*i += 2;
		return 1;
	}
	return lk_rs_uleb_long(p, i, v);
}

LK_RS_INLINE lk_i64 lk_rs_unzigzag(lk_u64 v)
{
	return (lk_i64)((v >> 1) ^ (0 - (v & 1)));
}

/* A chunk's records being decoded. Delta bases reset per chunk. */
struct lk_rs {
	const lk_u8 *p, *end; /* cursor, stream end */
	lk_u64 size;	      /* chunk size */
	lk_u64 off;	      /* previous record's offset */
	lk_u64 sym;	      /* previous record's symbol */
	lk_u32 nsym;
	lk_u32 tix; /* the record's type index */
	lk_u64 bad; /* after a refusal: the value refused */
};

static inline void lk_rs_begin(struct lk_rs *d, const lk_u8 *stream,
			       lk_u32 first, lk_u32 nbytes, lk_u64 size,
			       lk_u32 nsym)
{
	d->p = stream + first;
	d->end = stream + nbytes;
	d->size = size;
	d->off = 0;
	d->sym = 0;
	d->nsym = nsym;
	d->tix = 0;
	d->bad = 0;
}

/* The fields of a record at p (LK_RS_WINDOW bytes readable). *used: bytes
 * read, up to and including a byte that failed. */
LK_RS_INLINE int lk_rs_fields(const lk_u8 *p, lk_u32 *used, lk_u64 *delta,
			      lk_u64 *symz, lk_u64 *addz, lk_u64 *bad)
{
	lk_u32 h = p[0], i = 1;

	*used = 1;
	*bad = h;
	if ((h & 0xf) >= LK_RS_NTYPES)
		return LK_RS_TYPE;
	if ((h & 0xc0) || (h & 0x30) == 0x30)
		return LK_RS_RESERVED;
	*addz = (h & 0x30) ? 7 : 0; /* zigzag(-4) = 7 */
	if (!lk_rs_uleb(p, &i, delta) || !lk_rs_uleb(p, &i, symz) ||
	    ((h & 0x30) == 0x20 && !lk_rs_uleb(p, &i, addz))) {
		*used = i;
		return LK_RS_VARINT;
	}
	*used = i;
	return LK_RS_OK;
}

/* Trailing zeros of x != 0; in two halves on i386, where the 64-bit
 * builtin is a libgcc call the boot stages cannot make. */
LK_RS_INLINE lk_u32 lk_rs_ctz64(lk_u64 x)
{
#ifdef __x86_64__
	return (lk_u32)__builtin_ctzll(x);
#else
	lk_u32 lo = (lk_u32)x;

	return lo ? (lk_u32)__builtin_ctz(lo)
		  : 32 + (lk_u32)__builtin_ctz((lk_u32)(x >> 32));
#endif
}

typedef lk_u64 __attribute__((may_alias, aligned(1))) lk_rs_unal_u64;

/*
 * A varint of 1 to 8 bytes at p without a branch (x86 is little-endian):
 * *n = its length, 0 when it is longer; the careful decoder then takes
 * the record. Varint lengths vary record to record, so a branch per byte
 * mispredicts often; here the end is the lowest clear top bit of 8 bytes
 * and the 7-bit groups are packed by three shift rounds.
 */
LK_RS_INLINE lk_u64 lk_rs_uleb8(const lk_u8 *p, lk_u32 *n)
{
	lk_u64 w = *(const lk_rs_unal_u64 *)p, x;
	lk_u64 stop = ~w & 0x8080808080808080ull;

	*n = stop ? (lk_rs_ctz64(stop) >> 3) + 1 : 0;
	x = w & (stop ^ (stop - 1)) & 0x7f7f7f7f7f7f7f7full;
	x = (x & 0x007f007f007f007full) | ((x & 0x7f007f007f007f00ull) >> 1);
	x = (x & 0x00003fff00003fffull) | ((x & 0x3fff00003fff0000ull) >> 2);
	return (x & 0x000000000fffffffull) | ((x & 0x0fffffff00000000ull) >> 4);
}

/* The common record (known type, varints of at most 8 bytes), in
 * LK_RS_WINDOW bytes at p; 0 leaves it to lk_rs_fields. */
LK_RS_INLINE int lk_rs_fast(const lk_u8 *p, lk_u32 *used, lk_u64 *delta,
			    lk_u64 *symz, lk_u64 *addz)
{
	lk_u32 h = p[0], form = h >> 4, n1, n2, n3;
	lk_u64 a;

	*delta = lk_rs_uleb8(p + 1, &n1);
	*symz = lk_rs_uleb8(p + 1 + n1, &n2);
	a = lk_rs_uleb8(p + 1 + n1 + n2, &n3);
	if ((h & 0xf) >= LK_RS_NTYPES || form > 2 || !n1 || !n2 ||
	    (form == 2 && !n3))
		return 0;
	*addz = form == 2 ? a : form ? 7 : 0;
	*used = 1 + n1 + n2 + (form == 2 ? n3 : 0);
	return 1;
}

/* Bits 0..the lowest set bit of m (all of them when m == 0). */
LK_RS_INLINE lk_u64 lk_rs_upto(lk_u64 m)
{
	return m ^ (m - 1);
}

/* The 7-bit groups of a masked varint, packed (see lk_rs_uleb8). */
LK_RS_INLINE lk_u64 lk_rs_pack7(lk_u64 x)
{
	x &= 0x7f7f7f7f7f7f7f7full;
	x = (x & 0x007f007f007f007full) | ((x & 0x7f007f007f007f00ull) >> 1);
	x = (x & 0x00003fff00003fffull) | ((x & 0x3fff00003fff0000ull) >> 2);
	return (x & 0x000000000fffffffull) | ((x & 0x0fffffff00000000ull) >> 4);
}

/*
 * The usual record, whose varints all end within the 8 bytes after the
 * header (records are 3 to 6 bytes on the synthetic kernel): one load,
 * and the varint ends are the lowest clear top bits, taken off one by
 * one. The next record's address then depends on one load and a few
 * ALU steps; with a load per varint the chain of dependent loads made
 * decoding cost more than applying. 0: not such a record.
 */
LK_RS_INLINE int lk_rs_fast1(const lk_u8 *p, lk_u32 *used, lk_u64 *delta,
			     lk_u64 *symz, lk_u64 *addz)
{
	lk_u32 h = p[0], form = h >> 4;
	lk_u64 w = *(const lk_rs_unal_u64 *)(p + 1);
	lk_u64 s1 = ~w & 0x8080808080808080ull, s2 = s1 & (s1 - 1);
	lk_u64 s3 = s2 & (s2 - 1), m1 = lk_rs_upto(s1), m2 = lk_rs_upto(s2);
	lk_u64 m3 = lk_rs_upto(s3), last = form == 2 ? s3 : s2;
	lk_u32 sh1, sh2;

	if ((h & 0xf) >= LK_RS_NTYPES || form > 2 || !s2 || !last)
		return 0;
	sh1 = lk_rs_ctz64(s1) + 1;
	sh2 = lk_rs_ctz64(s2) + 1;
	*delta = lk_rs_pack7(w & m1);
	*symz = lk_rs_pack7((w & m2) >> sh1);
	*addz = form == 2 ? lk_rs_pack7((w & m3) >> sh2) : form ? 7 : 0;
	*used = 1 + ((lk_rs_ctz64(last) + 1) >> 3);
	return 1;
}

/* Decodes the next record into *r (type as R_X86_64_*), checked against
 * the stream end, the chunk size and the symbol count. */
LK_RS_INLINE int lk_rs_next(struct lk_rs *d, struct lk_reloc *r)
{
	lk_u8 tail[LK_RS_WINDOW];
	const lk_u8 *p = d->p;
	lk_u64 left = (lk_u64)(d->end - p), delta = 0, symz = 0, addz = 0, w;
	lk_u64 off = d->off, sym;
	lk_u32 used, k, tix;
	int st;

	if (left < LK_RS_WINDOW) {
		for (k = 0; k < LK_RS_WINDOW; k++)
			tail[k] = k < left ? p[k] : 0xff;
		p = tail;
	}
	if (!lk_rs_fast1(p, &used, &delta, &symz, &addz) &&
	    !lk_rs_fast(p, &used, &delta, &symz, &addz)) {
		st = lk_rs_fields(p, &used, &delta, &symz, &addz, &d->bad);
		if (used > left)
			return LK_RS_TRUNC;
		if (st != LK_RS_OK)
			return st;
	}
	if (used > left)
		return LK_RS_TRUNC;
	tix = p[0] & 0xf;
	w = lk_rs_widths[tix];
	d->tix = tix;
	if (delta > d->size - off || d->size - (off + delta) < w) {
		/* The offset for the message, saturated rather than wrapped. */
		d->bad = delta > ~0ull - off ? ~0ull : off + delta;
		return LK_RS_OFFSET;
	}
	off += delta;
	sym = d->sym + (lk_u64)lk_rs_unzigzag(symz);
	if (sym >= d->nsym) {
		d->bad = sym;
		return LK_RS_SYMBOL;
	}
	d->off = off;
	d->sym = sym;
	d->p += used; /* only now: errors name the record's first byte */
	r->offset = off;
	r->type = lk_rs_types[tix];
	r->sym = (lk_u32)sym;
	r->addend = lk_rs_unzigzag(addz);
	return LK_RS_OK;
}

#endif
