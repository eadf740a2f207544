/*
 * The byte strings the RAM scan looks for. They are stored XOR-encoded and
 * decoded at boot into .bss (inside the image, which the scan skips), so
 * neither the objects, the kit, nor the kernel image contain them.
 */
#include "demo.h"
#include "kit_format.h" /* LK_PAYLOAD_VERSION: the needle follows the format */

DEMO_OBJECT(needles)
DEMO_IDENT(needles)

#define NEEDLE_KEY 0xa5
#define E(c)	   ((u8)((c) ^ NEEDLE_KEY))

/* "LINKKIT\x1a" (kit_format.h LK_KIT_MAGIC) */
static const u8 needles_kit[] = {E('L'), E('I'), E('N'), E('K'),
				 E('K'), E('I'), E('T'), E(0x1a)};
/* LK_PAYLOAD_MAGIC then LK_PAYLOAD_VERSION, little-endian u32s */
#define V(n) E((LK_PAYLOAD_VERSION >> (n)) & 0xff)
static const u8 needles_payload[] = {E('L'), E('K'), E('P'), E('L'),
				     V(0),   V(8),   V(16),  V(24)};
#undef V
/* the canary string the kit carries */
static const u8 needles_canary[] = {
	E('r'), E('e'), E('l'), E('i'), E('n'), E('k'), E('b'),
	E('o'), E('o'), E('t'), E('-'), E('k'), E('i'), E('t'),
	E('-'), E('c'), E('a'), E('n'), E('a'), E('r'), E('y'),
};

static u8 needles_buf[sizeof(needles_kit) + sizeof(needles_payload) +
		      sizeof(needles_canary)];
static struct needle needles_list[3];

static const u8 *needles_decode(u8 *dst, const u8 *src, u32 n)
{
	u8 key = NEEDLE_KEY;
	u32 i;

	/* Hide the key from the optimiser, or it would fold the decoded
	 * bytes back into immediates in .text. */
	__asm__("" : "+r"(key));
	for (i = 0; i < n; i++)
		dst[i] = src[i] ^ key;
	return dst;
}

static void needles_init(void)
{
	u8 *p = needles_buf;

	needles_list[0] = (struct needle){
		"kit-magic",
		needles_decode(p, needles_kit, sizeof(needles_kit)),
		sizeof(needles_kit)};
	p += sizeof(needles_kit);
	needles_list[1] = (struct needle){
		"payload-magic",
		needles_decode(p, needles_payload, sizeof(needles_payload)),
		sizeof(needles_payload)};
	p += sizeof(needles_payload);
	needles_list[2] = (struct needle){
		"kit-canary",
		needles_decode(p, needles_canary, sizeof(needles_canary)),
		sizeof(needles_canary)};
}
DEMO_INIT(needles_init);

const struct needle *needles_get(u32 *count)
{
	*count = needles_list[0].bytes ? 3 : 0;
	return needles_list;
}
