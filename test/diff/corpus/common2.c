/* The larger COMMON definition wins (ld.bfd keeps the largest size). */
#ifndef DIFF_PLAIN /* the -fno-common variant keeps common1.c's */
char shared_buf[64];
long shared_count; /* larger than common1.c: owned here whatever the order */
#endif
short common_two;
