/* A tiny test-only payload builder and host for the link tests. */
#ifndef PB_H
#define PB_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../linkkit/link_internal.h"

#ifndef PB_MAX
#define PB_MAX 256
#endif
#ifndef PB_DATA
#define PB_DATA 65536
#endif
#ifndef PB_STR
#define PB_STR 8192
#endif

/* A relocation as a test states it; pb_build encodes the kit's columns
 * and puts the addend in the field (or the addends table). */
struct pb_reloc {
	lk_u32 chunk, info;
	lk_u64 off;
	lk_i64 addend;
};

struct pb {
	struct lk_payload_header hdr;
	struct lk_object obj[PB_MAX];
	struct lk_chunk chunk[PB_MAX];
	struct lk_slot slot[PB_MAX];
	struct lk_outsec outsec[PB_MAX];
	struct lk_phdr phdr[40];
	struct lk_symbol sym[PB_MAX];
	struct pb_reloc rel[PB_MAX];
	struct lk_op op[PB_MAX];
	struct lk_merge_group mg[PB_MAX];
	struct lk_merge_class mc[PB_MAX];
	lk_u32 mref[PB_MAX];
	struct lk_comdat comdat[16];
	char str[PB_STR];
	lk_u8 data[PB_DATA];
	lk_u32 nobj, nchunk, nslot, nout, nphdr, nsym, nrel, nop, nmg, nmc,
		nmref, nstr, ndata, ncomdat;
};

struct pb *pb_new(void);
lk_u32 pb_str(struct pb *b, const char *s);
lk_u32 pb_obj(struct pb *b, const char *name, lk_u32 pin, lk_u32 flags);
lk_u32 pb_outsec(struct pb *b, const char *name, lk_u32 type, lk_u64 flags,
		 lk_u64 align);
lk_u32 pb_slot(struct pb *b, lk_u32 outsec, lk_u32 flags);
lk_u32 pb_chunk(struct pb *b, lk_u32 obj, const char *name, lk_u64 size,
		lk_u64 align, lk_u32 flags, const void *bytes);
lk_u32 pb_comdat(struct pb *b, const char *signature);
lk_u32 pb_sym(struct pb *b, const char *name, lk_u8 kind, lk_u32 ref,
	      lk_u64 value);
void pb_reloc(struct pb *b, lk_u32 chunk, lk_u64 off, lk_u32 type,
	      lk_u32 sym, lk_i64 addend);
void pb_op(struct pb *b, lk_u16 code, lk_u16 flags, lk_u32 arg, lk_u64 imm);
lk_u8 *pb_build(struct pb *b, lk_u64 *size);

/* Host: logs collected for the checks. */
extern struct lk_host th;
extern char tlog[64][512];
extern int tlog_n, tlog_total, unwiped_frees;
void tlog_reset(void);
int tlog_has(const char *needle);

/* Result lines. */
extern int failures;
#define CHECK(name, cond, ...)                                            \
	do {                                                              \
		if (cond)                                                 \
			printf("ok %s\n", name);                          \
		else {                                                    \
			printf("not ok %s: ", name);                      \
			printf(__VA_ARGS__);                              \
			printf("\n");                                     \
			failures++;                                       \
		}                                                         \
	} while (0)

#endif
