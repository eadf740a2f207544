/*
 * The i386 probe: test/run-i386 runs it once per build, natively and, if
 * that fails, under qemu-i386, to find how this host runs the 32-bit test
 * programs. It is linked like them (dynamic, -m32), so it also needs the
 * same loader and libc. It answers with the argument it was given, mixed so
 * that only a program that really ran can answer, and its data model.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	unsigned long x;

	if (argc != 2)
		return 2;
	x = strtoul(argv[1], NULL, 10);
	/* 32-bit unsigned long: the product wraps at 2^32 here only. */
	x = x * 2654435761ul + 1;
#if defined(__i386__)
	printf("i386-probe %lu %u %u\n", x, (unsigned)sizeof(void *),
	       (unsigned)sizeof(long));
	return 0;
#else
	printf("not i386\n");
	return 3;
#endif
}
