/* libFuzzer target: RELINK.CFG parsing; checks the strings it produces
 * stay NUL-terminated inside their fields. */
#include "fz_host.h"
#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lk_config c;
	uint8_t *buf = malloc(size + 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size); /* exact-size copy: no NUL to lean on */
	lk_config_defaults(&c);
	lk_config_parse(&fz_host, "\\EFI\\BOOT\\RELINK.CFG", buf, size, &c);
	if (strnlen(c.kit, sizeof(c.kit)) == sizeof(c.kit) ||
	    strnlen(c.fallback, sizeof(c.fallback)) == sizeof(c.fallback) ||
	    strnlen(c.seed_file, sizeof(c.seed_file)) == sizeof(c.seed_file) ||
	    strnlen(c.cmdline, sizeof(c.cmdline)) == sizeof(c.cmdline) ||
	    c.debug_seed_len > LK_CFG_SEED_MAX || c.verbose > 2)
		abort();
	lk_config_wipe(&c);
	free(buf);
	return 0;
}
