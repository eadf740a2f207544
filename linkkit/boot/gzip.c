/*
 * gzip'd kernels (OpenBSD's /bsd.rd, bsd.gz): RFC 1952 member, inflated
 * with the core's inflate into a fresh big buffer that replaces the file.
 * Everything in the header and trailer is untrusted: the size comes from
 * the trailer (bounded), the CRC-32 must match.
 */
#include "boot.h"
#include "../fs/part.h"

#define LK_GZ_MAX_OUT 0x20000000u /* 512 MiB: no kernel comes near */
#define LK_GZ_FHCRC 0x02u
#define LK_GZ_FEXTRA 0x04u
#define LK_GZ_FNAME 0x08u
#define LK_GZ_FCOMMENT 0x10u

/* Skips a NUL-terminated field; 0 when it runs off the end. */
static lk_u64 lk_gz_skip_str(const lk_u8 *p, lk_u64 size, lk_u64 off)
{
	while (off < size && p[off])
		off++;
	return off < size ? off + 1 : 0;
}

/* Offset of the deflate data, or 0 for a bad header. */
static lk_u64 lk_gz_header(const lk_u8 *p, lk_u64 size)
{
	lk_u8 flg;
	lk_u64 off = 10;

	if (size < 18 || p[2] != 8)
		return 0;
	flg = p[3];
	if (flg & 0xe0)
		return 0;
	if (flg & LK_GZ_FEXTRA) {
		if (size - 8 < off + 2)
			return 0;
		off += 2 + (lk_u64)(p[off] | p[off + 1] << 8);
	}
	if ((flg & LK_GZ_FNAME) && off < size)
		off = lk_gz_skip_str(p, size, off);
	if ((flg & LK_GZ_FCOMMENT) && off && off < size)
		off = lk_gz_skip_str(p, size, off);
	if (off && (flg & LK_GZ_FHCRC))
		off += 2;
	return off && off < size - 8 ? off : 0;
}

int lk_boot_gunzip(struct lk_boot *b, const char *name, void **data,
		   lk_u64 *size)
{
	const lk_u8 *p = *data;
	lk_u64 off, isize;
	lk_size out = 0, used = 0;
	void *dst;

	if (*size < 2 || p[0] != 0x1f || p[1] != 0x8b)
		return 0; /* not gzip'd: used as it is */
	off = lk_gz_header(p, *size);
	isize = off ? lk_le32(p + *size - 4) : 0;
	if (!off || isize == 0 || isize > LK_GZ_MAX_OUT) {
		lk_log(&b->host, LK_LOG_ERROR, "%s: bad gzip header or size",
		       name);
		return -1;
	}
	dst = b->ops->alloc_big(b, isize, 0);
	if (!dst) {
		lk_log(&b->host, LK_LOG_ERROR, "%s: no memory for %llu bytes",
		       name, isize);
		return -1;
	}
	if (lk_inflate_raw(p + off, (lk_size)(*size - 8 - off), dst,
			   (lk_size)isize, &out, &used) != LK_OK ||
	    out != isize ||
	    lk_part_crc32(0, dst, out) != lk_le32(p + *size - 8)) {
		b->ops->free_big(b, dst, isize);
		lk_log(&b->host, LK_LOG_ERROR, "%s: corrupt gzip data", name);
		return -1;
	}
	b->ops->free_big(b, *data, *size);
	*data = dst;
	*size = isize;
	return 0;
}
