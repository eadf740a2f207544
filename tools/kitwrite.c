/* Compresses a payload and wraps it in the kit header (kit_format.h). */
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../linkkit/linkkit.h"
#include "kb.h"

/*
 * Payloads of at least KB_SEG_BYTES per segment are cut into up to
 * KB_SEGS segments that inflate independently (LK_KIT_F_SEGMENTS), so a
 * stage with several processors inflates them at once: from 4 MiB of
 * payload (Linux tinyconfig: 2 segments). Each cut costs the compressor
 * its 32 KiB window (~0.1% of the kit each on the OpenBSD kernel).
 * LINKKIT_SEGMENTS=N overrides the count (1: one plain stream).
 */
#define KB_SEGS 8
#define KB_SEG_BYTES (2u << 20)
#define KB_STEP (64u << 10) /* granularity of the cut points */
/*
 * libdeflate's level 12 (near-optimal parsing) instead of zlib's 9: the kit
 * is made once and inflated at every boot. Linux tinyconfig kit: 1,192,969
 * -> 1,135,131 bytes (1.115x -> 1.061x its gzip -9 kernel).
 */
#define KB_LEVEL 12

static unsigned kb_seg_count(size_t size)
{
	const char *e = getenv("LINKKIT_SEGMENTS");
	size_t n = size / KB_SEG_BYTES;

	if (e && *e)
		n = strtoul(e, NULL, 10);
	if (n > KB_SEGS && !(e && *e))
		n = KB_SEGS;
	if (n >= LK_KIT_MAX_SEGMENTS)
		n = LK_KIT_MAX_SEGMENTS - 1;
	/* Every segment needs at least one payload byte. */
	if (n > size)
		n = size;
	return n ? (unsigned)n : 1;
}

/* Compressed bytes (a fast level-1 pass) of p's first i * KB_STEP bytes
 * in out[i], i = 0..steps; returns steps, 0 on failure. */
static size_t kb_zsizes(const uint8_t *p, size_t size, uint64_t **outp)
{
	z_stream z;
	uint8_t buf[1 << 16];
	size_t steps = (size + KB_STEP - 1) / KB_STEP, i;
	uint64_t *out = kb_xcalloc(steps + 1, sizeof(*out));

	*outp = out;
	memset(&z, 0, sizeof(z));
	if (deflateInit(&z, 1) != Z_OK)
		return 0;
	for (i = 0; i < steps; i++) {
		size_t n = size - i * KB_STEP < KB_STEP ? size - i * KB_STEP
							: KB_STEP;

		z.next_in = (Bytef *)(p + i * KB_STEP);
		z.avail_in = (uInt)n;
		do {
			z.next_out = buf;
			z.avail_out = sizeof(buf);
			deflate(&z, i + 1 == steps ? Z_FINISH : Z_NO_FLUSH);
		} while (z.avail_out == 0);
		out[i + 1] = z.total_out;
	}
	deflateEnd(&z);
	return steps;
}

/* cut[1..nseg-1] for p[0, size), offset by base, about equal compressed
 * bytes each (cut[0] is the caller's). */
static int kb_cuts_even(const uint8_t *p, size_t size, unsigned nseg,
			size_t base, size_t *cut)
{
	uint64_t *out;
	size_t steps = kb_zsizes(p, size, &out), i, at = 0;
	unsigned k = 1;

	if (!steps && size) {
		free(out);
		return -1;
	}
	for (i = 1; i < steps && k < nseg; i++)
		if (out[i] * nseg >= out[steps] * k)
			cut[k++] = base + (at = i * KB_STEP);
	/* Tiny payloads: evenly by bytes, strictly increasing. */
	for (; k < nseg; k++)
		cut[k] = base + (at = at + 1 > size * k / nseg ? at + 1
							 : size * k / nseg);
	free(out);
	return nseg < 2 || at < size ? 0 : -1;
}

/*
 * Cut points with about equal compressed bytes on each side: inflate time
 * follows the number of codes decoded, which the compressed size tracks
 * far better than the payload bytes do (relocation records compress 8:1,
 * machine code 2.5:1). One cut is where the contents start
 * (lk_link_prefix): the segments before it are all a stage needs to parse
 * and lay out while the others inflate, so each side gets its share of
 * the segments by its compressed bytes.
 */
static int kb_cut_points(const uint8_t *p, size_t size, unsigned nseg,
			 size_t *cut)
{
	size_t fix = (size_t)lk_link_prefix(p, size, size);
	uint64_t *out, a, t;
	size_t steps;
	unsigned k1;

	if (nseg < 3 || fix == 0 || fix >= size)
		return kb_cuts_even(p, size, nseg, 0, cut);
	steps = kb_zsizes(p, size, &out);
	if (!steps) {
		free(out);
		return -1;
	}
	a = out[fix / KB_STEP];
	t = out[steps];
	free(out);
	k1 = (unsigned)((a * nseg + t / 2) / (t ? t : 1));
	k1 = k1 < 1 ? 1 : k1 > nseg - 1 ? nseg - 1 : k1;
	if (kb_cuts_even(p, fix, k1, 0, cut) ||
	    kb_cuts_even(p + fix, size - fix, nseg - k1, fix, cut + k1))
		return -1;
	cut[k1] = fix;
	return 0;
}

/*
 * Where the last block of a raw deflate stream starts and where the stream
 * ends, in bits, found with zlib's Z_BLOCK stops (scratch: room for the
 * whole output). -1 if the stream does not inflate to exactly out_len.
 */
static int kb_last_block(const uint8_t *z, size_t zlen, uint8_t *scratch,
			 size_t out_len, uint64_t *last, uint64_t *end)
{
	z_stream s;
	int rc;

	memset(&s, 0, sizeof(s));
	if (inflateInit2(&s, -15) != Z_OK)
		return -1;
	s.next_in = (Bytef *)z;
	s.avail_in = (uInt)zlen;
	s.next_out = scratch;
	s.avail_out = (uInt)out_len;
	*last = 0;
	*end = ~0ull;
	/* data_type: bits held back (< 64), +64 once the final block has
	 * begun, +128 at a block boundary: before the next block's header,
	 * or after the final block (Z_STREAM_END comes one call later and
	 * no longer says where the bits ended). */
	while ((rc = inflate(&s, Z_BLOCK)) == Z_OK) {
		uint64_t at = (uint64_t)s.total_in * 8 - (s.data_type & 63);

		if ((s.data_type & 128) && !(s.data_type & 64))
			*last = at;
		else if (s.data_type & 128)
			*end = at;
	}
	inflateEnd(&s);
	return rc == Z_STREAM_END && s.total_out == out_len && s.total_in == zlen ? 0 : -1;
}

/*
 * Segment k compressed on its own by libdeflate (KB_LEVEL, raw deflate);
 * all but the last then become non-final: the final block's BFINAL bit
 * is cleared and an empty stored block follows it, as zlib's full flush
 * leaves it. Appends at zout + *pos.
 */
static int kb_deflate_segment(struct libdeflate_compressor *c, const uint8_t *p,
			      size_t len, int last_seg, uint8_t *zout, size_t cap,
			      size_t *pos, uint8_t *scratch)
{
	uint8_t *z = zout + *pos;
	size_t n = libdeflate_deflate_compress(c, p, len, z, cap - *pos);
	uint64_t last, end, at;

	if (n == 0)
		return -1;
	if (last_seg) {
		*pos += n;
		return 0;
	}
	if (kb_last_block(z, n, scratch, len, &last, &end) || end > n * 8)
		return -1;
	z[last / 8] &= (uint8_t)~(1u << (last % 8));
	if (end % 8) /* the bits after the end of the stream must be 0 */
		z[end / 8] &= (uint8_t)((1u << (end % 8)) - 1);
	at = (end + 3 + 7) / 8; /* stored block header: 3 zero bits, then align */
	if (*pos + at + 4 > cap)
		return -1;
	if (at > n)
		z[n] = 0;
	memcpy(z + at, "\x00\x00\xff\xff", 4); /* LEN 0, NLEN 0xffff */
	*pos += at + 4;
	return 0;
}

/*
 * A zlib stream of nseg independently compressed segments (see
 * kb_deflate_segment; one segment is a plain stream). Fills seg with each
 * cut's stream offset.
 */
static int kb_deflate_segments(const uint8_t *p, size_t size, unsigned nseg,
			       const size_t *cut, uint8_t *zout, size_t *zlen,
			       struct lk_kit_segment *seg)
{
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(KB_LEVEL);
	uint8_t *scratch = NULL;
	size_t pos = 2, most = 0;
	uLong adler = adler32(0, Z_NULL, 0);
	unsigned k;
	int rc = c ? 0 : -1;

	for (k = 0; k + 1 < nseg; k++) /* the last is not walked */
		if (cut[k + 1] - cut[k] > most)
			most = cut[k + 1] - cut[k];
	scratch = kb_xcalloc(most ? most : 1, 1);
	zout[0] = 0x78; /* deflate, 32 KiB window */
	zout[1] = 0xda; /* level 3 ("maximum"), header check */
	for (k = 0; k < nseg && rc == 0; k++) {
		size_t end = k + 1 < nseg ? cut[k + 1] : size;

		rc = kb_deflate_segment(c, p + cut[k], end - cut[k], k + 1 == nseg,
					zout, *zlen, &pos, scratch);
		if (k + 1 < nseg) {
			seg[k].zoff = pos;
			seg[k].off = end;
		}
	}
	adler = adler32_z(adler, p, size);
	if (rc == 0 && pos + 4 <= *zlen) {
		for (k = 0; k < 4; k++)
			zout[pos + k] = (uint8_t)(adler >> (24 - 8 * k));
		*zlen = pos + 4;
	} else {
		rc = -1;
	}
	free(scratch);
	libdeflate_free_compressor(c);
	return rc;
}

static int kb_hash_sha256(void)
{
	const char *e = getenv("LINKKIT_HASH");

	return e && !strcmp(e, "sha256");
}

int kb_wrap_kit(const uint8_t *payload, size_t size, const uint8_t *prov,
		size_t prov_len, uint8_t **kit, size_t *kit_size)
{
	unsigned nseg = kb_seg_count(size);
	size_t cut[LK_KIT_MAX_SEGMENTS] = { 0 };
	struct lk_kit_segment seg[LK_KIT_MAX_SEGMENTS];
	struct lk_kit_segtail tail;
	/* zlib's bound + flush markers + room for libdeflate's own bound */
	uLongf zlen = compressBound(size) + 1024 * nseg + (size >> 8) + 64;
	size_t zl = zlen, idx = 0;
	struct lk_kit_header h;
	uint8_t *out;

	if (nseg > 1 && kb_cut_points(payload, size, nseg, cut))
		nseg = 1;
	if (nseg > 1)
		idx = (nseg - 1) * sizeof(seg[0]) + sizeof(tail);
	out = kb_xcalloc(sizeof(h) + zlen + idx + prov_len, 1);
	if (kb_deflate_segments(payload, size, nseg, cut, out + sizeof(h), &zl,
				seg)) {
		free(out);
		return -1;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, LK_KIT_MAGIC, 8);
	h.version = LK_KIT_VERSION;
	h.header_size = sizeof(h);
	if (nseg > 1) {
		/* The index follows the stream, inside the hashed bytes. */
		memcpy(out + sizeof(h) + zl, seg, (nseg - 1) * sizeof(seg[0]));
		memset(&tail, 0, sizeof(tail));
		tail.count = nseg - 1;
		memcpy(out + sizeof(h) + zl + (nseg - 1) * sizeof(seg[0]),
		       &tail, sizeof(tail));
		h.flags |= LK_KIT_F_SEGMENTS;
	}
	if (prov) {
		/* Last, so lk_kit_open takes it off before the index. */
		memcpy(out + sizeof(h) + zl + idx, prov, prov_len);
		idx += prov_len;
		h.flags |= LK_KIT_F_PROV;
	}
	h.payload_zsize = zl + idx;
	h.payload_size = size;
	/* BLAKE3 unless LINKKIT_HASH=sha256 asks for a kit that stages from
	 * before LK_KIT_F_BLAKE3 still take. */
	if (kb_hash_sha256()) {
		lk_sha256(out + sizeof(h), zl + idx, h.payload_hash);
	} else {
		h.flags |= LK_KIT_F_BLAKE3;
		lk_blake3(out + sizeof(h), zl + idx, h.payload_hash);
	}
	memcpy(out, &h, sizeof(h));
	*kit = out;
	*kit_size = sizeof(h) + zl + idx;
	return 0;
}
