/* Weak defaults (named outside the object-prefix rule, since the override
 * lives in another object): demo_weak_name is overridden by strong.c,
 * demo_weak_unoverridden is not. A linker that picks the wrong definition fails
 * the check. */
#include "demo.h"

DEMO_OBJECT(weak)
DEMO_IDENT(weak)

__attribute__((weak)) const char *demo_weak_name(void)
{
	return "weak default";
}

__attribute__((weak)) const char *demo_weak_unoverridden(void)
{
	return "weak default";
}

static int weak_check(char *detail, size_t cap)
{
	const char *a = demo_weak_name(), *b = demo_weak_unoverridden();

	if (strcmp(a, "strong override") || strcmp(b, "weak default") ||
	    symtab_in_object("weak", (uptr)demo_weak_name)) {
		ksnprintf(detail, cap,
			  "demo_weak_name=\"%s\" demo_weak_unoverridden=\"%s\"",
			  a, b);
		return -1;
	}
	return 0;
}
DEMO_CHECK(CK_WEAK, "weak", weak_check);
