/* Compresses a payload and wraps it in the kit header (kit_format.h). */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../linkkit/linkkit.h"
#include "kb.h"

int kb_wrap_kit(const uint8_t *payload, size_t size, uint8_t **kit, size_t *kit_size)
{
	uLongf zlen = compressBound(size);
	struct lk_kit_header h;
	uint8_t *out = kb_xcalloc(sizeof(h) + zlen, 1);

	if (compress2(out + sizeof(h), &zlen, payload, size, 9) != Z_OK) {
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
