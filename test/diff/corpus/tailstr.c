#include "corpus.h"

/* Tail merging in an aligned string section (.rodata.str1.8 or .str1.32
 * under gcc): the last string is a tail of both others, but only of the
 * second at an aligned offset (a 32-byte prefix; the first's is 3 bytes).
 * ld.bfd sorts such a group by length modulo the alignment before it
 * looks for tails (binutils' strrevcmp_align), so the tail lands in the
 * second string; in plain reverse order the first would be its neighbour
 * and it would stay a string of its own. */
const char *tail_message(int i)
{
	if (i == 1)
		return "P1 common tail shared by all three strings here: %d\n";
	if (i == 2)
		return "a prefix of exactly 32 bytes ..xcommon tail shared by all three strings here: %d\n";
	return "common tail shared by all three strings here: %d\n";
}
