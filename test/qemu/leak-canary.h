/*
 * Canaries of the leak-test builds (efi/leaktest.c, stand/leaktest.c) and
 * of test/qemu/leak-scan.c, which looks for them in a RAM dump taken after
 * the handoff. A tag is 16 bytes: an 8-byte magic, a kind byte, 3 zero
 * bytes and a little-endian serial number. The magic is computed at run
 * time from a seed read through a volatile, so no stage's code holds it
 * as an immediate: only tags written into memory can match.
 */
#ifndef LEAK_CANARY_H
#define LEAK_CANARY_H

#define LEAK_TAG_SIZE 16
#define LEAK_KIND_ALLOC 'A'  /* tail of every allocation, pool or pages */
#define LEAK_KIND_STACK 'S'  /* the stage's unused stack at entry */
#define LEAK_KIND_STATIC 'D' /* the stage's fixed buffers */
#define LEAK_SEED 0x6c65616b74657374ull /* "leaktest" */

static inline unsigned long long leak_magic(void)
{
	volatile unsigned long long seed = LEAK_SEED;

	return (seed * 0x9e3779b97f4a7c15ull) ^ 0xc3a5c85c97cb3127ull;
}

/* Writes one tag at p (any alignment). */
static inline void leak_tag(void *p, unsigned char kind, unsigned int serial)
{
	unsigned long long m = leak_magic();
	unsigned char *b = p;
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (unsigned char)(m >> (8 * i));
	b[8] = kind;
	b[9] = b[10] = b[11] = 0;
	for (i = 0; i < 4; i++)
		b[12 + i] = (unsigned char)(serial >> (8 * i));
}

/* Fills [p, p + len) with whole tags (the tail stays as it was). */
static inline void leak_fill(void *p, unsigned long len, unsigned char kind)
{
	unsigned char *b = p;
	unsigned long off;

	for (off = 0; off + LEAK_TAG_SIZE <= len; off += LEAK_TAG_SIZE)
		leak_tag(b + off, kind, (unsigned int)(off / LEAK_TAG_SIZE));
}
#endif
