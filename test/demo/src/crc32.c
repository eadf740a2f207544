/* CRC-32 (IEEE), table built at init into .bss. */
#include "demo.h"

DEMO_OBJECT(crc32)
DEMO_IDENT(crc32)

static u32 crc32_table[256];

static void crc32_init(void)
{
	u32 i, k, c;

	for (i = 0; i < 256; i++) {
		for (c = i, k = 0; k < 8; k++)
			c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc32_table[i] = c;
	}
}
DEMO_INIT(crc32_init);

u32 crc32_compute(const void *p, size_t n)
{
	const u8 *b = p;
	u32 c = ~0u;

	while (n--)
		c = crc32_table[(c ^ *b++) & 0xff] ^ (c >> 8);
	return ~c;
}

/* Bitwise reference, to check the table-driven version. */
static u32 crc32_slow(const u8 *b, size_t n)
{
	u32 c = ~0u, k;

	while (n--)
		for (c ^= *b++, k = 0; k < 8; k++)
			c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
	return ~c;
}

static int crc32_check(char *detail, size_t cap)
{
	/* The standard check value of CRC-32 for "123456789". */
	static const char v[] = "123456789";
	u32 got = crc32_compute(v, 9);

	if (got != 0xcbf43926u ||
	    crc32_compute(__kernel_start, 4096) !=
		    crc32_slow((const u8 *)__kernel_start, 4096)) {
		ksnprintf(detail, cap, "crc32(\"123456789\")=%x", got);
		return -1;
	}
	return 0;
}
DEMO_CHECK(CK_CRC32, "crc32", crc32_check);
