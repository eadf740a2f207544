/* test_make_kit without zlib (for the i386 build of the tests): the
 * payload goes into stored DEFLATE blocks inside a zlib wrapper. */
#include "pb.h"

lk_u8 *test_make_kit(const lk_u8 *payload, lk_u64 size, lk_u64 *kit_size);

lk_u8 *test_make_kit(const lk_u8 *payload, lk_u64 size, lk_u64 *kit_size)
{
	lk_u64 nblk = size / 65535 + 1, zn = 2 + nblk * 5 + size + 4, pos = 66;
	lk_u8 *kit = calloc(1, 64 + zn);
	struct lk_kit_header h;
	lk_u32 a = 1, b = 0;

	kit[64] = 0x78, kit[65] = 0x01;
	for (lk_u64 off = 0; off < size || off == 0; off += 65535) {
		lk_u32 n = size - off > 65535 ? 65535 : (lk_u32)(size - off);
		kit[pos++] = off + n >= size ? 1 : 0;
		kit[pos++] = n & 0xff, kit[pos++] = n >> 8;
		kit[pos++] = ~n & 0xff, kit[pos++] = (~n >> 8) & 0xff;
		memcpy(kit + pos, payload + off, n);
		pos += n;
		if (off + n >= size)
			break;
	}
	for (lk_u64 i = 0; i < size; i++)
		a = (a + payload[i]) % 65521, b = (b + a) % 65521;
	kit[pos++] = b >> 8, kit[pos++] = b & 0xff;
	kit[pos++] = a >> 8, kit[pos++] = a & 0xff;
	zn = pos - 64;
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
