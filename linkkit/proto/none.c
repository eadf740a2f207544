/*
 * `protocol none`: a plain ELF entry with no boot information. The
 * kernel is entered like a Multiboot2 one (32-bit protected mode, paging
 * off, flat segments) with EAX = EBX = 0 and no stack, so a kernel that
 * checks for the Multiboot2 magic sees that it has none.
 */
#include "proto.h"
#include "../linkkit.h"

static int lk_none_build(const struct lk_host *h, const struct lk_handover *ho,
			 void *buf, lk_u32 cap, struct lk_entry *out)
{
	(void)h;
	(void)buf;
	(void)cap;
	out->entry = (lk_u32)ho->k->entry;
	out->magic = 0;
	out->info = 0;
	out->esp = 0;
	return 0;
}

const struct lk_proto lk_proto_none = {
	.name = "none",
	.id = LK_PROTO_NONE,
	.build = lk_none_build,
};
