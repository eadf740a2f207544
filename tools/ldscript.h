/*
 * GNU ld linker-script subset: parse a script, then compile it against the
 * kit's input sections into the plan (kit_format.h: slots, outsecs, phdrs,
 * plan ops). Host only (hosted C, libc allowed).
 *
 * Flow used by `linkkit create` (tools/kitbuild.c):
 *   ls_parse_file()         -> struct ls_script * (or NULL + errors printed
 *                              as "file:line: message")
 *   ls_compile(script, inputs, n, &cb, &out)
 *                           -> slot for each input, outsecs, phdrs, ops
 * Symbols are referred to by name; the compiler asks the caller (cb) for a
 * symbol index, so the kit builder owns the symbol table.
 *
 * Build: the sources are listed in the make variable LDSCRIPT_SRCS
 * (test/ldscript/rules.mk); link them into $(B)/tools/linkkit.
 * docs/ldscript.md lists the supported subset of the GNU ld language.
 */
#ifndef LDSCRIPT_H
#define LDSCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "../linkkit/kit_format.h"

struct ls_script; /* opaque AST */

/* Where diagnostics go: each complete line (no newline) is passed to fn.
 * NULL (the default) prints them to stderr. Not thread-safe. */
typedef void (*ls_diag_fn)(void *ctx, const char *line);
void ls_set_diag(ls_diag_fn fn, void *ctx);

/* Returns NULL after printing every error as "path:line: msg" to stderr. */
struct ls_script *ls_parse_file(const char *path);
struct ls_script *ls_parse_string(const char *name, const char *text);
void ls_free(struct ls_script *s);
/* Name from ENTRY(), or NULL. */
const char *ls_entry(const struct ls_script *s);

/* One allocated input section of the kit, in canonical order (objects in
 * command-line order, sections in section-header order). */
struct ls_input {
	const char *object;  /* basename as given, e.g. "locore0.o" */
	const char *section; /* e.g. ".text.foo" */
	uint32_t object_index;
	uint32_t sh_type;    /* SHT_PROGBITS, SHT_NOBITS, ... ("COMMON" is
				passed as section "COMMON", SHT_NOBITS) */
	uint64_t sh_flags;
	uint64_t size;
	uint64_t align;
};

#define LS_DISCARD UINT32_MAX     /* matched by /DISCARD/ */
#define LS_ORPHAN (UINT32_MAX - 1) /* matched by nothing */

struct ls_callbacks {
	void *ctx;
	/* Index of a symbol the script defines or references; creates an
	 * LK_SYM_PLAN symbol when the script assigns it. `provide` is 1 for
	 * PROVIDE()/PROVIDE_HIDDEN(): the callback returns UINT32_MAX when
	 * the symbol is defined by an object or never referenced, and the
	 * assignment is then dropped (GNU ld semantics). */
	uint32_t (*symbol)(void *ctx, const char *name, int assigns,
			   int provide);
	/* Policy hooks: slot flags to OR in for a pattern (e.g.
	 * LK_SLOT_CANONICAL for ".initcall*"), outsec flags (RANDOM_FILL). */
	uint32_t (*slot_flags)(void *ctx, const char *outsec,
			       const char *pattern);
	uint32_t (*outsec_flags)(void *ctx, const char *outsec);
	/* Interns a string in the kit strtab; returns its offset. */
	uint32_t (*intern)(void *ctx, const char *s);
	/* Optional (may be NULL): nonzero when an input object defines
	 * `name`; used for DEFINED(). A symbol assigned earlier in the
	 * script counts as defined either way. */
	int (*defined)(void *ctx, const char *name);
	/* Nonzero: mark the empty output sections ld.lld keeps with
	 * LK_OUTSEC_KEEP_EMPTY (policy `linker lld`). */
	int lld_empty;
};

struct ls_compiled {
	uint32_t *input_slot; /* per input: slot index, LS_DISCARD, LS_ORPHAN */
	struct lk_slot *slots; /* first_chunk/chunk_count left 0: the caller
				  orders chunks and fills them in */
	uint32_t nslots;
	struct lk_outsec *outsecs; /* type/flags/align computed from inputs */
	uint32_t noutsecs;
	struct lk_phdr *phdrs; /* PHDRS, or PT_LOADs made like GNU ld's
				  when the script has none (docs/ldscript.md) */
	uint32_t nphdrs;
	struct lk_op *ops;
	uint32_t nops;
	uint64_t sizeof_headers; /* 64 + 56 * nphdrs */
};

/* Returns 0, or -1 after printing every error ("path:line: msg"). */
int ls_compile(const struct ls_script *s, const struct ls_input *in,
	       size_t nin, const struct ls_callbacks *cb,
	       struct ls_compiled *out);
void ls_compiled_free(struct ls_compiled *c);

#endif
