/*
 * On-disk link kit format: kit version 1, payload version 6.
 * Little-endian throughout.
 * docs/kit-format.md is the user-facing description; keep both in step.
 *
 *   [lk_kit_header][zlib stream of payload_zsize bytes][optional trailer]
 *
 * The payload (after inflate) starts with lk_payload_header, whose tables
 * point (by byte offset from the payload start) at arrays of fixed-size
 * records. Everything that does not depend on the per-boot layout was done
 * by `linkkit create` on the host: symbol resolution, COMMON allocation,
 * script pattern matching, relocation classification and GOT relaxation.
 * What depends on the object order is left to the boot side, as GNU ld
 * decides it by command-line order: which copy of a COMDAT group defined
 * in several objects is kept, and which of several weak definitions wins
 * (lk_comdat, lk_chunk.comdat, LK_SYM_ALT). The boot side places, picks
 * those, resolves values, relocates and fills, and it validates every
 * index, offset and size it reads.
 */
#ifndef LK_KIT_FORMAT_H
#define LK_KIT_FORMAT_H

#include "lk_types.h"

#define LK_KIT_MAGIC "LINKKIT\x1a" /* 8 bytes, no NUL */
#define LK_KIT_VERSION 1
#define LK_PAYLOAD_MAGIC 0x4c504b4cu /* "LKPL" */
#define LK_PAYLOAD_VERSION 6 /* 2: COMDAT groups and LK_SYM_ALT;
				3: lk_merge_class.shard, LK_PAYLOAD_F_LLD_MERGE;
				4: 16-byte lk_reloc;
				5: the ksyms table, LK_PAYLOAD_F_LINUX_KALLSYMS;
				6: relocations as two u32 columns, addends
				   in the data (the addends table) */
/* Interned in every payload strtab; scanned for by the demo kernel. */
#define LK_KIT_CANARY "relinkboot-kit-canary"

struct lk_kit_header {
	lk_u8 magic[8];
	lk_u16 version;     /* LK_KIT_VERSION */
	lk_u16 header_size; /* sizeof(struct lk_kit_header) == 64 */
	lk_u32 flags;       /* LK_KIT_F_* */
	lk_u64 payload_zsize; /* bytes of the zlib stream after the header
				 (and of the segment index, LK_KIT_F_SEGMENTS) */
	lk_u64 payload_size;  /* bytes once inflated */
	lk_u8 payload_hash[32]; /* of the payload_zsize bytes: SHA-256, or
				   BLAKE3 with LK_KIT_F_BLAKE3 */
};
_Static_assert(sizeof(struct lk_kit_header) == 64, "kit header size");

#define LK_KIT_F_SIGNED 0x1u /* a signature trailer follows the stream */
/*
 * LK_KIT_F_BLAKE3: payload_hash is BLAKE3 (32 bytes) instead of SHA-256.
 * `linkkit create` makes such kits: whole 1 KiB chunks hash in vector
 * lanes, in the BIOS stage too (AVX2 in its long mode, SSSE3 in its i386
 * code), which on a CPU without SHA-NI had
 * only the portable SHA-256 (Linux 6.1 defconfig kit, BIOS stage's i386
 * code: 46.6 ms, BLAKE3 on SSSE3 9.1 ms; docs/bench.md). Stages that
 * predate it refuse the flag ("unknown kit flags").
 */
#define LK_KIT_F_BLAKE3 0x8u
/*
 * LK_KIT_F_SEGMENTS: the zlib stream was cut into segments that inflate
 * independently (each compressed on its own; each but the last ends with an
 * empty stored block, as after zlib's full flush), so several
 * processors can inflate one each. It is still one valid zlib stream: a
 * stage may ignore the index and inflate it whole. The index follows the
 * stream inside the payload_zsize bytes (so the header's SHA-256, and a
 * signature over the header, cover it): `count` lk_kit_segment records,
 * for segments 1..count (segment 0 starts at stream byte 2, payload byte
 * 0), then an lk_kit_segtail. Offsets strictly increase; a segment's
 * decoding must end exactly where the next one starts (lk_inflate_part).
 */
#define LK_KIT_F_SEGMENTS 0x2u
#define LK_KIT_MAX_SEGMENTS 64 /* counting segment 0 */
struct lk_kit_segment {
	lk_u64 zoff; /* offset in the zlib stream of its first block */
	lk_u64 off;  /* offset in the payload of its first byte */
};
struct lk_kit_segtail {
	lk_u32 count;    /* lk_kit_segment records before this (segments - 1) */
	lk_u32 reserved; /* 0 */
};

/*
 * LK_KIT_F_PROV: what the kit was made from (`linkkit create --openbsd`),
 * so a stage can refuse a kit whose link directory has changed since
 * (syspatch). The record is the last thing inside the payload_zsize bytes
 * (after the stream and any segment index), so the header's SHA-256 and a
 * signature over the header cover it; no kit or payload version changes:
 * stages that predate it refuse the flag ("unknown kit flags").
 *   [count lk_kit_prov_entry][names: names_size bytes][lk_kit_provtail]
 * Names are NUL-terminated single path components (no '/', not "." or
 * "..", 1..LK_PROV_NAME_MAX bytes, no control bytes), the last byte of
 * names is a NUL; kernel names the link directory (e.g. "GENERIC.MP"),
 * each entry a file in it the link depends on (every object linked,
 * ld.script, Makefile; never gap.o nor the linked kernel) with its size
 * and SHA-256. Checked by lk_kit_open (linkkit/kit_prov.c).
 */
#define LK_KIT_F_PROV 0x4u
#define LK_PROV_MAGIC 0x56504b4cu /* "LKPV" */
#define LK_PROV_VERSION 1
#define LK_PROV_MAX_FILES 65536
#define LK_PROV_MAX_NAMES (8u << 20)
#define LK_PROV_NAME_MAX 255
struct lk_kit_prov_entry {
	lk_u64 size;      /* bytes of the file */
	lk_u32 name;      /* offset in names */
	lk_u32 reserved;  /* 0 */
	lk_u8 sha256[32]; /* of the file's bytes */
};
_Static_assert(sizeof(struct lk_kit_prov_entry) == 48, "prov entry size");
struct lk_kit_provtail {
	lk_u32 count;      /* entries */
	lk_u32 names_size; /* bytes of names */
	lk_u32 kernel;     /* offset in names of the kernel's name */
	lk_u16 version;    /* LK_PROV_VERSION */
	lk_u16 reserved;   /* 0 */
	lk_u32 magic;      /* LK_PROV_MAGIC */
};
_Static_assert(sizeof(struct lk_kit_provtail) == 20, "prov tail size");

/* A table: `count` records of the table's record type at byte `off`. */
struct lk_table {
	lk_u32 off;
	lk_u32 count;
};

enum lk_protocol {
	LK_PROTO_NONE = 0,       /* plain ELF entry, no handoff info */
	LK_PROTO_MULTIBOOT2 = 1, /* i386 state, EAX magic, EBX info */
	LK_PROTO_OPENBSD = 2,    /* OpenBSD amd64 boot(8) stack args */
	LK_PROTO_LINUX = 3,      /* Linux x86-64 boot_params, 64/32-bit entry */
};

struct lk_payload_header {
	lk_u32 magic;   /* LK_PAYLOAD_MAGIC */
	lk_u32 version; /* LK_PAYLOAD_VERSION */
	lk_u32 protocol; /* enum lk_protocol */
	lk_u32 flags;
	lk_u32 entry_sym; /* index into symbols */
	lk_u32 max_align; /* largest alignment anywhere; boot side rejects more */
	struct lk_table objects;  /* struct lk_object */
	struct lk_table chunks;   /* struct lk_chunk */
	struct lk_table slots;    /* struct lk_slot */
	struct lk_table outsecs;  /* struct lk_outsec */
	struct lk_table phdrs;    /* struct lk_phdr */
	struct lk_table symbols;  /* struct lk_symbol */
	struct lk_table relocs;   /* 8 bytes each: two u32 columns (below) */
	struct lk_table plan;     /* struct lk_op */
	struct lk_table mgroups;  /* struct lk_merge_group */
	struct lk_table mclasses; /* struct lk_merge_class */
	struct lk_table mrefs;    /* lk_u32 class indices */
	struct lk_table strtab;   /* bytes; NUL-terminated names */
	struct lk_table data;     /* bytes; section contents */
	struct lk_table comdats;  /* struct lk_comdat (version 2) */
	struct lk_table ksyms;    /* bytes; LK_PAYLOAD_F_LINUX_KALLSYMS */
	struct lk_table addends;  /* struct lk_reloc_addend (version 6) */
};

/* An input object. The table order is the canonical (command-line) order. */
struct lk_object {
	lk_u32 name;     /* strtab offset, e.g. "locore0.o" */
	lk_u32 flags;    /* LK_OBJ_* */
	lk_u32 pin_rank; /* 0: shuffled; n>0: placed n-th before all others */
	lk_u32 reserved;
};
#define LK_OBJ_GAP 0x1u       /* synthetic: holds the random gap chunks */
#define LK_OBJ_SYNTHETIC 0x2u /* made by the host (COMMON, GOT) */

/*
 * An input section ("chunk"). Chunks of one slot are contiguous in the
 * chunk table, in canonical order (object order, then section order).
 */
struct lk_chunk {
	lk_u32 object; /* index into objects */
	lk_u32 name;   /* strtab offset of the input section name */
	lk_u32 slot;   /* index into slots */
	lk_u32 flags;  /* LK_CHUNK_* */
	lk_u64 size;   /* bytes; for GAP chunks the exclusive maximum */
	lk_u64 align;  /* power of two, >= 1, <= header.max_align */
	lk_u64 data_off; /* PROGBITS: offset in data; GAP: fill byte */
	lk_u32 reloc_first; /* relocations patching this chunk */
	lk_u32 reloc_count;
	lk_u32 sort_key;    /* SORT_BY_NAME rank, computed on the host */
	lk_u32 mgroup;      /* MERGE: index into mgroups */
	lk_u32 mref_first;  /* MERGE: this chunk's pieces in mrefs */
	lk_u32 mref_count;
	lk_u32 comdat;   /* 1 + index into comdats: a copy of a COMDAT group
			    defined in several objects; 0: none */
	lk_u32 reserved; /* 0 */
};
_Static_assert(sizeof(struct lk_chunk) == 72, "chunk record size");
#define LK_CHUNK_NOBITS 0x1u /* zero-filled, no data */
#define LK_CHUNK_GAP 0x2u    /* random size in [0, size) step align */
#define LK_CHUNK_MERGE 0x4u  /* SHF_MERGE: pieces are merge classes */
#define LK_CHUNK_EXEC 0x8u
#define LK_CHUNK_WRITE 0x10u

/*
 * A COMDAT group with copies in several objects. Every copy's chunks are
 * in the kit, each with `comdat` = 1 + the group's index. At boot the copy
 * of the object that comes first in the object order is kept, as GNU ld
 * keeps the first in its command line; the other copies' chunks are dead:
 * no size, no alignment, no bytes, no relocations, and symbols in them
 * are undefined. A group with a single copy is an ordinary set of chunks.
 */
struct lk_comdat {
	lk_u32 name;  /* strtab offset of the group signature */
	lk_u32 flags; /* 0 */
};

/* One input-section description (`*(.text .text.*)`) in the script. */
struct lk_slot {
	lk_u32 outsec;      /* index into outsecs */
	lk_u32 flags;       /* LK_SLOT_* */
	lk_u32 first_chunk; /* chunks [first_chunk, first_chunk+chunk_count) */
	lk_u32 chunk_count;
};
#define LK_SLOT_CANONICAL 0x1u  /* keep canonical object order (init tables) */
#define LK_SLOT_SORT_ALIGN 0x2u /* SORT_BY_ALIGNMENT: stable, descending */
#define LK_SLOT_SORT_NAME 0x4u  /* SORT_BY_NAME: stable, by sort_key */
#define LK_SLOT_SHUFFLE 0x8u    /* per-section granularity: shuffle chunks */

struct lk_outsec {
	lk_u32 name;      /* strtab offset */
	lk_u32 type;      /* SHT_PROGBITS or SHT_NOBITS */
	lk_u64 flags;     /* SHF_ALLOC|SHF_WRITE|SHF_EXECINSTR */
	lk_u32 phdr_mask; /* bit i: belongs to phdrs[i] (resolved on the host) */
	lk_u32 oflags;    /* LK_OUTSEC_* */
	lk_u32 fill;      /* fill pattern, big-endian as in the script */
	lk_u32 fill_len;  /* 0: no pattern; else bytes of pattern (1..4) */
	lk_u64 align;     /* max input alignment and explicit ALIGN() */
};
#define LK_OUTSEC_RANDOM_FILL 0x1u /* filled with random bytes at boot */
/* ld.lld keeps this output section even when it ends up empty (it holds
 * assignments or is named in ADDR()): it then still counts for its
 * segments' extents. Set only with the policy line `linker lld`. */
#define LK_OUTSEC_KEEP_EMPTY 0x2u

struct lk_phdr {
	lk_u32 name;  /* strtab offset */
	lk_u32 type;  /* PT_LOAD, PT_OPENBSD_RANDOMIZE, ... */
	lk_u32 flags; /* PF_*; valid when LK_PHDR_FLAGS_SET */
	lk_u32 pflags; /* LK_PHDR_* */
};
#define LK_PHDR_FILEHDR 0x1u
#define LK_PHDR_PHDRS 0x2u
#define LK_PHDR_FLAGS_SET 0x4u

enum lk_sym_kind {
	LK_SYM_CHUNK = 0,    /* value is an offset in chunk `ref` */
	LK_SYM_ABS = 1,      /* value is absolute */
	LK_SYM_PLAN = 2,     /* assigned by a plan S_ASSIGN op */
	LK_SYM_OUTSEC_START = 3, /* __start_X: start of outsec `ref` */
	LK_SYM_OUTSEC_END = 4,   /* __stop_X: end of outsec `ref` */
	LK_SYM_MERGE = 5,    /* merge class `ref`, plus value */
	LK_SYM_ALT = 6,      /* one of symbols [ref, ref + value): see below */
};

/*
 * LK_SYM_ALT: a global defined in several objects where GNU ld's choice
 * depends on the object order (weak definitions only, or definitions in
 * copies of a COMDAT group). Its candidates are the LK_SYM_CHUNK symbols
 * [ref, ref + value), in canonical order, not emitted themselves. At boot
 * the candidate in a live chunk wins that is not weak (bind != STB_WEAK)
 * if there is one, else any; among those, the one whose object comes
 * first in the object order. Its value, bind, type and size become the
 * symbol's; with no live candidate the symbol is undefined.
 */

struct lk_symbol {
	lk_u32 name;  /* strtab offset; 0 for unnamed */
	lk_u8 kind;   /* enum lk_sym_kind */
	lk_u8 bind;   /* STB_* for the output symbol table */
	lk_u8 type;   /* STT_* */
	lk_u8 emit;   /* 1: goes into the output .symtab */
	lk_u32 ref;   /* chunk / outsec / merge class index, by kind */
	lk_u8 other;  /* STV_* visibility: hidden and internal symbols are
			 local in the output .symtab, as ld makes them */
	lk_u8 pad[3]; /* 0 */
	lk_u64 value;
	lk_u64 size;
};

/*
 * Relocations, already classified on the host: PLT32 became PC32, GOT
 * forms were relaxed (or point into a synthesized GOT chunk), NONE dropped.
 * Types keep their psABI numbers; the boot side accepts 64, PC32, 32, 32S,
 * PC64, 16, PC16, 8, PC8 and rejects anything else.
 *
 * They are a third of a kernel's payload (Linux defconfig: 1,228,307) and
 * every boot inflates and reads them all, so the table holds 8 bytes per
 * relocation, as two columns of `count` u32 each (columns compress about
 * twice as well as interleaved records: docs/bench.md):
 *   [u32 delta[count]][u32 info[count]]
 * delta: the relocation's offset in its chunk minus the previous one's
 * (the chunk's first: minus 0), modulo 2^32; records need not be in
 * offset order. info: symbol index << 8 | type, as ELF's r_info, so a kit
 * holds at most 2^24 symbols (`linkkit create` says so if not). Decoding
 * the offsets is a running sum in the loop that applies them.
 *
 * The addend is where ELF's REL format keeps it: in the field itself, in
 * the chunk's data, sign-extended from the field's width (so a 64-bit field
 * holds any addend). A relocation whose addend that cannot express (a
 * 32-bit field of OpenBSD's locore, 0x80000000 + x against a high-half
 * symbol) or whose field overlaps another relocation's has LK_RELOC_WIDE in
 * its type byte and its addend in the addends table.
 */
#define LK_RELOC_MAX_SYMS (1u << 24)
#define LK_RELOC_WIDE 0x80u

/* An addend the field cannot hold; sorted by `reloc`, each at most once. */
struct lk_reloc_addend {
	lk_u32 reloc;    /* index of the relocation (0..relocs.count-1) */
	lk_u32 reserved; /* 0 */
	lk_i64 addend;
};
_Static_assert(sizeof(struct lk_reloc_addend) == 16, "addend record size");

static inline lk_u32 lk_reloc_info_sym(lk_u32 info)
{
	return info >> 8;
}

static inline lk_u32 lk_reloc_info_type(lk_u32 info)
{
	return info & 0xff;
}

static inline lk_u32 lk_reloc_info(lk_u32 sym, lk_u32 type)
{
	return sym << 8 | (type & 0xff);
}

/*
 * SHF_MERGE: which pieces survive deduplication (and tail merging) does not
 * depend on the order, so the host computes the classes; where they go
 * follows the boot-time order as ld.bfd (binutils merge.c) does it: a
 * class stays in the first chunk in placement order that lists it in its
 * mrefs, at the next offset there aligned to the chunk's alignment
 * (first-occurrence order; all chunks of a group have the same alignment);
 * a chunk's size is the end of the last class it holds, so a chunk that
 * brings nothing new is empty. Every class of a group must be listed by at
 * least one chunk.
 */
struct lk_merge_group {
	lk_u64 total_size;
	lk_u32 first_class;
	lk_u32 class_count;
};
struct lk_merge_class {
	lk_u32 data_off; /* bytes in data */
	lk_u32 size;
	lk_u32 shard; /* LK_PAYLOAD_F_LLD_MERGE: ld.lld's shard of the piece
			 (< LK_MERGE_SHARDS); else 0 */
};

/*
 * lk_payload_header.flags: LK_PAYLOAD_F_LLD_MERGE (policy `linker lld`)
 * lays merge groups out as ld.lld 14 does at its default -O1, instead of
 * ld.bfd's way above. A group is then one block, held by its first chunk
 * in placement order (aligned to the largest alignment of its chunks;
 * every other chunk of the group is empty): the classes sorted into
 * LK_MERGE_SHARDS shards by `shard` (computed on the host from the
 * piece's xxHash64), each shard holding its classes in first-occurrence
 * order, each class at the next offset aligned to the group's alignment;
 * the non-empty shards follow each other in shard order, each starting
 * aligned. No tail merging: every class is a whole piece.
 */
#define LK_PAYLOAD_F_LLD_MERGE 0x1u
/* Policy `sort-tables linux` (create --linux): after every link, the
 * tables Linux's scripts/sorttable sorts at build time are sorted in the
 * image as it sorts them (linkkit/linux_sort.c: ORC, __ex_table, and
 * main_extable_sort_needed cleared). */
#define LK_PAYLOAD_F_LINUX_SORT 0x4u
/*
 * `create --linux` of a CONFIG_KALLSYMS_ALL kernel: after every link (and
 * its sorts) the kallsyms tables are written for the new addresses
 * (linkkit/linux_kallsyms_link.c). The ksyms table, 4-aligned:
 *   0  u32 chunk   the kallsyms object's .rodata chunk, which the tables
 *                  fill exactly (its data in the kit may be zeros)
 *   4  u32 n       symbols kallsyms lists
 *   8  u32 sym[n]  per symbol, in blob order, the kit symbol whose final
 *                  value is its address
 *   .. the blob (linkkit/linux_kallsyms.h), to the table's end
 */
#define LK_PAYLOAD_F_LINUX_KALLSYMS 0x8u
#define LK_MERGE_SHARDS 32

/* ---- Plan: a stack machine compiled from the linker script ---- */

struct lk_op {
	lk_u16 code; /* enum lk_opcode */
	lk_u16 flags; /* S_SECTION: LK_SEC_* */
	lk_u32 arg;  /* symbol/outsec/slot index, data size, ... */
	lk_u64 imm;
};

enum lk_opcode {
	/* Expressions push onto (and pop from) a stack of 64-bit values. */
	LK_E_CONST = 1,    /* push imm */
	LK_E_DOT,          /* push the location counter (a VMA) */
	LK_E_SYM,          /* push value of symbol arg (must be known) */
	LK_E_ADDR,         /* push VMA of outsec arg (must be placed) */
	LK_E_LOADADDR,     /* push LMA of outsec arg */
	LK_E_SIZEOF,       /* push size of outsec arg */
	LK_E_ALIGNOF,      /* push alignment of outsec arg */
	LK_E_ALIGN,        /* pop a; push align_up(dot, a) */
	LK_E_ALIGN2,       /* pop a, pop x; push align_up(x, a) */
	LK_E_ADD, LK_E_SUB, LK_E_MUL, LK_E_DIV, LK_E_MOD,
	LK_E_AND, LK_E_OR, LK_E_XOR, LK_E_SHL, LK_E_SHR,
	LK_E_LT, LK_E_LE, LK_E_GT, LK_E_GE, LK_E_EQ, LK_E_NE,
	LK_E_LAND, LK_E_LOR, LK_E_MAX, LK_E_MIN,
	LK_E_NEG, LK_E_NOT, LK_E_LNOT, /* unary: -x, ~x, !x */
	LK_E_COND,         /* pop b, pop a, pop c; push c ? a : b */
	LK_E_SHIFT,        /* push this layout's base shift, a random multiple
			      of imm in [0, arg * imm] (policy random-base);
			      at most once, outside every section */
	/* Statements pop their operands. */
	LK_S_SET_DOT = 0x100, /* pop v; . = v (never backwards in a section) */
	LK_S_ASSIGN,          /* pop v; symbol arg = v */
	LK_S_SECTION,         /* begin outsec arg; pops per LK_SEC_* flags */
	LK_S_SLOT,            /* place the chunks of slot arg */
	LK_S_DATA,            /* pop v; emit arg (1,2,4,8) bytes of v */
	LK_S_END_SECTION,
	LK_S_ASSERT,          /* pop v; if 0 fail with strtab message imm */
};

/* LK_S_SECTION operands, pushed in this order before the op:
 * vma (if LK_SEC_VMA), align (if LK_SEC_ALIGN), lma (if LK_SEC_LMA). */
#define LK_SEC_VMA 0x1u
#define LK_SEC_ALIGN 0x2u
#define LK_SEC_LMA 0x4u

#define LK_PLAN_STACK_MAX 64

/*
 * Rules the boot side (linkkit/link_open.c, link_layout.c) enforces or
 * relies on; a payload that breaks one is rejected with one error line.
 * - The payload buffer is 8-byte aligned and tables are read in place:
 *   `off` is a multiple of 8 for tables whose records hold a u64 (chunks,
 *   outsecs, symbols, relocs, plan, mgroups) and of 4 for the others.
 *   strtab ends in a NUL; names are strtab offsets.
 * - Chunks of slot s are exactly [first_chunk, first_chunk+chunk_count).
 *   GAP chunks: data_off (the fill byte) <= 0xff. Relocations only in
 *   PROGBITS chunks; offset + field width <= chunk size.
 * - LK_SYM_CHUNK: value <= chunk size, never a MERGE or GAP chunk (use
 *   LK_SYM_MERGE: class + offset, value <= class size).
 * - LK_SYM_ALT: 1 <= value, ref + value <= symbol count, every candidate
 *   is LK_SYM_CHUNK.
 * - chunk.comdat <= comdat count; a chunk in a group is not MERGE or GAP
 *   and not in a synthetic object; reserved fields and comdat flags are 0.
 * - Merge: every class belongs to one group and is listed by a chunk of
 *   it; total_size is the sum of the group's class sizes (classes carry
 *   any padding they need).
 * - Plan: exact stack effects, depth <= LK_PLAN_STACK_MAX, empty at the
 *   end; sections do not nest and each outsec is begun at most once; every
 *   slot is placed exactly once, inside its own outsec; S_DATA widths are
 *   1, 2, 4 or 8; S_ASSIGN targets LK_SYM_PLAN symbols only. A value used
 *   by E_SYM/E_ADDR/... must be known when the op runs (no forward refs):
 *   E_SIZEOF needs the section ended; merge symbols are only known after
 *   the plan. `.` is an absolute VMA everywhere (the compiler rejects GNU
 *   ld's section-relative `. = CONST`). Arithmetic is unsigned 64-bit and
 *   wraps, except DIV/MOD by zero (error); shifts >= 64 give 0.
 * - S_SECTION: VMA = the explicit one as given, else ALIGN(dot, align)
 *   where align = max(outsec.align, the LK_SEC_ALIGN operand, which must
 *   be a power of two). LMA = the LK_SEC_LMA operand, else the VMA when
 *   the VMA was explicit, else VMA + (LMA - VMA of the previous section).
 * - An output section whose body has only slots (no S_DATA, no `. =`)
 *   and ends up empty is discarded as GNU ld 2.40 does: dot returns to
 *   where it was before the section and the LMA offset carries over.
 * - Padding inside an output section (alignment, `. =`) uses its fill
 *   pattern restarted at each padding; without one (fill_len 0), x86-64
 *   NOPs when the outsec has SHF_EXECINSTR, else zeros, as GNU ld does.
 * - Slot order: SORT_NAME then SORT_ALIGN, both stable, so with both
 *   flags alignment is the primary key.
 * - Emitted output sections (size > 0) may not overlap in load memory;
 *   the image spans at most 1 GiB.
 */

#endif
