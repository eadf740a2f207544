/*
 * Kits whose zlib stream is cut into independently inflatable segments
 * (LK_KIT_F_SEGMENTS, kit_format.h): each segment inflated alone (in any
 * order) gives the bytes of the whole stream inflated at once, and the
 * Adler-32s combine to the stream's; a wrong index (count, offsets shifted
 * by one, cuts where the stream was not flushed) is refused by
 * lk_kit_open or by the segment's own inflate, never accepted with other
 * bytes. The kits are made here with zlib's full flush, as
 * tools/kitwrite.c makes them; the index is hashed, so every tampered kit
 * gets its SHA-256 recomputed to reach the inflate checks.
 */
#include <string.h>
#include <zlib.h>

#include "linkkit.h"
#include "kit_format.h"
#include "tap.h"

static void quiet(void *ctx, int level, const char *line)
{
	(void)ctx;
	(void)level;
	(void)line;
}

static void *h_alloc(void *ctx, lk_size n)
{
	(void)ctx;
	return calloc(1, n ? n : 1);
}

static void h_free(void *ctx, void *p, lk_size n)
{
	(void)ctx;
	(void)n;
	free(p);
}

static const struct lk_host host = { NULL,  h_alloc, h_free,
				     quiet, NULL,    LK_LOG_ERROR };

static unsigned char *gen(size_t n, int kind)
{
	unsigned char *p = malloc(n);

	for (size_t i = 0; i < n; i++) {
		uint32_t r = (uint32_t)tap_rand();

		p[i] = kind == 0   ? (unsigned char)r
		       : kind == 1 ? (unsigned char)(i / 97)
				   : "relink kernel "[r % 14];
	}
	return p;
}

/* A kit of the payload with cuts at cut[1..nseg-1]; flush: Z_FULL_FLUSH at
 * the cuts (a correct kit) or Z_NO_FLUSH (an index that lies). */
static unsigned char *make_kit(const unsigned char *p, size_t n, unsigned nseg,
			       const size_t *cut, int flush, size_t *kn)
{
	size_t cap = compressBound(n) + 1024 * nseg + 64 + 16 * nseg + 8;
	unsigned char *k = calloc(1, cap);
	struct lk_kit_header h;
	struct lk_kit_segtail t = { nseg - 1, 0 };
	z_stream z;
	size_t zl;
	unsigned i;

	memset(&z, 0, sizeof(z));
	deflateInit(&z, 6);
	z.next_out = k + 64;
	z.avail_out = (uInt)(cap - 64);
	for (i = 0; i < nseg; i++) {
		size_t end = i + 1 < nseg ? cut[i + 1] : n;

		z.next_in = (Bytef *)(p + cut[i]);
		z.avail_in = (uInt)(end - cut[i]);
		deflate(&z, i + 1 < nseg ? flush : Z_FINISH);
		if (i + 1 < nseg) {
			/* Z_NO_FLUSH: wherever the output happens to be. */
			struct lk_kit_segment s = {
				z.total_out > 2 ? z.total_out : 3, end
			};

			memcpy(k + cap - 8 - 16 * (nseg - 1) + 16 * i, &s, 16);
		}
	}
	zl = z.total_out;
	deflateEnd(&z);
	memmove(k + 64 + zl, k + cap - 8 - 16 * (nseg - 1), 16 * (nseg - 1));
	memcpy(k + 64 + zl + 16 * (nseg - 1), &t, 8);
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, LK_KIT_MAGIC, 8);
	h.version = LK_KIT_VERSION;
	h.header_size = 64;
	h.flags = LK_KIT_F_SEGMENTS;
	h.payload_zsize = zl + 16 * (nseg - 1) + 8;
	h.payload_size = n;
	memcpy(k, &h, 64);
	*kn = 64 + h.payload_zsize;
	lk_sha256(k + 64, h.payload_zsize,
		  ((struct lk_kit_header *)k)->payload_hash);
	return k;
}

static void rehash(unsigned char *k)
{
	struct lk_kit_header h;

	memcpy(&h, k, 64);
	lk_sha256(k + 64, h.payload_zsize, h.payload_hash);
	memcpy(k, &h, 64);
}

/* 0: every segment inflated (last first), with the payload's bytes; 1: a
 * segment failed; 2: open failed. */
static int inflate_all(const unsigned char *k, size_t kn,
		       const unsigned char *want, size_t n)
{
	struct lk_kit kit;
	unsigned char *d;
	int bad = 0;

	if (lk_kit_open(&host, k, kn, "t", &kit))
		return 2;
	d = malloc(n);
	for (lk_u32 i = kit.nseg; i-- > 0;)
		bad |= lk_kit_inflate_segment(&kit, i, d, n) != LK_OK;
	if (!bad && memcmp(d, want, n) != 0)
		bad = 3; /* accepted with other bytes: the worst outcome */
	free(d);
	return bad;
}

static void one(size_t n, unsigned nseg, int kind)
{
	unsigned char *p = gen(n, kind), *k, *d = malloc(n);
	size_t cut[LK_KIT_MAX_SEGMENTS] = { 0 }, kn;
	struct lk_kit kit;
	unsigned i;
	char name[96];
	const char *why = NULL;
	int r;

	for (i = 1; i < nseg; i++)
		cut[i] = n * i / nseg;
	snprintf(name, sizeof(name), "kit-segments-%zu-%u-%d", n, nseg, kind);
	k = make_kit(p, n, nseg, cut, Z_FULL_FLUSH, &kn);
	if (lk_kit_open(&host, k, kn, "t", &kit) != LK_OK || kit.nseg != nseg ||
	    lk_kit_inflate(&host, &kit, "t", d, n) != LK_OK || memcmp(d, p, n))
		why = "the whole stream did not inflate to the payload";
	else if ((r = inflate_all(k, kn, p, n)) != 0)
		why = "segment by segment (last first) failed";
	/* Each cut moved by one byte, in the stream or in the payload. */
	for (i = 0; i + 1 < nseg; i++) {
		size_t at = kn - 8 - 16 * (nseg - 1) + 16 * i;
		lk_u64 v;
		int r1, r2, r3;

		memcpy(&v, k + at, 8);
		v++, memcpy(k + at, &v, 8), rehash(k);
		r1 = inflate_all(k, kn, p, n);
		v -= 2, memcpy(k + at, &v, 8), rehash(k);
		r2 = inflate_all(k, kn, p, n);
		v++, memcpy(k + at, &v, 8);
		memcpy(&v, k + at + 8, 8);
		v++, memcpy(k + at + 8, &v, 8), rehash(k);
		r3 = inflate_all(k, kn, p, n);
		v--, memcpy(k + at + 8, &v, 8), rehash(k);
		if (!why &&
		    (!r1 || !r2 || !r3 || r1 == 3 || r2 == 3 || r3 == 3))
			why = "a cut moved by one byte was accepted";
	}
	/* A wrong Adler-32 in a stream whose SHA-256 is right: what the
	 * stages inflate is what the host made (they leave the checksum to the
	 * hash), and the tools' lk_kit_check_sum names it. */
	k[kn - 8 - 16 * (nseg - 1) - 1] ^= 1;
	rehash(k);
	if (!why && inflate_all(k, kn, p, n) != 0)
		why = "segments with a wrong Adler-32 trailer did not inflate";
	else if (!why && (lk_kit_open(&host, k, kn, "t", &kit) != LK_OK ||
			  lk_kit_check_sum(&host, &kit, "t", p) == LK_OK))
		why = "an Adler-32 mismatch was not caught by lk_kit_check_sum";
	free(k);
	/* The same cuts in a stream that was not flushed there. */
	if (nseg > 1) {
		k = make_kit(p, n, nseg, cut, Z_NO_FLUSH, &kn);
		r = inflate_all(k, kn, p, n);
		if (!why && (r == 0 || r == 3))
			why = "cuts where the stream was not flushed were "
			      "accepted";
		free(k);
	}
	tap_check(!why, name, "%s", why ? why : "");
	free(p);
	free(d);
}

static void bad_index(void)
{
	unsigned char *p = gen(100000, 2), *k;
	size_t cut[4] = { 0, 25000, 50000, 75000 }, kn;
	struct lk_kit_segtail t;
	struct lk_kit kit;

	k = make_kit(p, 100000, 4, cut, Z_FULL_FLUSH, &kn);
	memcpy(&t, k + kn - 8, 8);
	t.count = 0, memcpy(k + kn - 8, &t, 8), rehash(k);
	tap_check(lk_kit_open(&host, k, kn, "t", &kit) == LK_ERR_FORMAT,
		  "kit-segments-count-0", "accepted");
	t.count = LK_KIT_MAX_SEGMENTS, memcpy(k + kn - 8, &t, 8), rehash(k);
	tap_check(lk_kit_open(&host, k, kn, "t", &kit) == LK_ERR_FORMAT,
		  "kit-segments-count-max", "accepted");
	t.count = 0x0fffffff, memcpy(k + kn - 8, &t, 8), rehash(k);
	tap_check(lk_kit_open(&host, k, kn, "t", &kit) == LK_ERR_FORMAT,
		  "kit-segments-count-huge", "accepted");
	t.count = 3, t.reserved = 1, memcpy(k + kn - 8, &t, 8), rehash(k);
	tap_check(lk_kit_open(&host, k, kn, "t", &kit) == LK_ERR_FORMAT,
		  "kit-segments-reserved", "accepted");
	t.reserved = 0, memcpy(k + kn - 8, &t, 8);
	/* Segments 2 and 3 swapped: offsets not increasing. */
	{
		unsigned char s[16];

		memcpy(s, k + kn - 8 - 32, 16);
		memmove(k + kn - 8 - 32, k + kn - 8 - 16, 16);
		memcpy(k + kn - 8 - 16, s, 16);
		rehash(k);
		tap_check(lk_kit_open(&host, k, kn, "t", &kit) == LK_ERR_FORMAT,
			  "kit-segments-decreasing", "accepted");
	}
	/* Without the flag the index is stream bytes after the Adler-32. */
	((struct lk_kit_header *)k)->flags = 0;
	rehash(k);
	tap_check(lk_kit_open(&host, k, kn, "t", &kit) == LK_OK &&
			  kit.nseg == 1 &&
			  lk_kit_inflate(&host, &kit, "t", p, 100000) != LK_OK,
		  "kit-segments-no-flag",
		  "an index without the flag inflated as a stream");
	free(k);
	free(p);
}

static char last_line[256];
static int nlines;

static void capture(void *ctx, int level, const char *line)
{
	(void)ctx;
	(void)level;
	snprintf(last_line, sizeof(last_line), "%s", line);
	nlines++;
}

static const struct lk_host chost = { NULL,	h_alloc, h_free,
				      capture, NULL,	LK_LOG_ERROR };

/* A stream that inflates whole but whose index lies (record 1 moved by a
 * byte): lk_kit_check_segments names the first segment that fails, in
 * one line; a correct index passes silently. */
static void check_segments(void)
{
	size_t n = 100000, cut[4] = { 0, 25000, 50000, 75000 }, kn;
	unsigned char *p = gen(n, 2), *k, *whole = malloc(n), *scratch = malloc(n);
	size_t at;
	struct lk_kit kit;
	lk_u64 v;
	int rc;

	k = make_kit(p, n, 4, cut, Z_FULL_FLUSH, &kn);
	nlines = 0;
	rc = lk_kit_open(&chost, k, kn, "t", &kit) ||
	     lk_kit_inflate(&chost, &kit, "t", whole, n) ||
	     lk_kit_check_segments(&chost, &kit, "t", whole, scratch);
	tap_check(!rc && nlines == 0, "kit-segments-check-good", "%s",
		  last_line);
	at = kn - 8 - 16 * 3 + 16 * 1; /* record 1: segment 2's start */
	memcpy(&v, k + at, 8);
	v++, memcpy(k + at, &v, 8), rehash(k);
	nlines = 0;
	rc = lk_kit_open(&chost, k, kn, "t", &kit) ||
	     lk_kit_inflate(&chost, &kit, "t", whole, n);
	tap_check(!rc && !memcmp(whole, p, n), "kit-segments-check-whole",
		  "the moved index should not stop the whole stream: %s",
		  last_line);
	rc = lk_kit_check_segments(&chost, &kit, "t", whole, scratch);
	tap_check(rc == LK_ERR_FORMAT && nlines == 1 &&
			  !strcmp(last_line, "t: segment 1 does not match the "
					     "stream (wrong segment index)"),
		  "kit-segments-check-moved", "rc %d, %d lines: %s", rc,
		  nlines, last_line);
	free(k);
	free(p);
	free(whole);
	free(scratch);
}

/* lk_kit_open_unhashed reads the same kit as lk_kit_open but leaves the
 * hash to lk_kit_hash + lk_kit_check_hash (the UEFI stage hashes while it
 * inflates); lk_kit_open still hashes first, so a damaged index is
 * reported as a damaged kit, not as a bad index. */
static void unhashed(void)
{
	unsigned char *p = gen(100000, 2), *k, sum[32];
	size_t cut[4] = { 0, 25000, 50000, 75000 }, kn;
	struct lk_kit a, b;
	int ok;

	k = make_kit(p, 100000, 4, cut, Z_FULL_FLUSH, &kn);
	ok = lk_kit_open(&chost, k, kn, "t", &a) == LK_OK &&
	     lk_kit_open_unhashed(&chost, k, kn, "t", &b) == LK_OK &&
	     !memcmp(&a, &b, sizeof(a));
	lk_kit_hash(&b, sum);
	ok = ok && lk_kit_check_hash(&chost, &b, "t", sum) == LK_OK;
	tap_check(ok, "kit-unhashed-same", "unhashed open differs or its hash fails");
	k[64 + 100] ^= 1; /* a stream byte */
	nlines = 0;
	ok = lk_kit_open_unhashed(&chost, k, kn, "t", &b) == LK_OK;
	lk_kit_hash(&b, sum);
	ok = ok && lk_kit_check_hash(&chost, &b, "t", sum) == LK_ERR_HASH &&
	     nlines == 1 &&
	     !strcmp(last_line, "t: SHA-256 of the payload does not match the header");
	tap_check(ok, "kit-unhashed-damaged", "nlines %d, last '%s'", nlines, last_line);
	k[64 + 100] ^= 1;
	k[kn - 8 - 4] ^= 1; /* the index, not rehashed */
	nlines = 0;
	ok = lk_kit_open(&chost, k, kn, "t", &a) == LK_ERR_HASH && nlines == 1 &&
	     !strcmp(last_line, "t: SHA-256 of the payload does not match the header");
	tap_check(ok, "kit-open-hash-first", "nlines %d, last '%s'", nlines, last_line);
	free(k);
	free(p);
}

/* A BLAKE3 kit (LK_KIT_F_BLAKE3, as `linkkit create` makes them): its
 * hash is BLAKE3's, checked by open and by the split hash; a SHA-256 in
 * its header, or a changed byte, fails with a line naming BLAKE3. */
static void blake3_kit(void)
{
	unsigned char *p = gen(300000, 3), *k, sum[32];
	size_t cut[3] = { 0, 100000, 200000 }, kn;
	struct lk_kit_header h;
	struct lk_kit a;
	int ok;

	k = make_kit(p, 300000, 3, cut, Z_FULL_FLUSH, &kn);
	memcpy(&h, k, 64);
	h.flags |= LK_KIT_F_BLAKE3;
	lk_blake3(k + 64, h.payload_zsize, h.payload_hash);
	memcpy(k, &h, 64);
	ok = lk_kit_open(&chost, k, kn, "t", &a) == LK_OK &&
	     inflate_all(k, kn, p, 300000) == 0;
	lk_kit_hash(&a, sum);
	ok = ok && !memcmp(sum, h.payload_hash, 32);
	tap_check(ok, "kit-blake3-opens", "a BLAKE3 kit did not open or inflate");
	k[64 + 500] ^= 1;
	nlines = 0;
	ok = lk_kit_open(&chost, k, kn, "t", &a) == LK_ERR_HASH && nlines == 1 &&
	     !strcmp(last_line, "t: BLAKE3 of the payload does not match the header");
	tap_check(ok, "kit-blake3-damaged", "nlines %d, last '%s'", nlines, last_line);
	k[64 + 500] ^= 1;
	lk_sha256(k + 64, h.payload_zsize, h.payload_hash);
	memcpy(k, &h, 64);
	nlines = 0;
	ok = lk_kit_open(&chost, k, kn, "t", &a) == LK_ERR_HASH && nlines == 1;
	tap_check(ok, "kit-blake3-not-sha256", "a SHA-256 passed for BLAKE3: nlines %d",
		  nlines);
	free(k);
	free(p);
}

int main(void)
{
	static const size_t sizes[] = { 1000, 65536, 300000, 1 << 20 };

	tap_seed();
	for (unsigned s = 0; s < 4; s++)
		for (int kind = 0; kind < 3; kind++) {
			one(sizes[s], 2, kind);
			one(sizes[s], 5, kind);
		}
	one(4096, 1 + 1, 1);
	bad_index();
	check_segments();
	unhashed();
	blake3_kit();
	return tap_failed;
}
