/*
 * RFC 1950/1951 decoder for the kit payload. Untrusted input: every read is
 * bounds-checked, output never passes dst_len, and each step consumes input
 * so any stream ends (success or error).
 *
 * Speed: Huffman codes decode through one lookup in a 2^11 (literal/length)
 * or 2^8 (distance) entry table, with second-level tables for longer codes.
 * An entry's low byte is the number of bits its code and extra bits take,
 * dropped in one shift; the extra bits are then cut from a copy of the
 * buffer taken before the shift. Literals test as the sign bit. The bit
 * count carries garbage above its low byte (whole entries are subtracted),
 * and the 64-bit buffer is refilled branch-free by one unaligned load while
 * at least 16 input bytes remain: one refill serves up to three literals,
 * or two and a length. Each table load is issued as soon as its index bits
 * are there: the next literal/length entry before the match is copied, the
 * distance entry before the refill that serves its bits. The loop is a
 * chain of dependent table loads; on the synth kit's 60 MB stream it runs
 * at libdeflate's speed (lk_inflate_raw 26.7 ms, libdeflate 27.7 ms with
 * its Adler-32, same minute; 39.6 ms before). Matches are copied as five
 * 8-byte words whatever their length (most are at most 40 bytes), then 8
 * bytes at a time, while at least LK_ROOM output bytes remain (the
 * Adler-32 of lk_inflate_zlib is linkkit/adler32.c's). Near either end a
 * careful loop with per-symbol checks takes over; past the end of the
 * input it feeds zero bytes and counts them (pad) so a truncated stream is
 * detected the moment a real bit is missing. Uses about 13 KiB of stack.
 */
#include "cpu.h"
#include "linkkit.h"

#define LK_LBITS 11 /* primary literal/length table index bits */
#define LK_DBITS 8  /* primary distance table index bits */
#define LK_CBITS 7  /* code-length code: max length 7, no subtables */
/*
 * Table capacities. In a complete canonical code the longer codes fill the
 * primary slots in order, so a subtable holding codes of one length has as
 * many entries as codes, and those mixing lengths have distinct index bits
 * (at most 15 - root of them). Hence at most 2^11 + 286 + (2^4+...+2) =
 * 2364 literal/length entries and 2^8 + 30 + (2^7+...+2) = 540 distance
 * entries; lk_build still refuses to pass the capacity.
 */
#define LK_LCAP 2364
#define LK_DCAP 540
/* Two literals, the longest match and the overshoot of its last 8-byte
 * word (a short match writes 40 bytes, no more than that). */
#define LK_ROOM (2 + 258 + 8)

/*
 * Table entry:
 *  bits 0-7   bits to drop: code length plus extra bits (a subtable link:
 *             the primary index bits); the low byte is the shift count
 *  bits 8-11  code length alone: the extra bits are the bits between it
 *             and the low byte's count (a link: the subtable index bits)
 *  bit 13     end of block (with bit 15)
 *  bit 14     subtable link (with bit 15)
 *  bit 15     exceptional: link, end of block or bad code. A length or
 *             distance has bits 12-15 clear, so (u8)(e >> 8) is its length.
 *  bits 16-30 value: literal, length or distance base, subtable offset
 *  bit 31     literal (a sign test)
 * lk_sym_entry leaves the extra bit count in the low byte; lk_build adds
 * the code length to it and to bits 8-11.
 */
#define LK_F_EOB 0x2000u
#define LK_F_SUB 0x4000u
#define LK_F_EXC 0x8000u
#define LK_F_LIT 0x80000000u
#define LK_E(flags, val) ((lk_u32)(flags) | (lk_u32)(val) << 16)
#define LK_EBAD LK_E(LK_F_EXC, 0)
#define LK_EN(e) ((lk_u8)(e))
#define LK_ELIT(e) ((lk_u8)((e) >> 16))
#define LK_ESUB(e) (((e) >> 8) & 15)
#define LK_MASK(n) ((1u << (n)) - 1)
#define LK_MASK64(n) (((lk_u64)1 << (n)) - 1)
/* Base plus extra bits of a length or distance entry; saved is the bit
 * buffer before the entry's bits were dropped. */
#define LK_EVAL(e, saved) \
	(((e) >> 16) +    \
	 (lk_u32)(((saved)&LK_MASK64(LK_EN(e))) >> (lk_u8)((e) >> 8)))

enum { LK_T_CL, LK_T_LIT, LK_T_DIST };
enum { LK_I_OK, LK_I_BAD };

typedef lk_u64 __attribute__((may_alias, aligned(1))) lk_unal64;

struct lk_inf {
	const lk_u8 *in, *in_end;
	lk_u8 *out, *out_beg, *out_end;
	lk_u64 bb;    /* bit buffer, next bit in bit 0 */
	unsigned bc;  /* valid bits in bb (zero padding included) */
	unsigned pad; /* zero bytes fed after the end of the input */
	int tables;   /* which code is in lit/dist: 0 none, 1 fixed, 2 dyn */
	int part;     /* lk_inflate_part: input may end after a stored block */
	int cut;      /* ... and it did (no final block seen) */
	int bmi2;     /* lk_fast takes its BMI2 build */
	lk_u32 lit[LK_LCAP];
	lk_u32 dist[LK_DCAP];
	lk_u8 lens[288 + 32];
};

static const lk_u16 lk_len_base[29] = {
	3,  4,	5,  6,	7,  8,	9,  10, 11,  13,  15,  17,  19,	 23,  27,
	31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
};
static const lk_u8 lk_len_extra[29] = {
	0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
	2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
};
static const lk_u16 lk_dist_base[30] = {
	1,    2,    3,	  4,	5,    7,    9,	  13,	 17,	25,
	33,   49,   65,	  97,	129,  193,  257,  385,	 513,	769,
	1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
};
static const lk_u8 lk_dist_extra[30] = {
	0, 0, 0, 0, 1, 1, 2, 2,	 3,  3,	 4,  4,	 5,  5,	 6,
	6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
};

/* What a symbol decodes to, with its extra bit count (no code length yet). */
static lk_u32 lk_sym_entry(int type, unsigned sym)
{
	if (type == LK_T_CL)
		return LK_E(LK_F_LIT, sym);
	if (type == LK_T_DIST)
		return sym < 30 ? LK_E(lk_dist_extra[sym], lk_dist_base[sym])
				: LK_EBAD;
	if (sym < 256)
		return LK_E(LK_F_LIT, sym);
	if (sym == 256)
		return LK_E(LK_F_EXC | LK_F_EOB, 0);
	sym -= 257;
	return sym < 29 ? LK_E(lk_len_extra[sym], lk_len_base[sym]) : LK_EBAD;
}

/* A symbol's entry once its code length n (within its table) is known. */
static lk_u32 lk_with_len(lk_u32 e, unsigned n)
{
	return e + n + (n << 8);
}

/* The next code of length len in canonical order, both bit-reversed (as
 * the stream sends them): the carry runs from bit len - 1 down. A longer
 * next code appends a zero, which leaves the reversed value as it is. */
static unsigned lk_rev_next(unsigned rev, unsigned len)
{
	unsigned bit = 1u << (len - 1);

	while (rev & bit) {
		rev ^= bit;
		bit >>= 1;
	}
	return rev | bit;
}

static void lk_fill(lk_u32 *t, unsigned from, unsigned stride, unsigned end,
		    lk_u32 e)
{
	for (; from < end; from += stride)
		t[from] = e;
}

/*
 * Over-subscribed codes are rejected; incomplete ones too, except (as zlib
 * does) a literal/distance code with a single 1-bit code or no codes.
 */
static int lk_code_ok(const lk_u16 count[16], int type, unsigned *max,
		      int *full)
{
	int left = 1;
	unsigned len;

	*max = 0;
	for (len = 1; len < 16; len++) {
		left = (left << 1) - count[len];
		if (left < 0)
			return 0;
		if (count[len])
			*max = len;
	}
	*full = left == 0;
	if (*max == 0)
		return type != LK_T_CL;
	return left == 0 || (type != LK_T_CL && *max == 1);
}

/* Index bits of the subtable that starts with a code of length len. */
static unsigned lk_sub_bits(const lk_u16 rem[16], unsigned len, unsigned tbits,
			    unsigned max)
{
	unsigned sb = len - tbits;
	int left = 1 << sb;

	while (sb + tbits < max) {
		left -= rem[sb + tbits];
		if (left <= 0)
			break;
		sb++;
		left <<= 1;
	}
	return sb;
}

static int lk_build(lk_u32 *t, unsigned cap, const lk_u8 *lens, unsigned n,
		    unsigned tbits, int type)
{
	lk_u16 count[16] = { 0 }, offs[16], sorted[288];
	unsigned s, len, max, rev = 0, i = 0, used = 1u << tbits;
	unsigned prefix = ~0u, sub = 0, sb = 0;
	int full;

	for (s = 0; s < n; s++)
		count[lens[s]]++;
	count[0] = 0;
	if (!lk_code_ok(count, type, &max, &full))
		return LK_I_BAD;
	/* A complete code writes every slot it can reach (as in zlib); an
	 * incomplete one has no code longer than 1 bit, hence no subtable. */
	if (!full)
		lk_fill(t, 0, 1, used, LK_EBAD);
	offs[1] = 0;
	for (len = 1; len < 15; len++)
		offs[len + 1] = (lk_u16)(offs[len] + count[len]);
	for (s = 0; s < n; s++)
		if (lens[s])
			sorted[offs[lens[s]]++] = (lk_u16)s;
	for (len = 1; len <= max; len++) {
		/* A complete code fills the primary table by doubling: codes
		 * of length len go into its first 2^len slots, then those
		 * slots are copied up (a slot no code of length <= len took
		 * belongs to a longer code, which overwrites it). */
		if (full && len > 1 && len <= tbits)
			lk_memcpy(t + (1u << (len - 1)), t,
				  (lk_size)(1u << (len - 1)) * sizeof(*t));
		for (; count[len]; count[len]--, rev = lk_rev_next(rev, len)) {
			lk_u32 e = lk_sym_entry(type, sorted[i++]);

			if (len <= tbits && full) {
				t[rev] = lk_with_len(e, len);
				continue;
			}
			if (len <= tbits) {
				lk_fill(t, rev, 1u << len, 1u << tbits,
					lk_with_len(e, len));
				continue;
			}
			if ((rev & LK_MASK(tbits)) != prefix) {
				prefix = rev & LK_MASK(tbits);
				sb = lk_sub_bits(count, len, tbits, max);
				sub = used;
				used += 1u << sb;
				if (used > cap)
					return LK_I_BAD;
				if (!full)
					lk_fill(t, sub, 1, used, LK_EBAD);
				t[prefix] = LK_E(LK_F_EXC | LK_F_SUB | sb << 8,
						 sub) |
					    tbits;
			}
			/* Cannot happen for a checked code; stay in bounds. */
			if (len - tbits > sb)
				return LK_I_BAD;
			lk_fill(t + sub, rev >> tbits, 1u << (len - tbits),
				1u << sb, lk_with_len(e, len - tbits));
		}
	}
	/* No code as long as the primary index: copy up to its size. */
	for (len = full ? max : tbits; len < tbits; len++)
		lk_memcpy(t + (1u << len), t, (lk_size)(1u << len) * sizeof(*t));
	return LK_I_OK;
}

/* ---- bit input for headers (not the hot path) ---- */

static void lk_refill(struct lk_inf *s)
{
	while (s->bc < 56) {
		lk_u64 b = 0;

		if (s->in < s->in_end)
			b = *s->in++;
		else
			s->pad++;
		s->bb |= b << s->bc;
		s->bc += 8;
	}
}

static int lk_truncated(const struct lk_inf *s)
{
	return s->bc < 8 * s->pad;
}

static unsigned lk_bits(struct lk_inf *s, unsigned n)
{
	unsigned v;

	lk_refill(s);
	v = (unsigned)s->bb & LK_MASK(n);
	s->bb >>= n;
	s->bc -= n;
	return v;
}

/* Drops to a byte boundary and returns unread whole bytes to the input. */
static int lk_align(struct lk_inf *s)
{
	unsigned nb;

	s->bb >>= s->bc & 7;
	s->bc &= ~7u;
	if (lk_truncated(s))
		return LK_I_BAD;
	nb = s->bc / 8 - s->pad;
	s->in -= nb;
	s->bb = 0;
	s->bc = 0;
	s->pad = 0;
	return LK_I_OK;
}

static int lk_stored(struct lk_inf *s)
{
	unsigned len, nlen;

	if (lk_align(s) || s->in_end - s->in < 4)
		return LK_I_BAD;
	len = s->in[0] | (unsigned)s->in[1] << 8;
	nlen = s->in[2] | (unsigned)s->in[3] << 8;
	s->in += 4;
	if (len != (~nlen & 0xffff) || (lk_size)(s->in_end - s->in) < len ||
	    (lk_size)(s->out_end - s->out) < len)
		return LK_I_BAD;
	lk_memcpy(s->out, s->in, len);
	s->in += len;
	s->out += len;
	return LK_I_OK;
}

static int lk_fixed(struct lk_inf *s)
{
	unsigned i;

	if (s->tables == 1)
		return LK_I_OK;
	for (i = 0; i < 288; i++)
		s->lens[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
	for (i = 0; i < 32; i++)
		s->lens[288 + i] = 5;
	if (lk_build(s->lit, LK_LCAP, s->lens, 288, LK_LBITS, LK_T_LIT) ||
	    lk_build(s->dist, LK_DCAP, s->lens + 288, 32, LK_DBITS, LK_T_DIST))
		return LK_I_BAD;
	s->tables = 1;
	return LK_I_OK;
}

/* Reads the code lengths of a dynamic block with the code-length code. */
static int lk_read_lens(struct lk_inf *s, const lk_u32 *ct, unsigned total)
{
	unsigned i = 0, rep, v;

	while (i < total) {
		lk_u32 e;

		lk_refill(s);
		e = ct[s->bb & LK_MASK(LK_CBITS)];
		if (!(e & LK_F_LIT))
			return LK_I_BAD;
		s->bb >>= LK_EN(e);
		s->bc -= LK_EN(e);
		v = LK_ELIT(e);
		if (v < 16) {
			s->lens[i++] = (lk_u8)v;
			continue;
		}
		if (v == 16 && i == 0)
			return LK_I_BAD;
		if (v == 16)
			rep = 3 + lk_bits(s, 2);
		else if (v == 17)
			rep = 3 + lk_bits(s, 3);
		else
			rep = 11 + lk_bits(s, 7);
		v = v == 16 ? s->lens[i - 1] : 0;
		if (rep > total - i || lk_truncated(s))
			return LK_I_BAD;
		while (rep--)
			s->lens[i++] = (lk_u8)v;
	}
	return lk_truncated(s) ? LK_I_BAD : LK_I_OK;
}

static int lk_dynamic(struct lk_inf *s)
{
	static const lk_u8 order[19] = { 16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
					 11, 4,	 12, 3, 13, 2, 14, 1, 15 };
	lk_u32 ct[1u << LK_CBITS];
	lk_u8 cl[19] = { 0 };
	unsigned nlit, ndist, ncl, i;

	nlit = lk_bits(s, 5) + 257;
	ndist = lk_bits(s, 5) + 1;
	ncl = lk_bits(s, 4) + 4;
	if (nlit > 286 || ndist > 30)
		return LK_I_BAD;
	for (i = 0; i < ncl; i++)
		cl[order[i]] = (lk_u8)lk_bits(s, 3);
	s->tables = 2;
	if (lk_truncated(s) ||
	    lk_build(ct, 1u << LK_CBITS, cl, 19, LK_CBITS, LK_T_CL) ||
	    lk_read_lens(s, ct, nlit + ndist) || s->lens[256] == 0)
		return LK_I_BAD;
	if (lk_build(s->lit, LK_LCAP, s->lens, nlit, LK_LBITS, LK_T_LIT) ||
	    lk_build(s->dist, LK_DCAP, s->lens + nlit, ndist, LK_DBITS,
		     LK_T_DIST))
		return LK_I_BAD;
	return LK_I_OK;
}

/* ---- the hot loop ---- */

/*
 * In the fast path bc's low byte is the number of valid bits in bb and the
 * bits above it are garbage (whole entries are subtracted from it, which
 * saves extracting their low byte). The bits of bb above the valid ones are
 * the next input bits or zero, so a refill may OR the same bytes again.
 */
/* Tops the valid bits up to 56..63 from 8 readable input bytes. */
#define LK_REFILL_FAST()                                                       \
	(bb |= *(const lk_unal64 *)in << (bc & 63), in += 7 - ((bc >> 3) & 7), \
	 bc |= 56)
#define LK_DROP_FAST(e) (saved = bb, bb >>= LK_EN(e), bc -= (e))
#define LK_NEXT() (e = lt[bb & LK_MASK(LK_LBITS)])

/*
 * Copies a match of len <= 258 bytes, writing up to 40 bytes (and 7 past
 * out + len) whatever len is: most matches need no loop and no length test.
 * Each word load reads bytes already written (dist >= 8, or a step that is
 * a multiple of dist).
 */
static inline __attribute__((always_inline)) void
lk_copy_fast(lk_u8 *out, lk_u32 dist, lk_u32 len)
{
	const lk_u8 *from = out - dist;
	lk_u8 *end = out + len;

	if (dist >= 8) {
		*(lk_unal64 *)out = *(const lk_unal64 *)from;
		*(lk_unal64 *)(out + 8) = *(const lk_unal64 *)(from + 8);
		*(lk_unal64 *)(out + 16) = *(const lk_unal64 *)(from + 16);
		*(lk_unal64 *)(out + 24) = *(const lk_unal64 *)(from + 24);
		*(lk_unal64 *)(out + 32) = *(const lk_unal64 *)(from + 32);
		if (len <= 40)
			return;
		out += 40;
		from += 40;
		do {
			*(lk_unal64 *)out = *(const lk_unal64 *)from;
			out += 8;
			from += 8;
		} while (out < end);
	} else if (dist == 1) {
		lk_u64 v = *from * 0x0101010101010101ULL;

		*(lk_unal64 *)out = v;
		*(lk_unal64 *)(out + 8) = v;
		*(lk_unal64 *)(out + 16) = v;
		*(lk_unal64 *)(out + 24) = v;
		*(lk_unal64 *)(out + 32) = v;
		if (len <= 40)
			return;
		out += 40;
		do {
			*(lk_unal64 *)out = v;
			out += 8;
		} while (out < end);
	} else {
		/* A period of 2..7 bytes (Linux kit: 4.3 MB of dist-4
		 * matches in its first segment, relocation columns): the
		 * first 8 bytes one at a time; from there out[i] equals
		 * out[i - step] for step the multiple of dist in 8..14, whose
		 * bytes are written, so words again (7 past out + len). */
		static const lk_u8 step[8] = { 0, 8, 8, 9, 8, 10, 12, 14 };
		int k;

		for (k = 0; k < 8; k++)
			out[k] = from[k];
		if (len <= 8)
			return;
		from = out + 8 - step[dist];
		out += 8;
		do {
			*(lk_unal64 *)out = *(const lk_unal64 *)from;
			out += 8;
			from += 8;
		} while (out < end);
	}
}

enum { LK_F_MORE, LK_F_END, LK_F_BAD };

#if __SIZEOF_POINTER__ == 4
/*
 * The same loop for 32-bit builds (the BIOS stage): a 64-bit bit buffer
 * there costs a register pair and multi-instruction shifts on every
 * symbol, so the buffer is one 32-bit word topped up to 24..31 bits (from
 * 4 readable input bytes, the same trick). 24 bits hold a literal/length
 * code and its extra bits (15 + 5) or a primary literal and the next
 * lookup (11 + 11); a distance (15 + 13 bits) that does not fit what is
 * left drops its code, refills, then reads its extra bits. On entry the
 * 64-bit buffer's whole bytes go back to the input (the stream position
 * is in * 8 - valid bits in both loops), on exit the word is the buffer.
 * At most 3 refills of 3 bytes per symbol: within the 16 input bytes.
 */
typedef lk_u32 __attribute__((may_alias, aligned(1))) lk_unal32;
#define LK_REFILL32() \
	(bb |= *(const lk_unal32 *)in << (bc & 31), in += 3 - ((bc >> 3) & 3), bc |= 24)
#define LK_DROP32(e) (saved = bb, bb >>= LK_EN(e), bc -= (e))
#define LK_EVAL32(e, saved) \
	(((e) >> 16) + (((saved) & LK_MASK(LK_EN(e))) >> (lk_u8)((e) >> 8)))

static inline __attribute__((always_inline)) int
lk_fast_body(struct lk_inf *s, const lk_u8 *in_lim, const lk_u8 *out_lim)
{
	const lk_u8 *in = s->in, *out_beg = s->out_beg;
	const lk_u32 *lt = s->lit, *dt = s->dist;
	lk_u8 *out = s->out;
	lk_u32 bb, bc, saved, e, len, dist, cb;
	int r = LK_F_MORE;

	if (in >= in_lim || out >= out_lim)
		return r;
	in -= s->bc / 8;
	bc = s->bc & 7;
	bb = (lk_u32)s->bb & LK_MASK(bc);
	do {
		LK_REFILL32();
		e = lt[bb & LK_MASK(LK_LBITS)];
		if (e & LK_F_LIT) {
			LK_DROP32(e);
			*out++ = LK_ELIT(e);
			/* 13+ bits left: one more primary literal fits. */
			e = lt[bb & LK_MASK(LK_LBITS)];
			if (!(e & LK_F_LIT))
				continue;
			LK_DROP32(e);
			*out++ = LK_ELIT(e);
			continue;
		}
		LK_DROP32(e);
		if (e & LK_F_EXC) {
			if (!(e & LK_F_SUB)) {
				r = e & LK_F_EOB ? LK_F_END : LK_F_BAD;
				break;
			}
			e = lt[(e >> 16) + (bb & LK_MASK(LK_ESUB(e)))];
			LK_DROP32(e);
			if (e & LK_F_LIT) {
				*out++ = LK_ELIT(e);
				continue;
			}
			if (e & LK_F_EXC) {
				r = e & LK_F_EOB ? LK_F_END : LK_F_BAD;
				break;
			}
		}
		len = LK_EVAL32(e, saved);
		LK_REFILL32();
		e = dt[bb & LK_MASK(LK_DBITS)];
		if (e & LK_F_EXC) {
			if (!(e & LK_F_SUB)) {
				r = LK_F_BAD;
				break;
			}
			LK_DROP32(e);
			e = dt[(e >> 16) + (bb & LK_MASK(LK_ESUB(e)))];
			if (e & LK_F_EXC) {
				r = LK_F_BAD;
				break;
			}
		}
		if (LK_EN(e) > (lk_u8)bc) {
			/* Code, refill, extra bits (up to 13). */
			cb = (lk_u8)(e >> 8);
			bb >>= cb;
			bc -= cb;
			LK_REFILL32();
			cb = LK_EN(e) - cb;
			dist = (e >> 16) + (bb & LK_MASK(cb));
			bb >>= cb;
			bc -= cb;
		} else {
			LK_DROP32(e);
			dist = LK_EVAL32(e, saved);
		}
		if (dist > (lk_size)(out - out_beg)) {
			r = LK_F_BAD;
			break;
		}
		lk_copy_fast(out, dist, len);
		out += len;
	} while (in < in_lim && out < out_lim);
	s->in = in;
	s->out = out;
	s->bb = bb & LK_MASK((lk_u8)bc & 31);
	s->bc = (lk_u8)bc & 31;
	return r;
}
#else
/*
 * Decodes while at least 16 input bytes and LK_ROOM output bytes are left
 * before each symbol group, with no other check than the distance one.
 * Bits: a refill leaves 56+. Up to three literals of the primary table (11
 * bits each) fit, or two and a length (15 + 5 bits); the distance (15 + 13
 * bits) gets its own refill, and 28+ bits remain for the entry of the next
 * literal/length code, loaded before the match is copied. Two refills read
 * at most 15 bytes; the one before the loop is followed by one that reads
 * the same bytes (no bits were used in between).
 */
static inline __attribute__((always_inline)) int
lk_fast_body(struct lk_inf *s, const lk_u8 *in_lim, const lk_u8 *out_lim)
{
	const lk_u8 *in = s->in, *out_beg = s->out_beg;
	const lk_u32 *lt = s->lit, *dt = s->dist;
	lk_u8 *out = s->out;
	lk_u64 bb = s->bb, bc = s->bc, saved;
	lk_u32 e, len, dist;
	int r = LK_F_MORE;

	if (in >= in_lim || out >= out_lim)
		return r;
	LK_REFILL_FAST();
	LK_NEXT();
	do {
		LK_REFILL_FAST();
		if (e & LK_F_LIT) {
			LK_DROP_FAST(e);
			*out++ = LK_ELIT(e);
			LK_NEXT();
			if (e & LK_F_LIT) {
				LK_DROP_FAST(e);
				*out++ = LK_ELIT(e);
				LK_NEXT();
				if (e & LK_F_LIT) {
					LK_DROP_FAST(e);
					*out++ = LK_ELIT(e);
					LK_NEXT();
					continue;
				}
			}
		}
		LK_DROP_FAST(e);
		if (e & LK_F_EXC) {
			if (!(e & LK_F_SUB)) {
				r = e & LK_F_EOB ? LK_F_END : LK_F_BAD;
				break;
			}
			e = lt[(e >> 16) + (bb & LK_MASK(LK_ESUB(e)))];
			LK_DROP_FAST(e);
			if (e & LK_F_LIT) {
				*out++ = LK_ELIT(e);
				LK_NEXT();
				continue;
			}
			if (e & LK_F_EXC) {
				r = e & LK_F_EOB ? LK_F_END : LK_F_BAD;
				break;
			}
		}
		len = LK_EVAL(e, saved);
		/* 14+ bits left: the distance entry needs no refill. */
		e = dt[bb & LK_MASK(LK_DBITS)];
		LK_REFILL_FAST();
		LK_DROP_FAST(e);
		if (e & LK_F_EXC) {
			if (!(e & LK_F_SUB)) {
				r = LK_F_BAD;
				break;
			}
			e = dt[(e >> 16) + (bb & LK_MASK(LK_ESUB(e)))];
			LK_DROP_FAST(e);
			if (e & LK_F_EXC) {
				r = LK_F_BAD;
				break;
			}
		}
		dist = LK_EVAL(e, saved);
		if (dist > (lk_size)(out - out_beg)) {
			r = LK_F_BAD;
			break;
		}
		LK_NEXT();
		lk_copy_fast(out, dist, len);
		out += len;
	} while (in < in_lim && out < out_lim);
	s->in = in;
	s->out = out;
	s->bb = bb;
	s->bc = (lk_u8)bc;
	return r;
}

#endif

static int lk_fast_plain(struct lk_inf *s, const lk_u8 *in_lim,
			 const lk_u8 *out_lim)
{
	return lk_fast_body(s, in_lim, out_lim);
}

/*
 * The same loop where the CPU has BMI2: its shifts (shrx) take the count
 * from any register and leave the flags alone, so each symbol's drop is
 * one instruction off the chain of dependent loads (Linux kit, one CPU:
 * 58.3 -> 55.8 ms; docs/bench.md).
 */
static __attribute__((target("bmi2"))) int
lk_fast_bmi2(struct lk_inf *s, const lk_u8 *in_lim, const lk_u8 *out_lim)
{
	return lk_fast_body(s, in_lim, out_lim);
}

static int lk_loop = LK_INFLATE_AUTO;

void lk_inflate_loop(int loop)
{
	lk_loop = loop;
}

static int lk_fast(struct lk_inf *s, const lk_u8 *in_lim, const lk_u8 *out_lim)
{
	if (s->bmi2)
		return lk_fast_bmi2(s, in_lim, out_lim);
	return lk_fast_plain(s, in_lim, out_lim);
}

/* Careful path: exact bit count, per-symbol checks. */
#define LK_DROP(e) (saved = bb, bb >>= LK_EN(e), bc -= LK_EN(e))
/* Looks up table t; a subtable link drops the primary index bits first. */
#define LK_LOOKUP(e, t, tb)                                            \
	do {                                                           \
		e = t[bb & LK_MASK(tb)];                               \
		if (e & LK_F_SUB) {                                    \
			LK_DROP(e);                                    \
			e = t[(e >> 16) + (bb & LK_MASK(LK_ESUB(e)))]; \
		}                                                      \
		LK_DROP(e);                                            \
	} while (0)

/* One symbol (a literal, a match or the end of the block) with every
 * check, for the last bytes of the input or the output. */
static int lk_careful(struct lk_inf *s)
{
	lk_u64 bb, saved;
	unsigned bc;
	lk_u32 e, len, dist;

	lk_refill(s);
	bb = s->bb;
	bc = s->bc;
	LK_LOOKUP(e, s->lit, LK_LBITS);
	if (bc < 8 * s->pad)
		return LK_F_BAD;
	if (e & LK_F_EXC) {
		s->bb = bb;
		s->bc = bc;
		return e & LK_F_EOB ? LK_F_END : LK_F_BAD;
	}
	if (e & LK_F_LIT) {
		if (s->out == s->out_end)
			return LK_F_BAD;
		*s->out++ = LK_ELIT(e);
	} else {
		len = LK_EVAL(e, saved);
		LK_LOOKUP(e, s->dist, LK_DBITS);
		if (e & LK_F_EXC)
			return LK_F_BAD;
		dist = LK_EVAL(e, saved);
		if (bc < 8 * s->pad || dist > (lk_size)(s->out - s->out_beg) ||
		    len > (lk_size)(s->out_end - s->out))
			return LK_F_BAD;
		for (; len; len--, s->out++)
			*s->out = *(s->out - dist);
	}
	s->bb = bb;
	s->bc = bc;
	return LK_F_MORE;
}

static int lk_codes(struct lk_inf *s)
{
	const lk_u8 *in_lim = s->in, *out_lim = s->out;
	int r;

	/* Stop the fast path 16 input and LK_ROOM output bytes early. */
	if (s->in_end - in_lim >= 16)
		in_lim = s->in_end - 15;
	if (s->out_end - out_lim >= LK_ROOM)
		out_lim = s->out_end - LK_ROOM + 1;
	do {
		r = lk_fast(s, in_lim, out_lim);
		if (r == LK_F_MORE)
			r = lk_careful(s);
	} while (r == LK_F_MORE);
	if (r == LK_F_BAD)
		return LK_I_BAD;
	return lk_truncated(s) ? LK_I_BAD : LK_I_OK;
}

static int lk_blocks(struct lk_inf *s)
{
	unsigned final, type;
	int r;

	do {
		final = lk_bits(s, 1);
		type = lk_bits(s, 2);
		if (lk_truncated(s))
			return LK_I_BAD;
		if (type == 0)
			r = lk_stored(s);
		else if (type == 1)
			r = lk_fixed(s);
		else if (type == 2)
			r = lk_dynamic(s);
		else
			r = LK_I_BAD;
		if (r == LK_I_OK && type != 0)
			r = lk_codes(s);
		if (r != LK_I_OK)
			return r;
		/* A stored block ends byte-aligned with an empty bit buffer:
		 * the only place a segment of a split stream may end. */
		if (s->part && type == 0 && !final && s->in == s->in_end) {
			s->cut = 1;
			return LK_I_OK;
		}
	} while (!final);
	return lk_align(s);
}

/* Lengths that would wrap the address space are clipped, so end pointers
 * always compare correctly. */
static lk_size lk_clip(const void *p, lk_size len)
{
	lk_size room = (lk_size) ~(lk_uptr)p;

	return len < room ? len : room;
}

static void lk_inf_start(struct lk_inf *s, const void *src, lk_size src_len,
			 void *dst, lk_size dst_len)
{
	src_len = lk_clip(src, src_len);
	dst_len = lk_clip(dst, dst_len);
	s->in = src;
	s->in_end = s->in + src_len;
	s->out_beg = s->out = dst;
	s->out_end = s->out + dst_len;
	s->bb = 0;
	s->bc = 0;
	s->pad = 0;
	s->tables = 0;
	s->part = 0;
	s->cut = 0;
	s->bmi2 = lk_loop == LK_INFLATE_BMI2 ||
		  (lk_loop == LK_INFLATE_AUTO &&
		   (lk_cpu_features() & LK_CPU_BMI2));
}

int lk_inflate_raw(const void *src, lk_size src_len, void *dst, lk_size dst_len,
		   lk_size *out_len, lk_size *src_used)
{
	struct lk_inf s;
	int r;

	lk_inf_start(&s, src, src_len, dst, dst_len);
	r = lk_blocks(&s);
	if (out_len)
		*out_len = (lk_size)(s.out - s.out_beg);
	if (src_used)
		*src_used = (lk_size)(s.in - (const lk_u8 *)src);
	return r == LK_I_OK ? LK_OK : LK_ERR_INFLATE;
}

/*
 * One segment of a stream split at byte-aligned block boundaries (kit
 * segments, kit_format.h): exactly dst_len bytes, no match reaching before
 * dst, and src_len bytes exactly, ending either after a non-final stored
 * block (last == 0: the next segment starts there) or with the final block
 * (last != 0). Decoded so, the segments give the very bytes one decoder of
 * the whole stream gives: each starts in the state the previous one left
 * (byte-aligned, empty bit buffer) and needed none of the earlier output.
 */
int lk_inflate_part(const void *src, lk_size src_len, void *dst,
		    lk_size dst_len, int last)
{
	struct lk_inf s;
	int r;

	lk_inf_start(&s, src, src_len, dst, dst_len);
	s.part = 1;
	r = lk_blocks(&s);
	if (r != LK_I_OK || s.cut == !!last || s.in != s.in_end ||
	    s.out != s.out_end)
		return LK_ERR_INFLATE;
	return LK_OK;
}

/*
 * The stream must fill src_len exactly: bytes after the Adler-32 would be
 * data nobody checked.
 */
int lk_inflate_zlib(const void *src, lk_size src_len, void *dst,
		    lk_size dst_len, lk_size *out_len)
{
	const lk_u8 *p = src;
	lk_size n = 0, used = 0;
	lk_u32 want;
	int r;

	if (out_len)
		*out_len = 0;
	if (src_len < 6 || (p[0] & 15) != 8 || (p[0] >> 4) > 7 ||
	    (p[1] & 0x20) || ((unsigned)p[0] << 8 | p[1]) % 31 != 0)
		return LK_ERR_INFLATE;
	r = lk_inflate_raw(p + 2, src_len - 6, dst, dst_len, &n, &used);
	if (out_len)
		*out_len = n;
	if (r != LK_OK || used != src_len - 6)
		return LK_ERR_INFLATE;
	p += 2 + used;
	want = (lk_u32)p[0] << 24 | (lk_u32)p[1] << 16 | (lk_u32)p[2] << 8 |
	       p[3];
	return lk_adler32(1, dst, n) == want ? LK_OK : LK_ERR_INFLATE;
}
