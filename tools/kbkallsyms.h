/*
 * Host half of the boot-time kallsyms (linkkit/linux_kallsyms.h has the
 * boot half and the blob format): reads a symbol list as scripts/mksysmap
 * writes it ("%llx %c %s" lines, nm -n order) and does what Linux 6.1's
 * scripts/kallsyms --all-symbols --absolute-percpu --base-relative does
 * that does not depend on the layout: the same filters, the percpu 'A'
 * letters, the token table and every symbol's compressed name. Hosted C.
 */
#ifndef KB_KALLSYMS_H
#define KB_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

/* One symbol kallsyms keeps, in blob order. */
struct kb_ksym {
	const char *name;
	uint64_t addr; /* the value in the map (the host link's layout) */
	uint32_t line; /* 0-based line of the map it came from */
	char type;     /* the map's letter ('A' in the blob if percpu) */
};

struct kb_ksyms {
	uint8_t *blob;
	size_t blob_len;
	uint32_t n;
	struct kb_ksym *syms; /* n, in blob order: index the boot's addresses */
	uint32_t long_names; /* names of 512+ bytes dropped, as kallsyms does */
	char *pool;	     /* the names' storage */
	char err[256];	     /* why kb_ksyms_prep failed */
};

/* Returns 0, or -1 with k->err set ("map line N: ..." where one line is
 * at fault). k is zeroed first; kb_ksyms_free releases it either way. */
int kb_ksyms_prep(const char *map, size_t len, struct kb_ksyms *k);
void kb_ksyms_free(struct kb_ksyms *k);

#endif
