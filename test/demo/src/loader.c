/* Which loader booted us, from the Multiboot2 loader-name tag (2). */
#include "demo.h"

DEMO_OBJECT(loader)
DEMO_IDENT(loader)

static const char *loader_name(void)
{
	const struct mb2_tag *t = mbinfo_find(2, NULL);
	const char *s;

	if (!t || t->size <= 8)
		return NULL;
	s = (const char *)(t + 1);
	/* The string must end inside the tag. */
	if (s[t->size - 9] != '\0')
		return NULL;
	return s;
}

const char *loader_kind(void)
{
	const char *s = loader_name();

	if (!s)
		return "unknown";
	if (!strcmp(s, "relinkboot relinked"))
		return "relinked";
	if (!strcmp(s, "relinkboot fallback"))
		return "fallback";
	return "unknown";
}
