/* The outer kit: header checks, SHA-256, inflate, then a full link. */
#include <zlib.h>
#include "pb.h"

lk_u8 *test_make_kit(const lk_u8 *payload, lk_u64 size, lk_u64 *kit_size);

lk_u8 *test_make_kit(const lk_u8 *payload, lk_u64 size, lk_u64 *kit_size)
{
	uLongf zn = compressBound(size);
	lk_u8 *kit = calloc(1, 64 + zn);
	struct lk_kit_header h;

	compress2(kit + 64, &zn, payload, size, 9);
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, LK_KIT_MAGIC, 8);
	h.version = LK_KIT_VERSION;
	h.header_size = 64;
	h.payload_zsize = zn;
	h.payload_size = size;
	lk_sha256(kit + 64, zn, h.payload_hash);
	memcpy(kit, &h, 64);
	*kit_size = 64 + zn;
	return kit;
}
