/* libFuzzer target: an inflated payload (tables, plan, relocations) as
 * lk_link_open/layout/write see it after the kit checks passed. The first
 * 4 bytes seed the layout; the rest is the payload. */
#include "fz_host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t seed = 0;

	if (size < 4)
		return 0;
	memcpy(&seed, data, 4);
	fz_link_payload(data + 4, size - 4, seed);
	return 0;
}
