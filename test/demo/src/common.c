/*
 * Tentative definitions, compiled with -fcommon: they become COMMON
 * symbols the kit builder must allocate in .bss.
 */
#include "demo.h"

DEMO_OBJECT(common)
DEMO_IDENT(common)

int common_counter;
unsigned char common_buf[512];

static int common_check(char *detail, size_t cap)
{
	u32 i;

	for (i = 0; i < sizeof(common_buf); i++)
		if (common_buf[i]) {
			ksnprintf(detail, cap, "common_buf[%u] not zero", i);
			return -1;
		}
	if ((uptr)common_buf < (uptr)__bss_start ||
	    (uptr)(common_buf + 512) > (uptr)end ||
	    (uptr)&common_counter < (uptr)__bss_start) {
		ksnprintf(detail, cap, "COMMON symbols outside .bss");
		return -1;
	}
	common_counter++;
	return 0;
}
DEMO_CHECK(CK_COMMON, "common", common_check);
