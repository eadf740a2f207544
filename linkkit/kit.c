/*
 * The outer kit file: a fixed header, the zlib stream, an optional
 * signature trailer. Everything is checked against the buffer the stage
 * read from disk before a byte of the stream is inflated.
 */
#include "link_internal.h"

static const lk_u8 lk_kit_magic[8] = LK_KIT_MAGIC;

static int lk_kit_fail(const struct lk_host *h, const char *name,
		       const char *what, int status)
{
	lk_log(h, LK_LOG_ERROR, "%s: %s", name, what);
	return status;
}

int lk_kit_open(const struct lk_host *h, const void *kit, lk_u64 kit_size,
		const char *name, struct lk_kit *out)
{
	struct lk_kit_header hd;
	lk_u8 sum[32];

	lk_memset(out, 0, sizeof(*out));
	if (kit_size < sizeof(hd))
		return lk_kit_fail(h, name, "too small for a kit header",
				   LK_ERR_FORMAT);
	lk_memcpy(&hd, kit, sizeof(hd)); /* the buffer may be unaligned */
	if (lk_memcmp(hd.magic, lk_kit_magic, 8) != 0)
		return lk_kit_fail(h, name, "not a link kit (bad magic)",
				   LK_ERR_FORMAT);
	if (hd.version != LK_KIT_VERSION || hd.header_size != sizeof(hd))
		return lk_kit_fail(h, name, "unsupported kit version",
				   LK_ERR_UNSUPPORTED);
	if (hd.flags & ~LK_KIT_F_SIGNED)
		return lk_kit_fail(h, name, "unknown kit flags",
				   LK_ERR_UNSUPPORTED);
	if (hd.payload_zsize > kit_size - sizeof(hd) ||
	    hd.payload_size < sizeof(struct lk_payload_header) ||
	    hd.payload_size > LK_MAX_SIZE || hd.payload_zsize != (lk_size)hd.payload_zsize)
		return lk_kit_fail(h, name, "payload size out of range "
				   "(truncated kit?)", LK_ERR_FORMAT);
	lk_sha256((const lk_u8 *)kit + sizeof(hd), (lk_size)hd.payload_zsize, sum);
	if (lk_memcmp(sum, hd.payload_sha256, 32) != 0)
		return lk_kit_fail(h, name, "SHA-256 of the payload does not "
				   "match the header", LK_ERR_HASH);
	out->zdata = (const lk_u8 *)kit + sizeof(hd);
	out->zsize = hd.payload_zsize;
	out->payload_size = hd.payload_size;
	out->flags = hd.flags;
	return LK_OK;
}

int lk_kit_inflate(const struct lk_host *h, const struct lk_kit *kit,
		   const char *name, void *dst, lk_u64 dst_size)
{
	lk_size got = 0;

	if (dst_size < kit->payload_size)
		return lk_kit_fail(h, name, "payload buffer too small",
				   LK_ERR_RANGE);
	if (lk_inflate_zlib(kit->zdata, (lk_size)kit->zsize, dst,
			    (lk_size)kit->payload_size, &got) != LK_OK)
		return lk_kit_fail(h, name, "corrupt compressed payload",
				   LK_ERR_INFLATE);
	if (got != kit->payload_size)
		return lk_kit_fail(h, name, "payload shorter than its header "
				   "says", LK_ERR_INFLATE);
	return LK_OK;
}
