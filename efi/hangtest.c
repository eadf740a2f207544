/*
 * Hang-test stage (efi/test-uefi-boot.sh, never installed): the stage's
 * own watchdog arming, given 5 s instead of 5 minutes, and an inflate
 * that never returns. The firmware must reset the machine: the stage
 * left its watchdog armed.
 */
#include "efiboot.h"

static struct lk_boot_ops eb_hang_ops;

static int eb_hang_inflate(struct lk_boot *b, const struct lk_kit *kit,
			   const char *name, void *dst, lk_u64 size)
{
	(void)kit;
	(void)dst;
	(void)size;
	lk_boot_print(b, "hang test: %s: the inflate never returns", name);
	for (;;)
		__builtin_ia32_pause();
	return LK_ERR_INFLATE;
}

void eb_variant_init(struct eb_state *s)
{
	eb_hang_ops = *s->boot.ops;
	eb_hang_ops.inflate = eb_hang_inflate;
	s->boot.ops = &eb_hang_ops;
	s->watchdog_s = 5;
}
