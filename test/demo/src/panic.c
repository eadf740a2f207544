/* Fatal errors: a reason line, the FAIL line, then the failure exit code. */
#include "demo.h"

DEMO_OBJECT(panic)
DEMO_IDENT(panic)

void panic(const char *why)
{
	kprintf("demo: panic %s\n", why);
	kprintf("demo: FAIL\n");
	exitdev_exit(0);
}
