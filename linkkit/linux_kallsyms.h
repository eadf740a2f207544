/*
 * Linux kallsyms tables for a kernel relinked at boot (Linux 6.1 with
 * CONFIG_KALLSYMS_BASE_RELATIVE and CONFIG_KALLSYMS_ABSOLUTE_PERCPU, i.e.
 * scripts/kallsyms --all-symbols --absolute-percpu --base-relative).
 *
 * scripts/kallsyms' token table and every symbol's compressed name depend
 * only on the multiset of "type letter + name" strings (the letter of a
 * percpu symbol becomes 'A'), never on addresses or order. So the host
 * does the compression once (tools/kbkallsyms.c) and hands the boot side
 * a blob; the boot side sorts the symbols by their new addresses with
 * kallsyms' comparator and writes the tables whose contents follow the
 * order: kallsyms_offsets, kallsyms_relative_base, kallsyms_names,
 * kallsyms_markers, kallsyms_seqs_of_names. It can also write the
 * order-invariant kallsyms_num_syms, kallsyms_token_table and
 * kallsyms_token_index, so a kit may carry the whole kallsyms object's
 * .rodata as zeros.
 *
 * Not handled (the host must refuse such builds): kernels without
 * CONFIG_KALLSYMS_ALL (no --all-symbols: which symbols are kept then
 * depends on the _stext/_etext/_sinittext/_einittext addresses), clang
 * LTO (--lto-clang changes the name order), and 6.1 releases before
 * kallsyms_seqs_of_names (another .rodata layout than lk_ksym_layout's).
 *
 * Blob (little-endian, no alignment needed):
 *   0  u32 magic LK_KSYM_MAGIC ("LKks")
 *   4  u32 version LK_KSYM_VERSION
 *   8  u32 nsyms            n, 1 <= n < 2^24 (seqs_of_names has 3 bytes)
 *   12 u32 names_len        bytes of the name stream
 *   16 u32 token_table_len  bytes of the token table
 *   20 u32 percpu_start     blob index of __per_cpu_start, or 0xffffffff
 *   24 u32 percpu_end       blob index of __per_cpu_end, or 0xffffffff
 *   28 u32 zero
 *   32 u8  flags[n]         per symbol, LK_KSYM_F_* below
 *   .. names[names_len]     n entries exactly as in kallsyms_names: a
 *                           ULEB128 length (1..0x3fff, one byte up to
 *                           0x7f) then that many compressed bytes
 *   .. token_table[token_table_len]  256 NUL-terminated expansions;
 *                           kallsyms_token_index is their start offsets
 * Blob order (the index of every per-symbol array, including the caller's
 * address array) is the name order kallsyms_seqs_of_names uses: by name
 * (strcmp, without the type letter), equal names next to each other.
 *
 * Ties at one address: kallsyms puts non-weak before weak ('w'/'W' after
 * the percpu 'A'), then names that do not look like linker-script
 * symbols (__start_*, __stop_*, __end_*, __*_start, __*_end), then fewer
 * leading underscores, then its input order, which is nm -n's: by name,
 * equal names in symbol-table order (locals first). The flags carry the
 * first three; the blob index is the rest (equal names: locals before
 * globals, then by letter, then the host's order). Left open: two local
 * symbols of one name at one address with different letters (say 'd' and
 * 'b'), which the symbol table orders by object; the corpus has none,
 * even with every three addresses merged into one.
 *
 * Boot memory: the blob, the caller's n addresses and work of
 * lk_ksym_work_size() = 16n bytes (1,713,104 for Linux 6.1 defconfig's
 * 107,069 symbols); time O(n) (a radix sort of n 64-bit keys) when
 * percpu values fit 31 bits and the kernel lies above them within 2 GiB
 * (x86-64), else O(n log n) (a merge sort of n indices compared through
 * the addresses).
 *
 * For the caller: addr[] holds the final (virtual) addresses of this
 * boot's link, percpu symbols their offsets in .data..percpu as linked.
 * The kallsyms_* symbols are not in the tables (kallsyms ignores them),
 * but the tables' sizes never change, so the object keeps its size in
 * any layout. Its kallsyms_relative_base word carries an R_X86_64_64
 * against _text: write the tables after relocating (emit stores the
 * final value) or drop that relocation.
 */
#ifndef LK_LINUX_KALLSYMS_H
#define LK_LINUX_KALLSYMS_H

#include "lk_types.h"

#define LK_KSYM_MAGIC 0x736b4b4cu /* "LKks" */
#define LK_KSYM_VERSION 1u
#define LK_KSYM_HDR 32u
#define LK_KSYM_NONE 0xffffffffu
#define LK_KSYM_MAX_SYMS 0x1000000u
#define LK_KSYM_MAX_LEN 0x3fffu /* kallsyms' two-byte ULEB128 limit */
#define LK_KSYM_NAME_MAX 512u /* type letter + name, as the kernel reads it */
#define LK_KSYM_TOKENS 256u

/* Per-symbol flags byte. */
#define LK_KSYM_F_UNDERSCORES 0x0fu /* leading '_' of the name (0..15) */
#define LK_KSYM_F_WEAK 0x10u	    /* type letter 'w' or 'W' */
#define LK_KSYM_F_PROVIDE 0x20u	    /* looks like a linker-script symbol */
#define LK_KSYM_F_PERCPU 0x40u	    /* in [__per_cpu_start, __per_cpu_end] */
#define LK_KSYM_F_SAME_NAME 0x80u   /* same name as the previous symbol */

/* A checked blob; the pointers point into it. */
struct lk_ksym_blob {
	lk_u32 n;
	lk_u32 names_len;
	lk_u32 token_table_len;
	lk_u32 percpu_start;
	lk_u32 percpu_end;
	const lk_u8 *flags;
	const lk_u8 *names;
	const lk_u8 *token_table;
};

/* One caller buffer: it must be exactly the size the table has (the
 * space the host link reserved). */
struct lk_ksym_buf {
	lk_u8 *p;
	lk_u64 len;
};

/* The tables: offsets 4n, relative_base 8, num_syms 4, names names_len,
 * markers 4 * ceil(n / 256), seqs 3n, token_table token_table_len,
 * token_index 512 bytes. token_table and token_index may be left empty
 * (p LK_NULL) when the image already holds them: they never change. */
struct lk_ksym_out {
	struct lk_ksym_buf offsets;	  /* kallsyms_offsets */
	struct lk_ksym_buf relative_base; /* kallsyms_relative_base */
	struct lk_ksym_buf num_syms;	  /* kallsyms_num_syms */
	struct lk_ksym_buf names;	  /* kallsyms_names */
	struct lk_ksym_buf markers;	  /* kallsyms_markers */
	struct lk_ksym_buf seqs;	  /* kallsyms_seqs_of_names */
	struct lk_ksym_buf token_table;	  /* kallsyms_token_table */
	struct lk_ksym_buf token_index;	  /* kallsyms_token_index */
};

/* Where scripts/kallsyms' .S puts each table in its .rodata (every
 * label 8-aligned, zero padding between), and that section's size. */
struct lk_ksym_layout {
	lk_u64 offsets, relative_base, num_syms, names, markers, seqs;
	lk_u64 token_table, token_index, size;
};

/* Checks the blob's structure (sizes, every name entry, the token
 * table) and fills b. Returns LK_NULL or a line saying what is wrong. */
const char *lk_ksym_open(struct lk_ksym_blob *b, const void *blob, lk_u64 len);

/* The slower semantic check (the host's prep, the fuzzer, `verify`):
 * expands every name with the token table and checks the flags and the
 * name order against it. Not needed at boot when the kit is trusted. */
const char *lk_ksym_check(const struct lk_ksym_blob *b);

/* The names in blob order, expanded (a `create --linux` kit keeps a
 * listed symbol's name only here). b must come from lk_ksym_open. */
struct lk_ksym_names {
	const struct lk_ksym_blob *b;
	lk_u64 off;
	lk_u32 i;
	lk_u16 idx[LK_KSYM_TOKENS];
};
void lk_ksym_names_begin(struct lk_ksym_names *it, const struct lk_ksym_blob *b);
/* The next name without its type letter into out (LK_KSYM_NAME_MAX
 * bytes, NUL-terminated); its length, 0 after the last. */
lk_u32 lk_ksym_names_next(struct lk_ksym_names *it, char *out);

lk_u64 lk_ksym_work_size(const struct lk_ksym_blob *b);
lk_u64 lk_ksym_markers_size(const struct lk_ksym_blob *b);
void lk_ksym_layout(const struct lk_ksym_blob *b, struct lk_ksym_layout *l);

/* Writes the tables for the symbols' new addresses (addr[i] is blob
 * symbol i's, naddr == n). work: lk_ksym_work_size() bytes, 8-aligned,
 * zeroed again before returning (it held the layout). On an error
 * nothing useful is in out and *bad (when not LK_NULL) is the blob index
 * of the symbol at fault or LK_KSYM_NONE. b must come from lk_ksym_open. */
const char *lk_ksym_emit(const struct lk_ksym_blob *b, const lk_u64 *addr,
			 lk_u64 naddr, const struct lk_ksym_out *out,
			 void *work, lk_u64 work_len, lk_u32 *bad);

/* The same into the kallsyms object's whole .rodata (sec_len must be
 * the layout's size), padding zeroed: what the host link reserved. */
const char *lk_ksym_emit_section(const struct lk_ksym_blob *b,
				 const lk_u64 *addr, lk_u64 naddr, lk_u8 *sec,
				 lk_u64 sec_len, void *work, lk_u64 work_len,
				 lk_u32 *bad);

#endif
