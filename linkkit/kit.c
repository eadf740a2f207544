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

static lk_u64 lk_get64(const lk_u8 *p)
{
	lk_u64 v;

	lk_memcpy(&v, p, 8); /* unaligned, little-endian like the host */
	return v;
}

/*
 * The segment index at the end of the hashed bytes (kit_format.h). On
 * success out->zsize is the stream's own length. Every offset is checked
 * here, so lk_kit_inflate_segment only adds and subtracts them.
 */
static const char *lk_kit_segments(struct lk_kit *out, const lk_u8 *z,
				   lk_u64 zsize, lk_u64 psize)
{
	struct lk_kit_segtail t;
	lk_u64 idx, zlen, pz = 2, po = 0, zo, o;
	lk_u32 i;

	if (zsize < sizeof(t))
		return "segment index truncated";
	lk_memcpy(&t, z + zsize - sizeof(t), sizeof(t));
	if (t.count == 0 || t.count >= LK_KIT_MAX_SEGMENTS || t.reserved)
		return "bad segment count";
	idx = (lk_u64)t.count * sizeof(struct lk_kit_segment) + sizeof(t);
	/* zlib header, at least one byte of blocks, Adler-32. */
	if (idx > zsize || zsize - idx < 7)
		return "segment index truncated";
	zlen = zsize - idx;
	for (i = 0; i < t.count; i++) {
		zo = lk_get64(z + zlen + (lk_u64)i * 16);
		o = lk_get64(z + zlen + (lk_u64)i * 16 + 8);
		/* Each segment has input and output, the last one too. */
		if (zo <= pz || zo >= zlen - 4 || o <= po || o >= psize)
			return "bad segment offsets";
		pz = zo;
		po = o;
	}
	out->zsize = zlen;
	out->nseg = t.count + 1;
	out->seg = z + zlen;
	return LK_NULL;
}

/* The header's fields against kit_size; fills out's whole-stream view. */
static int lk_kit_header(const struct lk_host *h, const void *kit,
			 lk_u64 kit_size, const char *name, struct lk_kit *out)
{
	struct lk_kit_header hd;

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
	if (hd.flags & ~(LK_KIT_F_SIGNED | LK_KIT_F_SEGMENTS | LK_KIT_F_PROV |
			 LK_KIT_F_BLAKE3))
		return lk_kit_fail(h, name, "unknown kit flags",
				   LK_ERR_UNSUPPORTED);
	if (hd.payload_zsize > kit_size - sizeof(hd) ||
	    hd.payload_size < sizeof(struct lk_payload_header) ||
	    hd.payload_size > LK_MAX_SIZE || hd.payload_zsize != (lk_size)hd.payload_zsize)
		return lk_kit_fail(h, name, "payload size out of range "
				   "(truncated kit?)", LK_ERR_FORMAT);
	out->hashed = (const lk_u8 *)kit + sizeof(hd);
	out->hashed_size = hd.payload_zsize;
	lk_memcpy(out->hash, hd.payload_hash, 32);
	out->zdata = (const lk_u8 *)kit + sizeof(hd);
	out->zsize = hd.payload_zsize;
	out->payload_size = hd.payload_size;
	out->flags = hd.flags;
	out->nseg = 1;
	return LK_OK;
}

/* The record and the segment index at the end of the hashed bytes. */
static int lk_kit_tail(const struct lk_host *h, const char *name,
		       struct lk_kit *out)
{
	/* The record is last: off the end before the segment index. */
	if (out->flags & LK_KIT_F_PROV) {
		const char *why = lk_kit_prov_split(out);

		if (why) {
			lk_memset(out, 0, sizeof(*out));
			return lk_kit_fail(h, name, why, LK_ERR_FORMAT);
		}
	}
	if (out->flags & LK_KIT_F_SEGMENTS) {
		const char *why = lk_kit_segments(out, out->zdata, out->zsize,
						  out->payload_size);

		if (why) {
			lk_memset(out, 0, sizeof(*out));
			return lk_kit_fail(h, name, why, LK_ERR_FORMAT);
		}
	}
	return LK_OK;
}

int lk_kit_open_unhashed(const struct lk_host *h, const void *kit,
			 lk_u64 kit_size, const char *name, struct lk_kit *out)
{
	int rc = lk_kit_header(h, kit, kit_size, name, out);

	return rc != LK_OK ? rc : lk_kit_tail(h, name, out);
}

void lk_kit_hash_bytes(lk_u32 flags, const void *p, lk_size n, lk_u8 sum[32])
{
	if (flags & LK_KIT_F_BLAKE3)
		lk_blake3(p, n, sum);
	else
		lk_sha256(p, n, sum);
}

void lk_kit_hash(const struct lk_kit *kit, lk_u8 sum[32])
{
	lk_kit_hash_bytes(kit->flags, kit->hashed, (lk_size)kit->hashed_size,
			  sum);
}

int lk_kit_check_hash(const struct lk_host *h, const struct lk_kit *kit,
		      const char *name, const lk_u8 sum[32])
{
	if (lk_memcmp(sum, kit->hash, 32) != 0)
		return lk_kit_fail(h, name,
				   kit->flags & LK_KIT_F_BLAKE3
					   ? "BLAKE3 of the payload does not "
					     "match the header"
					   : "SHA-256 of the payload does not "
					     "match the header",
				   LK_ERR_HASH);
	return LK_OK;
}

int lk_kit_verify(const struct lk_host *h, const struct lk_kit *kit,
		  const char *name)
{
	lk_u8 sum[32];

	lk_kit_hash(kit, sum);
	return lk_kit_check_hash(h, kit, name, sum);
}

/* The hash comes before the record and the segment index are parsed:
 * a damaged kit is reported as such, whichever byte is damaged. */
int lk_kit_open(const struct lk_host *h, const void *kit, lk_u64 kit_size,
		const char *name, struct lk_kit *out)
{
	int rc = lk_kit_header(h, kit, kit_size, name, out);

	if (rc == LK_OK)
		rc = lk_kit_verify(h, out, name);
	if (rc == LK_OK)
		rc = lk_kit_tail(h, name, out);
	if (rc != LK_OK)
		lk_memset(out, 0, sizeof(*out));
	return rc;
}

/* The zlib header, as RFC 1950 has it (deflate, window <= 32 KiB, no
 * preset dictionary). */
static int lk_kit_zhead_ok(const lk_u8 *z)
{
	return (z[0] & 15) == 8 && (z[0] >> 4) <= 7 && !(z[1] & 0x20) &&
	       ((unsigned)z[0] << 8 | z[1]) % 31 == 0;
}

/*
 * The stream's Adler-32 is not recomputed: the kit's SHA-256 covers the
 * compressed bytes (and a signature, when there is one, the header that
 * holds it), and inflating is deterministic, so the payload is the one the
 * host made. The checksum would cost a pass over the whole payload (Linux
 * defconfig: 52 MB, 5 ms). Tools check it (lk_kit_check_sum).
 */
int lk_kit_inflate(const struct lk_host *h, const struct lk_kit *kit,
		   const char *name, void *dst, lk_u64 dst_size)
{
	return lk_kit_inflate_with(h, kit, name, dst, dst_size, lk_inflate_raw);
}

int lk_kit_inflate_with(const struct lk_host *h, const struct lk_kit *kit,
			const char *name, void *dst, lk_u64 dst_size,
			lk_inflate_fn *inflate)
{
	lk_size got = 0, used = 0;

	if (dst_size < kit->payload_size)
		return lk_kit_fail(h, name, "payload buffer too small",
				   LK_ERR_RANGE);
	if (kit->zsize < 6 || !lk_kit_zhead_ok(kit->zdata) ||
	    inflate(kit->zdata + 2, (lk_size)kit->zsize - 6, dst,
		    (lk_size)kit->payload_size, &got, &used) != LK_OK ||
	    used != kit->zsize - 6)
		return lk_kit_fail(h, name, "corrupt compressed payload",
				   LK_ERR_INFLATE);
	if (got != kit->payload_size)
		return lk_kit_fail(h, name, "payload shorter than its header "
				   "says", LK_ERR_INFLATE);
	return LK_OK;
}

int lk_kit_inflate_again(const struct lk_host *h, const struct lk_kit *kit,
			 const char *name, void *dst, lk_u64 dst_size,
			 lk_inflate_fn *inflate, lk_u32 bad)
{
	int rc = lk_kit_inflate_with(h, kit, name, dst, dst_size, inflate);

	if (rc == LK_OK)
		lk_log(h, LK_LOG_WARN,
		       "%s: segment %u does not match the stream: inflated it "
		       "whole (slower)",
		       name, bad);
	return rc;
}

/* Segment i's bounds in the stream [*z0, *z1) and payload [*o0, *o1). */
static void lk_kit_bounds(const struct lk_kit *kit, lk_u32 i, lk_u64 *z0,
			  lk_u64 *z1, lk_u64 *o0, lk_u64 *o1)
{
	const lk_u8 *e = kit->seg + (lk_u64)i * 16; /* record i + 1 */

	*z0 = i ? lk_get64(e - 16) : 2;
	*o0 = i ? lk_get64(e - 8) : 0;
	*z1 = i + 1 < kit->nseg ? lk_get64(e) : kit->zsize - 4;
	*o1 = i + 1 < kit->nseg ? lk_get64(e + 8) : kit->payload_size;
}

int lk_kit_inflate_segment(const struct lk_kit *kit, lk_u32 i, void *dst,
			   lk_u64 dst_size)
{
	const lk_u8 *z = kit->zdata;
	lk_u8 *d = dst;
	lk_u64 z0, z1, o0, o1;

	if (i >= kit->nseg || dst_size < kit->payload_size)
		return LK_ERR_RANGE;
	if (i == 0 && !lk_kit_zhead_ok(z))
		return LK_ERR_INFLATE;
	lk_kit_bounds(kit, i, &z0, &z1, &o0, &o1);
	return lk_inflate_part(z + z0, (lk_size)(z1 - z0), d + o0,
			       (lk_size)(o1 - o0), i + 1 == kit->nseg);
}

void lk_kit_segment_range(const struct lk_kit *kit, lk_u32 i, lk_u64 *o0,
			  lk_u64 *o1)
{
	lk_u64 z0, z1;

	lk_kit_bounds(kit, i, &z0, &z1, o0, o1);
}

int lk_kit_prefix_ready(const struct lk_kit *kit, const void *payload,
			const lk_u8 *state, lk_u8 ok)
{
	lk_u64 o0, o1, need;
	lk_u32 i;

	if (__atomic_load_n(&state[0], __ATOMIC_ACQUIRE) != ok)
		return 0;
	lk_kit_segment_range(kit, 0, &o0, &o1);
	need = lk_link_prefix(payload, o1, kit->payload_size);
	for (i = 1; i < kit->nseg; i++) {
		lk_kit_segment_range(kit, i, &o0, &o1);
		if (o0 >= need)
			break;
		if (__atomic_load_n(&state[i], __ATOMIC_ACQUIRE) != ok)
			return 0;
	}
	return 1;
}

int lk_kit_check_sum(const struct lk_host *h, const struct lk_kit *kit,
		     const char *name, const void *payload)
{
	const lk_u8 *t = kit->zdata + kit->zsize - 4;
	lk_u32 want;

	want = (lk_u32)t[0] << 24 | (lk_u32)t[1] << 16 | (lk_u32)t[2] << 8 |
	       t[3];
	if (lk_adler32(1, payload, (lk_size)kit->payload_size) != want)
		return lk_kit_fail(h, name, "Adler-32 of the payload does not "
				   "match the stream's", LK_ERR_INFLATE);
	return LK_OK;
}

/*
 * The stream inflated whole (payload) is the truth; an index entry that
 * does not match it still boots, as a stage then inflates the stream
 * again on one processor, so only a tool calls this, to refuse the kit
 * before a stage is slowed down by it. scratch: payload_size bytes.
 */
int lk_kit_check_segments(const struct lk_host *h, const struct lk_kit *kit,
			  const char *name, const void *payload, void *scratch)
{
	lk_u64 z0, z1, o0, o1;
	lk_u32 i;

	for (i = 0; i < kit->nseg; i++) {
		lk_kit_bounds(kit, i, &z0, &z1, &o0, &o1);
		if (lk_kit_inflate_segment(kit, i, scratch,
					   kit->payload_size) != LK_OK ||
		    lk_memcmp((const lk_u8 *)scratch + o0,
			      (const lk_u8 *)payload + o0,
			      (lk_size)(o1 - o0)) != 0) {
			lk_log(h, LK_LOG_ERROR, "%s: segment %u does not match "
			       "the stream (wrong segment index)", name, i);
			return LK_ERR_FORMAT;
		}
	}
	return LK_OK;
}
