/*
 * Link-only stand-in for sects.c (test-lld.sh): without it .kutext,
 * .cptext, .kutext.page and .kudata end up empty, so the comparison with
 * ld.lld covers lld's rule for empty output sections (`linker lld`).
 * Never booted; if it were, the kernel would fail.
 */
#include "obsd.h"

int check_sections(void)
{
	return fail("sections", "link-only variant without sections", 0);
}
