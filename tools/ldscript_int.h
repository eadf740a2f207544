/*
 * Internal to the linker-script parser/compiler (tools/ldscript_*.c).
 * The AST lives in one arena owned by struct ls_script, so error paths
 * never need to unwind partial trees.
 */
#ifndef LDSCRIPT_INT_H
#define LDSCRIPT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "ldscript.h"

/* ---- arena ---- */
struct ls_arena_blk;
struct ls_arena {
	struct ls_arena_blk *head;
};
void *ls_alloc(struct ls_arena *a, size_t n); /* zeroed; aborts on OOM */
char *ls_strndup(struct ls_arena *a, const char *s, size_t n);
void ls_arena_free(struct ls_arena *a);

/* ---- diagnostics ---- */
/* Counts into *errors; prints "file:line: msg" through the sink. */
void ls_error(int *errors, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* ---- lexer ---- */
enum ls_tok_kind { LT_EOF, LT_NAME, LT_NUM, LT_STR, LT_OP, LT_BAD };

/* Multi-character operators; single characters use their own code. */
enum ls_opc {
	LO_SHL = 256, LO_SHR, LO_LE, LO_GE, LO_EQ, LO_NE, LO_LAND, LO_LOR,
	LO_ADDEQ, LO_SUBEQ, LO_MULEQ, LO_DIVEQ, LO_ANDEQ, LO_OREQ,
	LO_SHLEQ, LO_SHREQ,
};

/*
 * GNU ld's lexer is context dependent: "a-b" is a subtraction in an
 * expression but "*foo-bar.o" is one file pattern. The parser says which
 * mode it wants for each token.
 */
enum ls_lex_mode {
	LM_EXPR,    /* symbols, numbers, operators */
	LM_NAME,    /* statement starts, section names: also '/', '-' */
	LM_PATTERN, /* input descriptions: also wildcards * ? [ ] */
};

struct ls_token {
	int kind;
	int op;          /* LT_OP: char or enum ls_opc */
	const char *text; /* into the source buffer */
	size_t len;
	uint64_t num;
	int hex_digits;  /* LT_NUM written as 0x...: digit count, else 0 */
	int line;
};

struct ls_lexer {
	const char *file;
	const char *src;
	size_t size, pos;
	int line;
	int *errors;
	/* one-token lookahead, valid for (peek_mode, pos) */
	int have_peek, peek_mode;
	struct ls_token peek;
	size_t peek_end;
	int peek_end_line;
	char bad_msg[160]; /* diagnostic for the peeked token */
	int bad_line;
};

void ls_lex_init(struct ls_lexer *lx, const char *file, const char *src,
		 size_t size, int *errors);
const struct ls_token *ls_lex_peek(struct ls_lexer *lx, int mode);
struct ls_token ls_lex_next(struct ls_lexer *lx, int mode);
/* Describes a token for messages: "'x'" or "end of file". */
void ls_tok_describe(const struct ls_token *t, char *buf, size_t n);
int ls_tok_is(const struct ls_token *t, const char *word);

/* ---- AST ---- */
enum ls_expr_kind {
	LE_NUM, LE_DOT, LE_SYM, LE_UN, LE_BIN, LE_COND,
	LE_ALIGN1,  /* ALIGN(a): align . */
	LE_ALIGN2,  /* ALIGN(x, a) */
	LE_SECFN,   /* ADDR/LOADADDR/SIZEOF/ALIGNOF(section): op says which */
	LE_DEFINED, /* DEFINED(sym) */
	LE_HEADERS, /* SIZEOF_HEADERS */
	LE_ASSERT,  /* ASSERT(a, msg) used as a value */
};

struct ls_expr {
	int kind;
	int op; /* LK_E_* for UN/BIN/SECFN */
	uint64_t num;
	int hex_digits;
	const char *name; /* SYM, SECFN, DEFINED; message for ASSERT */
	struct ls_expr *a, *b, *c;
	const char *file;
	int line;
};

enum ls_stmt_kind {
	LS_ASSIGN, LS_OUTSEC, LS_INPUT, LS_DATA, LS_ASSERT, LS_FILL,
};

#define LS_SORT_NAME 1
#define LS_SORT_ALIGN 2

struct ls_secpat {
	const char *pat;
	const char **exclude; /* EXCLUDE_FILE inside the list */
	int nexclude;
	int sort;
};

struct ls_indesc {
	const char *file_pat;
	const char **file_excl; /* EXCLUDE_FILE before the file pattern */
	int nfile_excl;
	struct ls_secpat *secs;
	int nsecs;
	int keep;
};

struct ls_outdesc {
	const char *name;
	struct ls_expr *vma, *align, *lma;
	int noload, discard;
	int info; /* (INFO), (COPY), (DSECT), (OVERLAY): non-allocated */
	struct ls_stmt *body;
	const char **phdrs;
	int nphdrs;
	int has_fill;
	uint64_t fill;
	int fill_len;
};

struct ls_stmt {
	int kind;
	const char *file;
	int line;
	struct ls_stmt *next;
	/* ASSIGN: sym ("." for the location counter), op 0 for '=' or the
	 * LK_E_* of a compound assignment, provide 1 PROVIDE 2 PROVIDE_HIDDEN */
	const char *sym;
	int op, provide, hidden;
	struct ls_expr *e; /* ASSIGN, DATA, ASSERT, FILL value */
	int size;          /* DATA: 1, 2, 4, 8 */
	const char *msg;   /* ASSERT */
	struct ls_indesc *in;
	struct ls_outdesc *os;
};

struct ls_phdesc {
	const char *name;
	uint32_t type;
	int filehdr, phdrs, has_flags;
	uint32_t flags;
	const char *file;
	int line;
};

#define LS_MAX_PHDRS 32

struct ls_script {
	struct ls_arena arena;
	const char *name;
	const char *entry;
	struct ls_stmt *stmts;
	struct ls_phdesc phdrs[LS_MAX_PHDRS];
	int nphdrs, has_phdrs;
};

/* Binary LK_E_* operator (not DIV/MOD by zero: callers check). */
uint64_t ls_fold_bin(int op, uint64_t a, uint64_t b);

/* Glob with * ? [...] ([!..] and [^..] negate). */
int ls_glob(const char *pat, const char *s);

#endif
