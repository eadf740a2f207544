/*
 * Multiboot2 boot information: validated once, then walked by type.
 * The loader is trusted to be ours, but a broken info must give a FAIL
 * line, not a fault, so every tag is bounds-checked against total_size.
 */
#include "demo.h"

#define MB2_BOOT_MAGIC 0x36d76289u
#define MB2_INFO_MAX   (1u << 20)

DEMO_OBJECT(mbinfo)
DEMO_IDENT(mbinfo)

static const u8 *mbinfo_base;
static u32 mbinfo_total;
static u32 mbinfo_pa;
static char mbinfo_why[96];

const char *mbinfo_problem(void)
{
	return mbinfo_why;
}

u32 mbinfo_phys(void)
{
	return mbinfo_pa;
}

u32 mbinfo_size(void)
{
	return mbinfo_total;
}

/* Walks the tags once: each within bounds, an end tag last. */
static int mbinfo_walk(void)
{
	u32 off = 8;

	while (off + 8 <= mbinfo_total) {
		const struct mb2_tag *t = (const void *)(mbinfo_base + off);

		if (t->size < 8 || t->size > mbinfo_total - off) {
			ksnprintf(mbinfo_why, sizeof(mbinfo_why),
				  "tag %u at offset %u has bad size %u",
				  t->type, off, t->size);
			return -1;
		}
		if (t->type == 0)
			return 0;
		off += (t->size + 7) & ~7u;
	}
	ksnprintf(mbinfo_why, sizeof(mbinfo_why), "no end tag");
	return -1;
}

int mbinfo_init(u32 magic, u32 info_phys)
{
	if (magic != MB2_BOOT_MAGIC) {
		ksnprintf(mbinfo_why, sizeof(mbinfo_why),
			  "bad magic 0x%x, info 0x%x (no Multiboot2 info)",
			  magic, info_phys);
		return -1;
	}
	if (info_phys == 0 || (info_phys & 7)) {
		ksnprintf(mbinfo_why, sizeof(mbinfo_why),
			  "bad info address 0x%x", info_phys);
		return -1;
	}
	mbinfo_base = phys_to_ptr(info_phys);
	mbinfo_total = *(const u32 *)mbinfo_base;
	/* Only the first 4 GiB are mapped: the whole info must lie there. */
	if (mbinfo_total < 16 || mbinfo_total > MB2_INFO_MAX ||
	    (u64)info_phys + mbinfo_total > (4UL << 30)) {
		ksnprintf(mbinfo_why, sizeof(mbinfo_why),
			  "bad info total_size %u", mbinfo_total);
		return -1;
	}
	mbinfo_pa = info_phys;
	return mbinfo_walk();
}

/* The next tag of `type` after `after` (NULL: from the start). */
const struct mb2_tag *mbinfo_find(u32 type, const struct mb2_tag *after)
{
	u32 off = 8;

	if (!mbinfo_base)
		return NULL;
	if (after) {
		off = (u32)((const u8 *)after - mbinfo_base);
		off += (after->size + 7) & ~7u;
	}
	while (off + 8 <= mbinfo_total) {
		const struct mb2_tag *t = (const void *)(mbinfo_base + off);

		if (t->type == 0)
			return NULL;
		if (t->type == type)
			return t;
		off += (t->size + 7) & ~7u;
	}
	return NULL;
}

static int mbinfo_check(char *detail, size_t cap)
{
	/* mbinfo_init already walked the tags; check the basics the other
	 * checks rely on are present. */
	static const u32 want[] = {2, 6};
	u32 i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!mbinfo_find(want[i], NULL)) {
			ksnprintf(detail, cap, "tag %u missing", want[i]);
			return -1;
		}
	return 0;
}
DEMO_CHECK(CK_MBINFO, "mbinfo", mbinfo_check);
