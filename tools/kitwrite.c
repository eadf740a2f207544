/* Compresses a payload and wraps it in the kit header (kit_format.h). */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../linkkit/linkkit.h"
#include "kb.h"

/*
 * Payloads of at least KB_SEG_BYTES per segment are cut into up to
 * KB_SEGS segments that inflate independently (LK_KIT_F_SEGMENTS), so a
 * stage with several processors inflates them at once. Each cut costs the
 * compressor its 32 KiB window (~0.1% of the kit each on the OpenBSD
 * kernel). LINKKIT_SEGMENTS=N overrides the count (1: one plain stream).
 */
#define KB_SEGS 8
#define KB_SEG_BYTES (4u << 20)
#define KB_STEP (64u << 10) /* granularity of the cut points */

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

/*
 * Cut points with about equal compressed bytes on each side: inflate time
 * follows the number of codes decoded, which the compressed size tracks
 * far better than the payload bytes do (relocation records compress 8:1,
 * machine code 2.5:1). Estimated with a fast level-1 pass.
 */
static int kb_cut_points(const uint8_t *p, size_t size, unsigned nseg,
			 size_t *cut)
{
	z_stream z;
	uint8_t buf[1 << 16];
	size_t steps = (size + KB_STEP - 1) / KB_STEP, i, at = 0;
	uint64_t *out = kb_xcalloc(steps + 1, sizeof(*out));
	unsigned k = 1;

	memset(&z, 0, sizeof(z));
	if (deflateInit(&z, 1) != Z_OK) {
		free(out);
		return -1;
	}
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
	for (i = 1; i < steps && k < nseg; i++)
		if (out[i] * nseg >= out[steps] * k)
			cut[k++] = at = i * KB_STEP;
	/* Tiny payloads: evenly by bytes, strictly increasing. */
	for (; k < nseg; k++)
		cut[k] = at =
			at + 1 > size * k / nseg ? at + 1 : size * k / nseg;
	free(out);
	return cut[nseg - 1] < size ? 0 : -1;
}

/* Level 9 with a full flush at each cut: the stream of compress2() but
 * for the flush points. Fills seg with each cut's stream offset. */
static int kb_deflate_segments(const uint8_t *p, size_t size, unsigned nseg,
			       const size_t *cut, uint8_t *zout, size_t *zlen,
			       struct lk_kit_segment *seg)
{
	z_stream z;
	unsigned k;
	int rc = 0;

	memset(&z, 0, sizeof(z));
	if (deflateInit(&z, 9) != Z_OK)
		return -1;
	z.next_out = zout;
	z.avail_out = (uInt)*zlen;
	for (k = 0; k < nseg && rc == 0; k++) {
		size_t end = k + 1 < nseg ? cut[k + 1] : size;
		int flush = k + 1 < nseg ? Z_FULL_FLUSH : Z_FINISH;

		z.next_in = (Bytef *)(p + cut[k]);
		z.avail_in = (uInt)(end - cut[k]);
		rc = deflate(&z, flush);
		/* All of the input, all of the output: the buffer has room
		 * for the worst case plus the flush markers. */
		if ((flush == Z_FINISH && rc != Z_STREAM_END) ||
		    (flush != Z_FINISH &&
		     (rc != Z_OK || z.avail_in || !z.avail_out)))
			rc = -1;
		else
			rc = 0;
		if (k + 1 < nseg) {
			seg[k].zoff = z.total_out;
			seg[k].off = end;
		}
	}
	*zlen = z.total_out;
	deflateEnd(&z);
	return rc;
}

int kb_wrap_kit(const uint8_t *payload, size_t size, uint8_t **kit,
		size_t *kit_size)
{
	unsigned nseg = kb_seg_count(size);
	size_t cut[LK_KIT_MAX_SEGMENTS] = { 0 };
	struct lk_kit_segment seg[LK_KIT_MAX_SEGMENTS];
	struct lk_kit_segtail tail;
	uLongf zlen = compressBound(size) + 1024 * nseg; /* + flush markers */
	size_t zl = zlen, idx = 0;
	struct lk_kit_header h;
	uint8_t *out;

	if (nseg > 1 && kb_cut_points(payload, size, nseg, cut))
		nseg = 1;
	if (nseg > 1)
		idx = (nseg - 1) * sizeof(seg[0]) + sizeof(tail);
	out = kb_xcalloc(sizeof(h) + zlen + idx, 1);
	if (nseg == 1) {
		if (compress2(out + sizeof(h), &zlen, payload, size, 9) !=
		    Z_OK) {
			free(out);
			return -1;
		}
		zl = zlen;
	} else if (kb_deflate_segments(payload, size, nseg, cut,
				       out + sizeof(h), &zl, seg)) {
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
	h.payload_zsize = zl + idx;
	h.payload_size = size;
	lk_sha256(out + sizeof(h), zl + idx, h.payload_sha256);
	memcpy(out, &h, sizeof(h));
	*kit = out;
	*kit_size = sizeof(h) + zl + idx;
	return 0;
}
