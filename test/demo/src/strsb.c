/* The other half of the string-merge check (see strsa.c). */
#include "demo.h"

DEMO_OBJECT(strsb)
DEMO_IDENT(strsb)

const char *strsb_text(void)
{
	return "merge me";
}
