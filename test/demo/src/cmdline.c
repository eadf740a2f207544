/* Kernel command line from tag 1 (empty when absent or malformed). */
#include "demo.h"

DEMO_OBJECT(cmdline)
DEMO_IDENT(cmdline)

const char *cmdline_get(void)
{
	const struct mb2_tag *t = mbinfo_find(1, NULL);
	const char *s;

	if (!t || t->size <= 8)
		return "";
	s = (const char *)(t + 1);
	return s[t->size - 9] == '\0' ? s : "";
}
