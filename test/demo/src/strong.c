/* Overrides the weak default in weak.c. */
#include "demo.h"

DEMO_OBJECT(strong)
DEMO_IDENT(strong)

const char *demo_weak_name(void)
{
	return "strong override";
}
