#include "corpus.h"

/* Strings of 32 bytes or more: gcc puts them in .rodata.str1.8 or
 * .rodata.str1.32 (aligned SHF_MERGE sections, kept as plain chunks by
 * the kit: no other object has the same ones). A double constant goes to
 * .rodata.cst8. */
const char *long_message(int i)
{
	if (i == 1)
		return "this string is long enough to be aligned by gcc: one";
	if (i == 2)
		return "another string that is long enough to get aligned, two";
	return "short";
}

double scale_value(double x)
{
	return x * 1.25;
}
