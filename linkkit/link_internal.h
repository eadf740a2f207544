/*
 * Private state of the boot-side link, shared by link_*.c and reloc_x86_64.c.
 * Tables point into the caller's payload (validated by lk_link_open); every
 * array the link allocates is recorded so lk_link_close can wipe it.
 */
#ifndef LK_LINK_INTERNAL_H
#define LK_LINK_INTERNAL_H

#include "linkkit.h"
#include "elf64.h"
#include "linux_kallsyms.h"

/* Largest image, section, or payload the boot side accepts: far above any
 * kernel, low enough that no size arithmetic below can overflow. */
#define LK_MAX_SIZE 0x40000000ull
#define LK_NONE 0xffffffffu
#define LK_MAX_ALLOCS 32
#define LK_RELOC_ERR_CAP 50

enum lk_os_state { LK_OS_UNSEEN = 0, LK_OS_OPEN = 1, LK_OS_DONE = 2 };

struct lk_os {
	lk_u64 vma, lma, size, align;
	lk_u32 state;
	lk_u32 shndx; /* index in the ELF view, 0 when not emitted */
};

/* Something placed inside an output section, in placement order. */
enum lk_item_kind { LK_ITEM_CHUNK = 0, LK_ITEM_DATA = 1 };
struct lk_item {
	lk_u64 vma;
	lk_u64 value; /* DATA: the value */
	lk_u32 outsec;
	lk_u16 kind;
	lk_u16 width;  /* DATA: bytes */
	lk_u32 chunk;  /* CHUNK: index */
	lk_u32 pad;
};

/* A merge group laid out as ld.lld does (link_merge.c). When every class
 * size is a multiple of the alignment (`fixed`), no piece is padded, so the
 * shard sizes, their bases and the group size do not depend on the order
 * and are computed once at open; otherwise the bases are summed up after
 * each layout. */
struct lk_lld_group {
	lk_u64 base[LK_MERGE_SHARDS]; /* shard offsets in the group */
	lk_u64 cur[LK_MERGE_SHARDS];  /* layout: next free offset per shard */
	lk_u64 align, size;
	lk_u32 fixed, pad;
};

struct lk_alloc_rec {
	void *p;
	lk_size n;
};

struct lk_link {
	const struct lk_host *h;
	const char *name;
	const lk_u8 *base;
	lk_u64 size;
	const struct lk_payload_header *hdr;

	const struct lk_object *obj;
	const struct lk_chunk *chunk;
	const struct lk_slot *slot;
	const struct lk_outsec *outsec;
	const struct lk_phdr *phdr;
	const struct lk_symbol *sym;
	const lk_u32 *rel_delta, *rel_info; /* the relocs table's columns */
	const struct lk_reloc_addend *radd;
	const struct lk_op *plan;
	const struct lk_merge_group *mgroup;
	const struct lk_merge_class *mclass;
	const lk_u32 *mref;
	const char *str;
	const lk_u8 *data;
	const struct lk_comdat *comdat;
	const lk_u8 *ksyms; /* LK_PAYLOAD_F_LINUX_KALLSYMS, else LK_NULL */
	lk_u32 nobj, nchunk, nslot, nout, nphdr, nsym, nrel, nop, nmg, nmc,
		nmref, nstr, ndata, ncomdat, nksyms, nradd;
	/* The ksyms table, checked by lk_link_open. */
	struct lk_ksym_blob kblob;
	const lk_u8 *kref; /* n little-endian u32 symbol indices */
	lk_u32 kchunk;
	int canonical; /* lk_link_set_canonical: no shuffle, no gaps */
	/* LK_E_SHIFT: its step and step count (0: no such op), whether
	 * lk_link_set_no_shift asked for none, this layout's shift. */
	lk_u64 shift_step, shift;
	lk_u32 shift_steps;
	int no_shift;

	/* Filled by lk_link_open. */
	lk_u32 *class_group; /* merge class -> group */
	/* LK_PAYLOAD_F_LLD_MERGE: per group (NULL otherwise), and which
	 * slots hold merge chunks (the layout walks only those). */
	struct lk_lld_group *lld;
	lk_u8 *slot_merge;
	lk_u8 *os_bare;      /* outsec whose body only places input sections */
	lk_u32 *tmp;         /* scratch for sorting, max(nobj, nchunk, nout) */

	/* Filled by lk_link_layout. */
	int laid_out;
	lk_u32 *order;       /* objects in placement order */
	lk_u32 *obj_pos;     /* object -> position in order */
	lk_u32 *slot_order;  /* per slot, its chunks in placement order */
	lk_u32 *pos_start;   /* nobj + 1: counting sort by object position */
	lk_u32 *slot_fill;   /* per slot: chunks distributed so far */
	lk_u32 *comdat_win;  /* COMDAT group -> object whose copy is kept */
	lk_u8 *chunk_dead;   /* chunk of a COMDAT copy that is not kept */
	lk_u64 *chunk_vma;
	lk_u64 *chunk_size;  /* effective: gap choice, merged group size */
	lk_u32 *group_owner; /* merge group -> chunk carrying the contents */
	lk_u64 *class_off;   /* merge class -> offset in the owner chunk */
	lk_u32 *class_owner; /* merge class -> chunk holding it (its first) */
	lk_u64 *sym_val;
	lk_u32 *sym_sec;     /* PLAN symbols: outsec assigned in, or LK_NONE */
	lk_u8 *sym_known;
	lk_u8 *slot_done;
	lk_u64 *group_run;   /* merge group -> bytes assigned so far */
	lk_u32 *os_seq;      /* outsecs in the order the plan begins them */
	lk_u32 nseq;
	lk_u32 *os_tmp;      /* 2 * nout: sorting output sections */
	struct lk_os *os;
	struct lk_item *item;
	lk_u32 nitem;
	lk_u64 load_lo, load_hi, entry_vma, entry_lma;
	lk_u32 nemit;
	/* ELF header + program headers loaded by a FILEHDR/PHDRS segment
	 * (hdr_phdr, LK_NONE without), as ld.lld places them. */
	lk_u32 hdr_phdr;
	lk_u64 hdr_vma, hdr_lma, hdr_size;

	struct lk_alloc_rec allocs[LK_MAX_ALLOCS];
	lk_u32 nallocs;
	int nomem; /* an allocation failed: report LK_ERR_NOMEM */
};

/* link_open.c */
void *lk_link_alloc(struct lk_link *L, lk_u64 count, lk_u64 elsize);
const char *lk_str(const struct lk_link *L, lk_u32 off);
const char *lk_chunk_obj_name(const struct lk_link *L, lk_u32 chunk);
/* Symbol s for a message: its name, else its kallsyms name, else where
 * it is (sections, merged pieces). buf: LK_SYM_LABEL bytes. */
#define LK_SYM_LABEL (LK_KSYM_NAME_MAX + 64)
const char *lk_sym_label(const struct lk_link *L, lk_u32 s, char *buf);
int lk_is_pow2(lk_u64 v);
/* kit_prov.c, for lk_kit_open: checks the LK_KIT_F_PROV record at the end
 * of the hashed bytes, sets kit->prov and takes it off kit->zsize; the
 * reason when it is malformed. */
const char *lk_kit_prov_split(struct lk_kit *kit);

/* link_layout.c */
lk_u64 lk_align_up(lk_u64 v, lk_u64 a);
void lk_stable_sort(lk_u32 *v, lk_u32 *tmp, lk_u32 n,
		    int (*less)(const void *ctx, lk_u32 a, lk_u32 b),
		    const void *ctx);
lk_u64 lk_chunk_lma(const struct lk_link *L, lk_u32 chunk);
lk_u32 lk_sym_outsec(const struct lk_link *L, lk_u32 sym);
/* The winning candidate of an LK_SYM_ALT symbol, LK_NONE if none lives. */
lk_u32 lk_alt_pick(const struct lk_link *L, lk_u32 sym);

/* link_elf.c */
int lk_os_in_segment(const struct lk_link *L, lk_u32 os, lk_u32 phdr);
int lk_link_headers(struct lk_link *L);
void lk_write_headers(const struct lk_link *L, lk_u8 *img);
/* Bytes of the ELF view's .strtab and .shstrtab (obsd_syms.c). */
int lk_link_tail_sizes(const struct lk_link *L, lk_u64 *strtab,
			lk_u64 *shstrtab);

/* link_merge.c */
int lk_merge_check(struct lk_link *L);
lk_u64 lk_merge_place(struct lk_link *L, lk_u32 chunk, lk_u64 *align);
void lk_merge_lld_layout(struct lk_link *L);
void lk_merge_offsets(struct lk_link *L);
void lk_merge_write(const struct lk_link *L, lk_u32 chunk, lk_u8 *dst);

/* link_write.c: lk_link_write in parts, for the bench's per-phase times
 * (lk_link_write does both in one pass). */
#define LK_WRITE_CONTENTS 1
#define LK_WRITE_RELOCS 2
int lk_link_write_parts(struct lk_link *L, void *dst, struct lk_rng *rng,
			int parts);

/* linux_sort.c: scripts/sorttable's sorts on the written image (img at
 * load_lo), for LK_PAYLOAD_F_LINUX_SORT kits. */
int lk_linux_sort(const struct lk_link *L, lk_u8 *img);
/* The same in two steps, for the split write: the tables (which read
 * only their own sections' bytes, so they can be sorted once those are
 * written, while other processors still write the rest; *flag gets the
 * main_extable_sort_needed symbol), then the flag (in .data, written by
 * any part: after all of them). lk_linux_sort_sections: the tables'
 * output sections (.orc_unwind_ip, .orc_unwind, __ex_table; LK_NONE
 * where absent), and how many there are. */
int lk_linux_sort_tables(const struct lk_link *L, lk_u8 *img, lk_u32 *flag);
int lk_linux_sort_flag(const struct lk_link *L, lk_u8 *img, lk_u32 flag);
lk_u32 lk_linux_sort_sections(const struct lk_link *L, lk_u32 os[3]);

/* linux_kallsyms_link.c: the ksyms table (LK_PAYLOAD_F_LINUX_KALLSYMS),
 * checked at open, applied to the written image (img at load_lo). */
int lk_linux_kallsyms_open(struct lk_link *L);
int lk_linux_kallsyms(const struct lk_link *L, lk_u8 *img);
/* The same in two steps: the tables (no message), then its message. */
void lk_linux_kallsyms_run(const struct lk_link *L, lk_u8 *img,
			   struct lk_kallsyms_result *res);
int lk_linux_kallsyms_say(const struct lk_link *L,
			  const struct lk_kallsyms_result *res);
/* The kit symbol blob entry i stands for (after a successful open). */
lk_u32 lk_linux_ksym_ref(const struct lk_link *L, lk_u32 i);
/* Kit symbol s's name when the kit keeps it only in the kallsyms blob
 * (`create --linux` leaves listed symbols' names out of strtab); LK_NULL
 * when it is not listed. O(n), for messages. out: LK_KSYM_NAME_MAX bytes. */
const char *lk_linux_sym_name(const struct lk_link *L, lk_u32 s, char *out);

/* reloc_x86_64.c */
#define LK_RELOC_NTYPES (LK_R_X86_64_PC64 + 1)
extern const lk_u8 lk_reloc_widths[LK_RELOC_NTYPES];
/* Field bytes of a type the boot side applies; 0 for any other. */
static inline int lk_reloc_width(lk_u32 type)
{
	return type < LK_RELOC_NTYPES ? lk_reloc_widths[type] : 0;
}
const char *lk_reloc_name(lk_u32 type);
void lk_reloc_chunk_apply(const struct lk_link *L, lk_u32 chunk, lk_u8 *p,
			  lk_u32 *nerr);

#endif
