/* Identical string literals in two objects (strsa, strsb) live in
 * .rodata.str1.1; merging must give both the same address. */
#include "demo.h"

DEMO_OBJECT(strsa)
DEMO_IDENT(strsa)

const char *strsa_text(void)
{
	return "merge me";
}

static int strsa_check(char *detail, size_t cap)
{
	const char *a = strsa_text(), *b = strsb_text();

	if (strcmp(a, b)) {
		ksnprintf(detail, cap, "contents differ");
		return -1;
	}
	if (a != b) {
		ksnprintf(detail, cap, "identical literals not merged");
		return -1;
	}
	return 0;
}
DEMO_CHECK(CK_STRMERGE, "strmerge", strsa_check);
