#include "corpus.h"

/* Overridden by weak2.c's strong definition. */
__attribute__((weak)) long weak_value(void) { return 1; }
extern long never_defined(void) __attribute__((weak));

long maybe_missing_value(void)
{
	return never_defined ? never_defined() : 7;
}
