/* The protocol table: adding a protocol is one file plus one row here. */
#include "proto.h"
#include "../linkkit.h"

static const struct lk_proto *const lk_protos[] = {
	&lk_proto_none,
	&lk_proto_multiboot2,
	&lk_proto_openbsd,
	&lk_proto_linux,
};

#define LK_NPROTOS (sizeof(lk_protos) / sizeof(lk_protos[0]))

const struct lk_proto *lk_proto_by_id(lk_u32 id)
{
	lk_u32 i;

	for (i = 0; i < LK_NPROTOS; i++)
		if (lk_protos[i]->id == id)
			return lk_protos[i];
	return LK_NULL;
}

const struct lk_proto *lk_proto_by_name(const char *name, lk_size len)
{
	lk_u32 i;

	for (i = 0; i < LK_NPROTOS; i++) {
		const char *n = lk_protos[i]->name;
		if (lk_strlen(n) == len && lk_memcmp(n, name, len) == 0)
			return lk_protos[i];
	}
	return LK_NULL;
}

void lk_proto_list(char *buf, lk_size cap)
{
	lk_size len = 0;
	lk_u32 i;

	if (!cap)
		return;
	buf[0] = 0;
	for (i = 0; i < LK_NPROTOS; i++) {
		const char *sep = i == 0 ? "" : i + 1 == LK_NPROTOS ? " or " : ", ";
		len += (lk_size)lk_snprintf(buf + len, cap - len, "%s%s", sep,
					    lk_protos[i]->name);
		if (len >= cap)
			return;
	}
}

const char *lk_proto_name(lk_u32 id)
{
	const struct lk_proto *p = lk_proto_by_id(id);

	return p ? p->name : "unknown";
}

lk_u64 lk_proto_link_end(const struct lk_proto *p, const struct lk_link *L)
{
	struct lk_image_info info;

	if (p->link_end)
		return p->link_end(L);
	lk_link_info(L, &info);
	return info.load_hi;
}

int lk_proto_link_place(const struct lk_proto *p, const struct lk_link *L,
			void *image)
{
	return p->link_place ? p->link_place(L, image) : 0;
}

lk_u64 lk_proto_elf_end(const struct lk_proto *p, const void *elf,
			lk_u64 size, const struct lk_elf_image *img)
{
	return p->elf_end ? p->elf_end(elf, size, img) : img->load_hi;
}

int lk_proto_elf_place(const struct lk_proto *p, const struct lk_host *h,
		       const void *elf, lk_u64 size, const char *name,
		       const struct lk_elf_image *img, void *image)
{
	return p->elf_place ? p->elf_place(h, elf, size, name, img, image) : 0;
}
