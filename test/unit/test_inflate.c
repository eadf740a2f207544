/*
 * lk_inflate_* against zlib: round trips over thousands of generated inputs
 * (every level, strategy and window size, so stored, fixed and dynamic
 * blocks all occur), short output buffers, truncation, bit flips (compared
 * with zlib's verdict) and random garbage. Buffers are malloc'd to their
 * exact size so AddressSanitizer catches any access past either end.
 */
#include <string.h>
#include <zlib.h>

#include "cpu.h"
#include "linkkit.h"
#include "tap.h"

struct zbuf {
	unsigned char *p;
	size_t n;
};

/* Inputs of varied compressibility, including some that zlib stores. */
static unsigned char *gen_input(size_t n, int kind)
{
	static const char *words[] = { "the ", "kernel ", "relink ", "boot ",
				       "object ", "section ", "\n", "0x",
				       "symbol ", "layout " };
	unsigned char *p = malloc(n ? n : 1);
	size_t i = 0;

	while (i < n) {
		uint32_t r = (uint32_t)tap_rand();
		switch (kind) {
		case 0: /* incompressible */
			p[i++] = (unsigned char)r;
			break;
		case 1: /* long runs */
			for (uint32_t k = r % 300; k-- && i < n;)
				p[i++] = (unsigned char)(r >> 16) & 3;
			break;
		case 2: { /* text-like */
			const char *w = words[r % 10];
			while (*w && i < n)
				p[i++] = (unsigned char)*w++;
			break;
		}
		case 3: /* matches at every distance, small alphabet noise */
			if (i > 8 && r % 4) {
				size_t d = 1 + tap_below((uint32_t)(i < 40000 ? i : 40000));
				for (uint32_t k = 3 + (r >> 8) % 300; k-- && i < n; i++)
					p[i] = p[i - (d < i ? d : i)];
			} else {
				p[i++] = (unsigned char)('a' + (r >> 20) % 8);
			}
			break;
		default: /* skewed byte distribution: long Huffman codes */
			p[i++] = (unsigned char)(__builtin_ctz(r | 0x80000000u) * 7 +
						 (r >> 28 == 0 ? (r >> 8) & 0xff : 0));
			break;
		}
	}
	return p;
}

static struct zbuf zcompress(const unsigned char *in, size_t n, int level,
			     int wbits, int mem, int strategy)
{
	struct zbuf z;
	z_stream s;

	memset(&s, 0, sizeof(s));
	if (deflateInit2(&s, level, Z_DEFLATED, wbits, mem, strategy) != Z_OK)
		abort();
	z.n = deflateBound(&s, n) + 16;
	z.p = malloc(z.n);
	s.next_in = (unsigned char *)in;
	s.avail_in = (uInt)n;
	s.next_out = z.p;
	s.avail_out = (uInt)z.n;
	if (deflate(&s, Z_FINISH) != Z_STREAM_END)
		abort();
	z.n = s.total_out;
	deflateEnd(&s);
	return z;
}

/* zlib's verdict on a (possibly corrupt) stream: 0 ok, -1 error. */
static int zinflate(const unsigned char *in, size_t n, int wbits,
		    unsigned char *out, size_t cap, size_t *out_n, size_t *used)
{
	z_stream s;
	int r;

	memset(&s, 0, sizeof(s));
	if (inflateInit2(&s, wbits) != Z_OK)
		abort();
	s.next_in = (unsigned char *)in;
	s.avail_in = (uInt)n;
	s.next_out = out;
	s.avail_out = (uInt)cap;
	r = inflate(&s, Z_FINISH);
	*out_n = s.total_out;
	*used = s.total_in;
	inflateEnd(&s);
	return r == Z_STREAM_END ? 0 : -1;
}

static unsigned char *dup_exact(const unsigned char *p, size_t n)
{
	unsigned char *q = malloc(n ? n : 1);
	memcpy(q, p, n);
	return q;
}

static int roundtrips, rt_fail;
static char rt_why[256];

static void check_roundtrip(const unsigned char *in, size_t n, int level,
			    int wbits, int mem, int strategy)
{
	struct zbuf z = zcompress(in, n, level, wbits, mem, strategy);
	unsigned char *out = malloc(n ? n : 1);
	size_t got = 12345;
	int r;

	roundtrips++;
	r = lk_inflate_zlib(z.p, z.n, out, n, &got);
	if ((r != LK_OK || got != n || memcmp(out, in, n)) && !rt_fail++)
		snprintf(rt_why, sizeof(rt_why),
			 "n=%zu level=%d wbits=%d strategy=%d: r=%d got=%zu",
			 n, level, wbits, strategy, r, got);
	if (n) { /* one byte too little room must be an error */
		r = lk_inflate_zlib(z.p, z.n, out, n - 1, &got);
		if (r == LK_OK && !rt_fail++)
			snprintf(rt_why, sizeof(rt_why),
				 "n=%zu fits in n-1 bytes", n);
	}
	free(out);
	free(z.p);
}

static void test_roundtrip(void)
{
	static const int strategies[] = { Z_DEFAULT_STRATEGY, Z_FILTERED,
					  Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED };

	for (int i = 0; i < 3000; i++) {
		size_t n = i < 40 ? (size_t)i : (size_t)tap_below(1u << (4 + i % 14));
		int kind = i % 5;
		unsigned char *in = gen_input(n, kind);
		int level = i % 10;
		int wbits = 9 + (int)tap_below(7);
		int strategy = strategies[(i / 10) % 5];

		check_roundtrip(in, n, level, wbits, 1 + (int)tap_below(9),
				strategy);
		free(in);
	}
	tap_check(!rt_fail, "inflate-roundtrip", "%d of %d failed, first: %s",
		  rt_fail, roundtrips, rt_why);
}

static void test_large(void)
{
	size_t n = 3u << 20;
	unsigned char *in = malloc(n);
	int bad = 0;

	/* Mixed pieces so one stream has every block type back to back. */
	for (size_t off = 0; off < n;) {
		size_t k = 1 + tap_below(200000);
		unsigned char *piece;
		if (k > n - off)
			k = n - off;
		piece = gen_input(k, (int)tap_below(5));
		memcpy(in + off, piece, k);
		free(piece);
		off += k;
	}
	rt_fail = 0;
	for (int level = 0; level <= 9; level += 3)
		check_roundtrip(in, n, level, 15, 8, Z_DEFAULT_STRATEGY);
	bad = rt_fail;
	tap_check(!bad, "inflate-large-mixed", "%s", rt_why);
	free(in);
}

static void test_raw(void)
{
	int bad = 0;
	char why[200] = "";

	for (int i = 0; i < 300 && !bad; i++) {
		size_t n = tap_below(70000), got, used;
		unsigned char *in = gen_input(n, i % 5);
		struct zbuf z = zcompress(in, n, i % 10, -15, 8,
					  i % 3 ? Z_DEFAULT_STRATEGY : Z_FIXED);
		/* Trailing bytes after the raw stream must be left unread. */
		unsigned char *src = malloc(z.n + 7);
		unsigned char *out = malloc(n ? n : 1);
		int r;

		memcpy(src, z.p, z.n);
		memset(src + z.n, 0xa5, 7);
		r = lk_inflate_raw(src, z.n + 7, out, n, &got, &used);
		if (r != LK_OK || got != n || memcmp(out, in, n) ||
		    used != z.n) {
			bad = 1;
			snprintf(why, sizeof(why),
				 "n=%zu r=%d got=%zu used=%zu want %zu", n, r,
				 got, used, z.n);
		}
		free(in);
		free(src);
		free(out);
		free(z.p);
	}
	tap_check(!bad, "inflate-raw-src-used", "%s", why);
}

static void test_truncated(void)
{
	int bad = 0, cases = 0;
	char why[200] = "";

	for (int i = 0; i < 200; i++) {
		size_t n = 1 + tap_below(i < 100 ? 300 : 50000), got;
		unsigned char *in = gen_input(n, i % 5);
		struct zbuf z = zcompress(in, n, i % 10, 15, 8,
					  i % 4 ? Z_DEFAULT_STRATEGY : Z_FIXED);
		unsigned char *out = malloc(n);
		size_t step = z.n > 400 ? z.n / 97 + 1 : 1;

		for (size_t cut = 0; cut < z.n; cut += step) {
			unsigned char *src = dup_exact(z.p, cut);
			cases++;
			if (lk_inflate_zlib(src, cut, out, n, &got) == LK_OK &&
			    !bad++)
				snprintf(why, sizeof(why),
					 "n=%zu cut at %zu of %zu accepted", n,
					 cut, z.n);
			free(src);
		}
		free(in);
		free(out);
		free(z.p);
	}
	tap_check(!bad && cases > 1000, "inflate-truncated",
		  "%d of %d cases, first: %s", bad, cases, why);
}

/* Corrupt streams: lk must agree with zlib on accept/reject and output. */
static int compare_with_zlib(const unsigned char *src, size_t n, int raw,
			     size_t cap, char *why, size_t whylen)
{
	unsigned char *a = malloc(cap ? cap : 1), *b = malloc(cap ? cap : 1);
	size_t an = 0, bn = 0, aused = 0, bused = 0;
	int ra, rb, diff;

	if (raw)
		ra = lk_inflate_raw(src, n, a, cap, &an, &aused);
	else
		ra = lk_inflate_zlib(src, n, a, cap, &an);
	rb = zinflate(src, n, raw ? -15 : 15, b, cap, &bn, &bused);
	/* zlib ignores bytes after the Adler-32; lk wants none there. */
	if (!raw && rb == 0 && bused != n)
		rb = -1;
	diff = (ra == LK_OK) != (rb == 0) ||
	       (ra == LK_OK && (an != bn || memcmp(a, b, an) ||
				(raw && aused != bused)));
	if (diff)
		snprintf(why, whylen, "n=%zu raw=%d lk=%d (out %zu) zlib=%d (out %zu)",
			 n, raw, ra, an, rb, bn);
	free(a);
	free(b);
	return diff;
}

static void test_bitflips(int raw)
{
	int bad = 0, cases = 0;
	char why[200] = "";

	for (int i = 0; i < 400; i++) {
		size_t n = 1 + tap_below(i % 2 ? 2000 : 40000);
		unsigned char *in = gen_input(n, i % 5);
		struct zbuf z = zcompress(in, n, i % 10, raw ? -15 : 15, 8,
					  i % 4 ? Z_DEFAULT_STRATEGY : Z_FIXED);

		for (int k = 0; k < 12; k++) {
			unsigned char *src = dup_exact(z.p, z.n);
			int flips = 1 + (int)tap_below(3);
			while (flips--) {
				size_t bit = tap_below((uint32_t)(z.n * 8));
				src[bit / 8] ^= (unsigned char)(1u << (bit % 8));
			}
			cases++;
			/* Only the first difference is described. */
			if (compare_with_zlib(src, z.n, raw, n + 64 * (k & 1),
					      why, bad ? 0 : sizeof(why)))
				bad++;
			free(src);
		}
		free(in);
		free(z.p);
	}
	tap_check(!bad, raw ? "inflate-bitflip-raw-vs-zlib" :
			      "inflate-bitflip-zlib-vs-zlib",
		  "%d of %d cases differ, first: %s", bad, cases, why);
}

static void test_garbage(void)
{
	int bad = 0, cases = 0;
	char why[200] = "";

	for (int i = 0; i < 20000; i++) {
		size_t n = tap_below(i % 10 ? 64 : 2000);
		unsigned char *src = malloc(n ? n : 1);
		for (size_t k = 0; k < n; k++)
			src[k] = (unsigned char)tap_rand();
		/* Bias toward plausible block headers to get deeper. */
		if (n && i % 3 == 0)
			src[0] = (unsigned char)((src[0] & ~6u) | 4u);
		cases++;
		if (compare_with_zlib(src, n, 1, 1 + tap_below(70000), why,
				      bad ? 0 : sizeof(why)))
			bad++;
		free(src);
	}
	tap_check(!bad, "inflate-garbage-vs-zlib", "%d of %d differ, first: %s",
		  bad, cases, why);
}

static void test_headers(void)
{
	static const unsigned char empty[] = { 0x78, 0x9c, 0x03, 0x00,
					       0x00, 0x00, 0x00, 0x01 };
	unsigned char buf[8], out[4];
	size_t got = 99;
	int ok = 1;

	ok &= lk_inflate_zlib(empty, sizeof(empty), out, 0, &got) == LK_OK &&
	      got == 0;
	memcpy(buf, empty, 8);
	buf[1] = 0xbb; /* FDICT set, FCHECK valid: a dictionary nobody gave */
	ok &= lk_inflate_zlib(buf, 8, out, 4, &got) != LK_OK;
	memcpy(buf, empty, 8);
	buf[0] = 0x79; /* method 9 (FCHECK fixed below) */
	buf[1] = 0x18;
	ok &= lk_inflate_zlib(buf, 8, out, 4, &got) != LK_OK;
	memcpy(buf, empty, 8);
	buf[7] ^= 1; /* Adler-32 */
	ok &= lk_inflate_zlib(buf, 8, out, 4, &got) != LK_OK;
	ok &= lk_inflate_zlib(empty, 5, out, 4, &got) != LK_OK;
	ok &= lk_inflate_zlib(empty, 0, out, 4, &got) != LK_OK;
	tap_check(ok, "inflate-headers", "header/adler checks wrong");
}

/* ---- hand-made dynamic blocks: code shapes zlib's encoder never emits ---- */

struct bitw {
	unsigned char *p;
	size_t n, cap;
	uint64_t acc;
	unsigned bits;
};

static void put_bits(struct bitw *w, uint32_t v, unsigned n)
{
	w->acc |= (uint64_t)v << w->bits;
	w->bits += n;
	while (w->bits >= 8) {
		if (w->n < w->cap)
			w->p[w->n++] = (unsigned char)w->acc;
		w->acc >>= 8;
		w->bits -= 8;
	}
}

/* Huffman codes go out most significant bit first. */
static void put_code(struct bitw *w, uint32_t code, unsigned len)
{
	uint32_t r = 0;

	for (unsigned i = 0; i < len; i++)
		r |= ((code >> i) & 1) << (len - 1 - i);
	put_bits(w, r, len);
}

static void canonical(const unsigned char *lens, int n, uint32_t *codes)
{
	uint32_t count[16] = { 0 }, next[16], code = 0;

	for (int i = 0; i < n; i++)
		count[lens[i]]++;
	count[0] = 0;
	for (int b = 1; b < 16; b++) {
		code = (code + count[b - 1]) << 1;
		next[b] = code;
	}
	for (int i = 0; i < n; i++)
		codes[i] = lens[i] ? next[lens[i]]++ : 0;
}

/* A random complete code over n symbols: split random leaves, preferring
 * deep ones, so lengths up to 15 (and many subtables) are common. */
static void random_lengths(unsigned char *lens, int n, int deep)
{
	unsigned char depth[320];
	int leaves = 1;

	depth[0] = 0;
	while (leaves < n) {
		int pick = -1;
		for (int tries = 0; tries < 64; tries++) {
			int i = (int)tap_below((uint32_t)leaves);
			if (depth[i] < 15 && (pick < 0 || (deep && depth[i] > depth[pick])))
				pick = i;
		}
		if (pick < 0)
			break;
		depth[pick]++;
		depth[leaves++] = depth[pick];
	}
	for (int i = 0; i < n; i++)
		lens[i] = i < leaves ? depth[i] : 0;
	for (int i = n - 1; i > 0; i--) { /* shuffle symbols */
		int j = (int)tap_below((uint32_t)i + 1);
		unsigned char t = lens[i];
		lens[i] = lens[j];
		lens[j] = t;
	}
}

static const uint16_t len_base[29] = { 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15,
	17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258 };
static const uint8_t len_extra[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2,
	2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
static const uint16_t dist_base[30] = { 1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33,
	49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
	6145, 8193, 12289, 16385, 24577 };
static const uint8_t dist_extra[30] = { 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4,
	5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };

/* One final dynamic block; returns the expected output length. */
static size_t make_block(struct bitw *w, unsigned char *exp, size_t cap,
			 int nlit, int ndist, const unsigned char *ll,
			 const unsigned char *dl)
{
	unsigned char cl[19], all[316];
	uint32_t clc[19], llc[286], dlc[30];
	static const int order[19] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11,
				       4, 12, 3, 13, 2, 14, 1, 15 };
	size_t out = 0;

	/* Code-length code: 13 symbols of 4 bits and 6 of 5 is complete. */
	for (int i = 0; i < 19; i++)
		cl[order[i]] = i < 13 ? 4 : 5;
	canonical(cl, 19, clc);
	canonical(ll, nlit, llc);
	canonical(dl, ndist, dlc);
	put_bits(w, 1, 1);
	put_bits(w, 2, 2);
	put_bits(w, (uint32_t)(nlit - 257), 5);
	put_bits(w, (uint32_t)(ndist - 1), 5);
	put_bits(w, 19 - 4, 4);
	for (int i = 0; i < 19; i++)
		put_bits(w, cl[order[i]], 3);
	memcpy(all, ll, (size_t)nlit);
	memcpy(all + nlit, dl, (size_t)ndist);
	for (int i = 0; i < nlit + ndist; i++)
		put_code(w, clc[all[i]], cl[all[i]]);
	for (int k = 0; k < 3000 && out + 258 < cap; k++) {
		int sym = (int)tap_below((uint32_t)nlit);
		if (!ll[sym] || sym == 256)
			continue;
		if (sym < 256) {
			put_code(w, llc[sym], ll[sym]);
			exp[out++] = (unsigned char)sym;
			continue;
		}
		int d = (int)tap_below((uint32_t)ndist);
		uint32_t lx = (uint32_t)tap_below(1u << len_extra[sym - 257]);
		uint32_t dx = (uint32_t)tap_below(1u << dist_extra[d]);
		size_t len = len_base[sym - 257] + lx, dist = dist_base[d] + dx;
		if (!dl[d] || dist > out)
			continue;
		put_code(w, llc[sym], ll[sym]);
		put_bits(w, lx, len_extra[sym - 257]);
		put_code(w, dlc[d], dl[d]);
		put_bits(w, dx, dist_extra[d]);
		for (size_t i = 0; i < len; i++, out++)
			exp[out] = exp[out - dist];
	}
	put_code(w, llc[256], ll[256]);
	put_bits(w, 0, 7); /* flush */
	return out;
}

static void test_handmade(void)
{
	int bad = 0, cases = 0;
	char why[200] = "";
	size_t cap = 1 << 20;
	unsigned char *exp = malloc(cap), *src = malloc(1 << 20);

	for (int i = 0; i < 600; i++) {
		int nlit = 257 + (int)tap_below(30), ndist = 1 + (int)tap_below(30);
		unsigned char ll[286], dl[30];
		struct bitw w = { src, 0, 1 << 20, 0, 0 };
		size_t n, got = 0, used = 0, zn = 0, zused = 0;
		unsigned char *out, *zout;
		int r, zr;

		random_lengths(ll, nlit, i % 2);
		if (!ll[256]) { /* end-of-block needs a code: swap one in */
			for (int k = 0; k < nlit; k++)
				if (ll[k]) {
					ll[256] = ll[k];
					ll[k] = 0;
					break;
				}
		}
		if (i % 5 == 0) { /* a lone 1-bit distance code (allowed) */
			memset(dl, 0, sizeof(dl));
			dl[tap_below((uint32_t)ndist)] = 1;
		} else {
			random_lengths(dl, ndist, i % 3 == 0);
		}
		n = make_block(&w, exp, cap, nlit, ndist, ll, dl);
		out = malloc(n ? n : 1);
		zout = malloc(n + 1);
		r = lk_inflate_raw(src, w.n, out, n, &got, &used);
		zr = zinflate(src, w.n, -15, zout, n + 1, &zn, &zused);
		cases++;
		if ((r != LK_OK || got != n || memcmp(out, exp, n) ||
		     used != w.n || zr != 0 || zn != n) && !bad++)
			snprintf(why, sizeof(why),
				 "case %d: lk=%d got %zu/%zu used %zu/%zu zlib=%d",
				 i, r, got, n, used, w.n, zr);
		free(out);
		free(zout);
	}
	free(exp);
	free(src);
	tap_check(!bad, "inflate-handmade-codes", "%d of %d, first: %s", bad,
		  cases, why);
}

static void run_all(void)
{
	test_headers();
	test_roundtrip();
	test_large();
	test_handmade();
	test_raw();
	test_truncated();
	test_bitflips(0);
	test_bitflips(1);
	test_garbage();
}

/* Every check once per build of the decoding loop this CPU can run. */
int main(void)
{
	tap_seed();
	lk_inflate_loop(LK_INFLATE_PORTABLE);
	run_all();
	tap_prefix = "bmi2-";
	if (lk_cpu_probe() & LK_CPU_BMI2) {
		lk_inflate_loop(LK_INFLATE_BMI2);
		run_all();
	} else {
		tap_skip("inflate", "this CPU has no BMI2");
	}
	return tap_failed;
}
