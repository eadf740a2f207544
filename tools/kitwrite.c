/* Compresses a payload and wraps it in the kit header (kit_format.h). */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../linkkit/linkkit.h"
#include "kb.h"

/* Feeds p[0..n) to the deflater in pieces avail_in can hold. */
static int feed(z_stream *z, const uint8_t *p, size_t n, int flush)
{
	int rc;

	do {
		uInt k = n > 0x40000000u ? 0x40000000u : (uInt)n;

		z->next_in = (Bytef *)p;
		z->avail_in = k;
		p += k;
		n -= k;
		rc = deflate(z, n ? Z_NO_FLUSH : flush);
		if (rc == Z_STREAM_ERROR || z->avail_in != 0)
			return -1;
	} while (n);
	return flush == Z_FINISH ? (rc == Z_STREAM_END ? 0 : -1) : 0;
}

/* The relocation stream's bytes in the payload, [*lo, *hi). */
static void stored_region(const uint8_t *payload, size_t size, size_t *lo, size_t *hi)
{
	struct lk_payload_header h;

	*lo = *hi = 0;
	if (size < sizeof(h))
		return;
	memcpy(&h, payload, sizeof(h));
	if (h.magic != LK_PAYLOAD_MAGIC || h.relocs.off > size ||
	    h.relocs.count > size - h.relocs.off)
		return;
	*lo = h.relocs.off;
	*hi = *lo + h.relocs.count;
}

/*
 * One zlib stream, level 9 except the relocation stream, which goes into
 * stored blocks (deflateParams to level 0 and back): varint records are
 * smaller than deflate makes them and a stored block inflates as a copy,
 * where deflated they decode as many short literals and matches.
 */
static int deflate_payload(const uint8_t *p, size_t size, uint8_t *out, uLongf *zlen)
{
	z_stream z;
	size_t lo, hi;
	int bad;

	memset(&z, 0, sizeof(z));
	if (deflateInit(&z, 9) != Z_OK)
		return -1;
	z.next_out = out;
	z.avail_out = *zlen > 0xffffffffu ? 0xffffffffu : (uInt)*zlen;
	stored_region(p, size, &lo, &hi);
	bad = feed(&z, p, lo, Z_NO_FLUSH);
	if (!bad && hi > lo) {
		bad = deflateParams(&z, 0, Z_DEFAULT_STRATEGY) != Z_OK ||
		      feed(&z, p + lo, hi - lo, Z_NO_FLUSH) ||
		      deflateParams(&z, 9, Z_DEFAULT_STRATEGY) != Z_OK;
	}
	bad = bad || feed(&z, p + hi, size - hi, Z_FINISH);
	*zlen = z.total_out;
	deflateEnd(&z);
	return bad ? -1 : 0;
}

int kb_wrap_kit(const uint8_t *payload, size_t size, uint8_t **kit, size_t *kit_size)
{
	/* Stored blocks cost 5 bytes per 64 KiB over compressBound's. */
	uLongf zlen = compressBound(size) + 5 * (size / 65535 + 2) + 64;
	struct lk_kit_header h;
	uint8_t *out = kb_xcalloc(sizeof(h) + zlen, 1);

	if (deflate_payload(payload, size, out + sizeof(h), &zlen)) {
		free(out);
		return -1;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, LK_KIT_MAGIC, 8);
	h.version = LK_KIT_VERSION;
	h.header_size = sizeof(h);
	h.payload_zsize = zlen;
	h.payload_size = size;
	lk_sha256(out + sizeof(h), zlen, h.payload_sha256);
	memcpy(out, &h, sizeof(h));
	*kit = out;
	*kit_size = sizeof(h) + zlen;
	return 0;
}
