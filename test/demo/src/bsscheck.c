/*
 * .bss must be zero at entry: a large never-written probe array, plus the
 * linker-script symbols that bound the section.
 */
#include "demo.h"

DEMO_OBJECT(bsscheck)
DEMO_IDENT(bsscheck)

static volatile u64 bsscheck_probe[1024];
static u64 bsscheck_scalar;

static int bsscheck_check(char *detail, size_t cap)
{
	u32 i;

	if (!((uptr)etext <= (uptr)edata && (uptr)edata <= (uptr)__bss_start &&
	      (uptr)__bss_start < (uptr)end)) {
		ksnprintf(detail, cap,
			  "etext/edata/__bss_start/end out of order");
		return -1;
	}
	if ((uptr)bsscheck_probe < (uptr)__bss_start ||
	    (uptr)(bsscheck_probe + 1024) > (uptr)end) {
		ksnprintf(detail, cap, "probe outside [__bss_start, end)");
		return -1;
	}
	for (i = 0; i < 1024; i++)
		if (bsscheck_probe[i]) {
			ksnprintf(detail, cap, "probe word %u not zero", i);
			return -1;
		}
	if (bsscheck_scalar) {
		ksnprintf(detail, cap, "scalar not zero");
		return -1;
	}
	return 0;
}
DEMO_CHECK(CK_BSS, "bss", bsscheck_check);
