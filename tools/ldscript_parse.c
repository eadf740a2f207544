/*
 * Recursive-descent parser for the GNU ld script subset in docs/ldscript.md.
 * Every syntax error is reported, then the parser skips to the end of the
 * statement (';' or a balanced '{...}') so later errors are found too.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldscript_int.h"

enum ctx { CTX_TOP, CTX_SECTIONS, CTX_BODY };

#define MAX_EXPR_DEPTH 256
/* Left-associative chains build deep trees without parser recursion; the
 * compiler walks them recursively, so their size is bounded too. */
#define MAX_EXPR_NODES 10000
#define MAX_INCLUDE_DEPTH 8
#define MAX_INCLUDE_SIZE (16u << 20)

struct parser {
	struct ls_script *s;
	struct ls_lexer *lx;
	int errors;
	int depth;
	int nodes; /* in the outermost expression being parsed */
	int include_depth;
};

typedef struct ls_stmt **tailp;

static const struct ls_token *peek(struct parser *p, int mode)
{
	return ls_lex_peek(p->lx, mode);
}

static struct ls_token next(struct parser *p, int mode)
{
	return ls_lex_next(p->lx, mode);
}

static int peek_op(struct parser *p, int op)
{
	const struct ls_token *t = peek(p, LM_EXPR);

	return t->kind == LT_OP && t->op == op;
}

static int accept(struct parser *p, int op)
{
	if (!peek_op(p, op))
		return 0;
	next(p, LM_EXPR);
	return 1;
}

static int line(struct parser *p)
{
	return peek(p, LM_EXPR)->line;
}

static int perr(struct parser *p, int ln, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int perr(struct parser *p, int ln, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ls_error(&p->errors, p->lx->file, ln, "%s", msg);
	return -1;
}

/* "expected X but found Y"; a token the lexer rejected already has its
 * own message, so that one is consumed instead of piling on. */
static int expected(struct parser *p, int mode, const char *what)
{
	const struct ls_token *t = peek(p, mode);
	char buf[64];

	if (t->kind == LT_BAD) {
		next(p, mode);
		return -1;
	}
	ls_tok_describe(t, buf, sizeof(buf));
	return perr(p, t->line, "expected %s but found %s", what, buf);
}

static int expect(struct parser *p, int op)
{
	char what[16];

	if (accept(p, op))
		return 0;
	if (op < 256)
		snprintf(what, sizeof(what), "'%c'", op);
	else
		snprintf(what, sizeof(what), "operator");
	return expected(p, LM_EXPR, what);
}

static const char *tok_str(struct parser *p, const struct ls_token *t)
{
	return ls_strndup(&p->s->arena, t->text, t->len);
}

/* A name or quoted string in `mode`; NULL after an error. */
static const char *take_name(struct parser *p, int mode, const char *what)
{
	const struct ls_token *t = peek(p, mode);
	struct ls_token tok;

	if (t->kind != LT_NAME && t->kind != LT_STR) {
		expected(p, mode, what);
		return NULL;
	}
	tok = next(p, mode);
	return tok_str(p, &tok);
}

static int unsupported(struct parser *p, int ln, const char *what, size_t n)
{
	return perr(p, ln, "unsupported construct '%.*s'", (int)n, what);
}

/* Room for element n of an arena array: capacity doubles at powers of
 * two, so a long list costs linear memory even though nothing is freed. */
static void *arena_grow(struct parser *p, void *arr, int n, size_t size)
{
	void *na;

	if (n && (n < 4 || (n & (n - 1))))
		return arr;
	na = ls_alloc(&p->s->arena, size * (size_t)(n < 4 ? 4 : 2 * n));
	if (n)
		memcpy(na, arr, size * (size_t)n);
	return na;
}

/* ---------------- expressions ---------------- */

static struct ls_expr *parse_expr(struct parser *p);

static struct ls_expr *mk(struct parser *p, int kind, int ln)
{
	struct ls_expr *e = ls_alloc(&p->s->arena, sizeof(*e));

	e->kind = kind;
	e->file = p->lx->file;
	e->line = ln;
	return e;
}

static struct ls_expr *mk_num(struct parser *p, uint64_t v, int ln)
{
	struct ls_expr *e = mk(p, LE_NUM, ln);

	e->num = v;
	return e;
}

static struct ls_expr *mk_un(struct parser *p, int kind, struct ls_expr *a,
			     int ln)
{
	struct ls_expr *e = mk(p, kind, ln);

	e->a = a;
	return e;
}

static const struct {
	const char *name;
	int op;
} secfns[] = {
	{ "ADDR", LK_E_ADDR },
	{ "LOADADDR", LK_E_LOADADDR },
	{ "SIZEOF", LK_E_SIZEOF },
	{ "ALIGNOF", LK_E_ALIGNOF },
};

static int secfn_op(const struct ls_token *t)
{
	size_t i;

	for (i = 0; i < sizeof(secfns) / sizeof(secfns[0]); i++)
		if (ls_tok_is(t, secfns[i].name))
			return secfns[i].op;
	return 0;
}

/* After NAME '(' has been consumed: ALIGN, MAX, ... */
/* ALIGN, BLOCK, NEXT, MAX, MIN, ABSOLUTE: functions of expressions. */
static struct ls_expr *parse_value_call(struct parser *p,
					const struct ls_token *f)
{
	int two = ls_tok_is(f, "MAX") || ls_tok_is(f, "MIN");
	int align = ls_tok_is(f, "ALIGN") || ls_tok_is(f, "BLOCK") ||
		    ls_tok_is(f, "NEXT");
	struct ls_expr *e, *a, *b;

	if (!two && !align && !ls_tok_is(f, "ABSOLUTE")) {
		unsupported(p, f->line, f->text, f->len);
		return NULL;
	}
	if (!(a = parse_expr(p)))
		return NULL;
	if (!two && !(align && peek_op(p, ',')))
		return align ? mk_un(p, LE_ALIGN1, a, f->line) :
			       a; /* ABSOLUTE: every value is absolute here */
	if (expect(p, ',') || !(b = parse_expr(p)))
		return NULL;
	e = mk(p, align ? LE_ALIGN2 : LE_BIN, f->line);
	e->op = ls_tok_is(f, "MAX") ? LK_E_MAX : LK_E_MIN;
	e->a = a;
	e->b = b;
	return e;
}

/* CONSTANT(MAXPAGESIZE | COMMONPAGESIZE) */
static struct ls_expr *parse_constant(struct parser *p, int ln)
{
	const struct ls_token *t = peek(p, LM_EXPR);

	/* x86-64 values of GNU ld 2.31+ (-z separate-code era). */
	if (!ls_tok_is(t, "MAXPAGESIZE") && !ls_tok_is(t, "COMMONPAGESIZE")) {
		expected(p, LM_EXPR, "MAXPAGESIZE or COMMONPAGESIZE");
		return NULL;
	}
	next(p, LM_EXPR);
	return mk_num(p, 0x1000, ln);
}

/* A function taking a name first: ADDR(.text), DEFINED(sym), ... */
static struct ls_expr *parse_name_call(struct parser *p,
				       const struct ls_token *f, int kind,
				       int mode, const char *what)
{
	struct ls_expr *e = mk(p, kind, f->line);

	e->op = secfn_op(f);
	e->name = take_name(p, mode, what);
	return e->name ? e : NULL;
}

/* After NAME '(' has been consumed. */
static struct ls_expr *parse_call(struct parser *p, const struct ls_token *f)
{
	struct ls_expr *e, *a;

	if (secfn_op(f))
		e = parse_name_call(p, f, LE_SECFN, LM_NAME, "a section name");
	else if (ls_tok_is(f, "DEFINED"))
		e = parse_name_call(p, f, LE_DEFINED, LM_EXPR, "a symbol name");
	else if (ls_tok_is(f, "CONSTANT"))
		e = parse_constant(p, f->line);
	else if (ls_tok_is(f, "SEGMENT_START")) {
		/* No -T<segment> options here: always the default. */
		e = NULL;
		if (take_name(p, LM_NAME, "a segment name") && !expect(p, ','))
			e = parse_expr(p);
	} else if (ls_tok_is(f, "ASSERT")) {
		e = NULL;
		if ((a = parse_expr(p)) && !expect(p, ',')) {
			e = parse_name_call(p, f, LE_ASSERT, LM_EXPR,
					    "a message string");
			if (e)
				e->a = a;
		}
	} else {
		e = parse_value_call(p, f);
	}
	return !e || expect(p, ')') ? NULL : e;
}

static struct ls_expr *parse_unary(struct parser *p);

static struct ls_expr *parse_primary(struct parser *p)
{
	const struct ls_token *t = peek(p, LM_EXPR);
	struct ls_token tok;
	struct ls_expr *e;

	if (t->kind == LT_NUM) {
		tok = next(p, LM_EXPR);
		e = mk_num(p, tok.num, tok.line);
		e->hex_digits = tok.hex_digits;
		return e;
	}
	if (t->kind == LT_OP && t->op == '(') {
		next(p, LM_EXPR);
		e = parse_expr(p);
		return !e || expect(p, ')') ? NULL : e;
	}
	if (t->kind == LT_STR) {
		tok = next(p, LM_EXPR);
		e = mk(p, LE_SYM, tok.line);
		e->name = tok_str(p, &tok);
		return e;
	}
	if (t->kind != LT_NAME) {
		expected(p, LM_EXPR, "an expression");
		return NULL;
	}
	tok = next(p, LM_EXPR);
	if (accept(p, '('))
		return parse_call(p, &tok);
	if (ls_tok_is(&tok, "."))
		return mk(p, LE_DOT, tok.line);
	if (ls_tok_is(&tok, "SIZEOF_HEADERS") || ls_tok_is(&tok, "sizeof_headers"))
		return mk(p, LE_HEADERS, tok.line);
	e = mk(p, LE_SYM, tok.line);
	e->name = tok_str(p, &tok);
	return e;
}

static struct ls_expr *parse_unary(struct parser *p)
{
	const struct ls_token *t = peek(p, LM_EXPR);
	struct ls_expr *e, *a;
	int op = 0, ln = t->line;

	if (t->kind == LT_OP && t->op < 256 && strchr("-~!+", t->op))
		op = t->op;
	if (!op)
		return parse_primary(p);
	if (++p->depth > MAX_EXPR_DEPTH) {
		perr(p, ln, "expression nested too deeply");
		return NULL;
	}
	next(p, LM_EXPR);
	a = parse_unary(p);
	p->depth--;
	if (!a || op == '+')
		return a;
	e = mk(p, LE_UN, ln);
	e->op = op == '-' ? LK_E_NEG : op == '~' ? LK_E_NOT : LK_E_LNOT;
	e->a = a;
	return e;
}

/* C precedence, lowest first. */
static int binop(const struct ls_token *t, int *lk)
{
	static const struct {
		int op, prec, lk;
	} tab[] = {
		{ LO_LOR, 1, LK_E_LOR }, { LO_LAND, 2, LK_E_LAND },
		{ '|', 3, LK_E_OR },     { '^', 4, LK_E_XOR },
		{ '&', 5, LK_E_AND },    { LO_EQ, 6, LK_E_EQ },
		{ LO_NE, 6, LK_E_NE },   { '<', 7, LK_E_LT },
		{ LO_LE, 7, LK_E_LE },   { '>', 7, LK_E_GT },
		{ LO_GE, 7, LK_E_GE },   { LO_SHL, 8, LK_E_SHL },
		{ LO_SHR, 8, LK_E_SHR }, { '+', 9, LK_E_ADD },
		{ '-', 9, LK_E_SUB },    { '*', 10, LK_E_MUL },
		{ '/', 10, LK_E_DIV },   { '%', 10, LK_E_MOD },
	};
	size_t i;

	if (t->kind != LT_OP)
		return 0;
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (tab[i].op == t->op) {
			*lk = tab[i].lk;
			return tab[i].prec;
		}
	return 0;
}

static struct ls_expr *parse_binary(struct parser *p, int min_prec)
{
	struct ls_expr *lhs = parse_unary(p), *e;
	int prec, lk;

	while (lhs && (prec = binop(peek(p, LM_EXPR), &lk)) >= min_prec &&
	       prec) {
		struct ls_token op = next(p, LM_EXPR);

		if (++p->nodes > MAX_EXPR_NODES) {
			perr(p, op.line, "expression too long");
			return NULL;
		}
		e = mk(p, LE_BIN, op.line);
		e->op = lk;
		e->a = lhs;
		/* Bounded by the number of precedence levels: no depth check. */
		e->b = parse_binary(p, prec + 1);
		lhs = e->b ? e : NULL;
	}
	return lhs;
}

static struct ls_expr *parse_expr(struct parser *p)
{
	struct ls_expr *c, *e;
	int ln = line(p);

	if (++p->depth > MAX_EXPR_DEPTH) {
		perr(p, ln, "expression nested too deeply");
		return NULL;
	}
	if (p->depth == 1)
		p->nodes = 0;
	c = parse_binary(p, 1);
	if (c && peek_op(p, '?')) {
		next(p, LM_EXPR);
		e = mk(p, LE_COND, ln);
		e->c = c;
		if (!(e->a = parse_expr(p)) || expect(p, ':') ||
		    !(e->b = parse_expr(p)))
			c = NULL;
		else
			c = e;
	}
	p->depth--;
	return c;
}

/* ---------------- statements ---------------- */

static struct ls_stmt *add(struct parser *p, tailp *tail, int kind, int ln)
{
	struct ls_stmt *st = ls_alloc(&p->s->arena, sizeof(*st));

	st->kind = kind;
	st->file = p->lx->file;
	st->line = ln;
	**tail = st;
	*tail = &st->next;
	return st;
}

static int assign_op(const struct ls_token *t)
{
	static const int map[][2] = {
		{ LO_ADDEQ, LK_E_ADD }, { LO_SUBEQ, LK_E_SUB },
		{ LO_MULEQ, LK_E_MUL }, { LO_DIVEQ, LK_E_DIV },
		{ LO_ANDEQ, LK_E_AND }, { LO_OREQ, LK_E_OR },
		{ LO_SHLEQ, LK_E_SHL }, { LO_SHREQ, LK_E_SHR },
	};
	size_t i;

	if (t->kind != LT_OP)
		return -1;
	if (t->op == '=')
		return 0;
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i][0] == t->op)
			return map[i][1];
	return -1;
}

/* After the symbol name: op expr. `. = ASSERT(e, m)` keeps only the
 * check, as GNU ld does not move `.` for it. */
static int parse_assign_rest(struct parser *p, tailp *tail, const char *sym,
			     int ln, int provide)
{
	struct ls_token op;
	struct ls_expr *e;
	struct ls_stmt *st;
	int lk = assign_op(peek(p, LM_EXPR));

	if (lk < 0)
		return expected(p, LM_EXPR, "'='");
	op = next(p, LM_EXPR);
	if (provide && lk)
		return perr(p, op.line, "expected '=' but found '%.*s'",
			    (int)op.len, op.text);
	if (!(e = parse_expr(p)))
		return -1;
	if (e->kind == LE_ASSERT && !lk && !provide) {
		st = add(p, tail, LS_ASSERT, ln);
		st->e = e->a;
		st->msg = e->name;
		return 0;
	}
	st = add(p, tail, LS_ASSIGN, ln);
	st->sym = sym;
	st->op = lk;
	st->provide = provide;
	st->e = e;
	return 0;
}

static void accept_end(struct parser *p)
{
	if (!accept(p, ';'))
		accept(p, ',');
}

/* PROVIDE(x = e), PROVIDE_HIDDEN(x = e), HIDDEN(x = e) */
static int parse_provide(struct parser *p, tailp *tail, int provide, int ln)
{
	const char *sym;

	if (expect(p, '(') || !(sym = take_name(p, LM_NAME, "a symbol name")))
		return -1;
	if (parse_assign_rest(p, tail, sym, ln, provide) || expect(p, ')'))
		return -1;
	accept_end(p);
	return 0;
}

static int parse_assert(struct parser *p, tailp *tail, int ln)
{
	struct ls_stmt *st;
	struct ls_expr *e;
	const char *msg;

	if (expect(p, '(') || !(e = parse_expr(p)) || expect(p, ',') ||
	    !(msg = take_name(p, LM_EXPR, "a message string")) ||
	    expect(p, ')'))
		return -1;
	st = add(p, tail, LS_ASSERT, ln);
	st->e = e;
	st->msg = msg;
	accept_end(p);
	return 0;
}

static int parse_list(struct parser *p, int ctx, tailp *tail, int braced);

static char *read_all(const char *path, size_t *size, int *err)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	*err = 0;
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    (unsigned long)n > MAX_INCLUDE_SIZE || fseek(f, 0, SEEK_SET)) {
		*err = f && !errno ? EFBIG : errno;
		if (f)
			fclose(f);
		return NULL;
	}
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		*err = buf ? EIO : ENOMEM;
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[n] = 0;
	*size = (size_t)n;
	return buf;
}

/* INCLUDE name: relative names are looked up beside the including file
 * first, then from the working directory. */
static int parse_include(struct parser *p, int ctx, tailp *tail, int ln)
{
	const char *name = take_name(p, LM_PATTERN, "a file name");
	const char *dir_end, *path;
	struct ls_lexer sub, *saved = p->lx;
	size_t size;
	char *text;
	int err;

	if (!name)
		return -1;
	if (p->include_depth >= MAX_INCLUDE_DEPTH)
		return perr(p, ln, "INCLUDE nested too deeply");
	dir_end = strrchr(p->lx->file, '/');
	path = name;
	text = NULL;
	if (name[0] != '/' && dir_end) {
		size_t n = (size_t)(dir_end - p->lx->file) + 1;
		char *full = ls_alloc(&p->s->arena, n + strlen(name) + 1);

		memcpy(full, p->lx->file, n);
		strcpy(full + n, name);
		text = read_all(full, &size, &err);
		if (text)
			path = full;
	}
	if (!text)
		text = read_all(name, &size, &err);
	if (!text)
		return perr(p, ln, "cannot read INCLUDE file '%s': %s", name,
			    strerror(err));
	ls_lex_init(&sub, path, ls_strndup(&p->s->arena, text, size), size,
		    &p->errors);
	free(text);
	p->lx = &sub;
	p->include_depth++;
	/* Errors inside were reported and skipped there. */
	parse_list(p, ctx, tail, 0);
	next(p, LM_EXPR); /* the EOF token: flushes a lexer diagnostic */
	p->include_depth--;
	p->lx = saved;
	accept_end(p);
	return 0;
}

/* Statements valid in every context; returns 1 when `t` is none. */
static int parse_common(struct parser *p, int ctx, tailp *tail,
			const struct ls_token *t)
{
	if (ls_tok_is(t, "PROVIDE"))
		return parse_provide(p, tail, 1, t->line);
	if (ls_tok_is(t, "PROVIDE_HIDDEN"))
		return parse_provide(p, tail, 2, t->line);
	if (ls_tok_is(t, "HIDDEN"))
		return parse_provide(p, tail, 0, t->line);
	if (ls_tok_is(t, "ASSERT"))
		return parse_assert(p, tail, t->line);
	if (ls_tok_is(t, "INCLUDE"))
		return parse_include(p, ctx, tail, t->line);
	if (assign_op(peek(p, LM_EXPR)) >= 0) {
		if (parse_assign_rest(p, tail, tok_str(p, t), t->line, 0))
			return -1;
		if (accept(p, ';') || accept(p, ','))
			return 0;
		return expected(p, LM_EXPR, "';'");
	}
	return 1;
}

/* ---- input section descriptions ---- */

static int sort_kind(const struct ls_token *t)
{
	if (ls_tok_is(t, "SORT") || ls_tok_is(t, "SORT_BY_NAME"))
		return LS_SORT_NAME;
	if (ls_tok_is(t, "SORT_BY_ALIGNMENT"))
		return LS_SORT_ALIGN;
	if (ls_tok_is(t, "SORT_NONE"))
		return 3;
	return 0;
}

/* EXCLUDE_FILE( pattern... ) after the keyword. */
static int parse_exclude(struct parser *p, const char ***list, int *n)
{
	if (expect(p, '('))
		return -1;
	while (peek(p, LM_PATTERN)->kind == LT_NAME ||
	       peek(p, LM_PATTERN)->kind == LT_STR) {
		struct ls_token t = next(p, LM_PATTERN);

		*list = arena_grow(p, (void *)*list, *n, sizeof(**list));
		(*list)[(*n)++] = tok_str(p, &t);
		accept(p, ',');
	}
	if (!*n)
		return expected(p, LM_PATTERN, "a file pattern");
	return expect(p, ')');
}

static void add_secpat(struct parser *p, struct ls_indesc *in,
		       const struct ls_secpat *sp)
{
	in->secs = arena_grow(p, in->secs, in->nsecs, sizeof(*in->secs));
	in->secs[in->nsecs++] = *sp;
}

static int parse_secpats(struct parser *p, struct ls_indesc *in, int sort,
			 int nest);

/* One item of the section list: [EXCLUDE_FILE(..)] pat | SORT..( .. ) */
static int parse_secitem(struct parser *p, struct ls_indesc *in, int sort,
			 int nest)
{
	struct ls_token t = next(p, LM_PATTERN);
	struct ls_secpat sp = { 0 };
	int k = sort_kind(&t);

	if (k) {
		if (nest >= 2)
			return unsupported(p, t.line, t.text, t.len);
		if (expect(p, '('))
			return -1;
		/* Nested sorts: the outer key is the one the core uses. */
		if (parse_secpats(p, in, sort ? sort : k == 3 ? 0 : k, nest + 1))
			return -1;
		return expect(p, ')');
	}
	if (ls_tok_is(&t, "SORT_BY_INIT_PRIORITY") ||
	    ls_tok_is(&t, "REVERSE") || ls_tok_is(&t, "INPUT_SECTION_FLAGS"))
		return unsupported(p, t.line, t.text, t.len);
	if (ls_tok_is(&t, "EXCLUDE_FILE")) {
		if (parse_exclude(p, &sp.exclude, &sp.nexclude))
			return -1;
		if (peek(p, LM_PATTERN)->kind != LT_NAME &&
		    peek(p, LM_PATTERN)->kind != LT_STR)
			return expected(p, LM_PATTERN, "a section pattern");
		t = next(p, LM_PATTERN);
	}
	sp.pat = tok_str(p, &t);
	sp.sort = sort;
	add_secpat(p, in, &sp);
	return 0;
}

static int parse_secpats(struct parser *p, struct ls_indesc *in, int sort,
			 int nest)
{
	int before = in->nsecs;

	for (;;) {
		const struct ls_token *t = peek(p, LM_PATTERN);

		if (t->kind == LT_OP && t->op == ',') {
			next(p, LM_PATTERN);
			continue;
		}
		if (t->kind != LT_NAME && t->kind != LT_STR)
			break;
		if (parse_secitem(p, in, sort, nest))
			return -1;
	}
	if (in->nsecs == before)
		return expected(p, LM_PATTERN, "a section pattern");
	return 0;
}

/* `t` (already consumed) starts an input description. */
static int parse_input(struct parser *p, tailp *tail, struct ls_token t)
{
	struct ls_indesc *in = ls_alloc(&p->s->arena, sizeof(*in));
	struct ls_stmt *st;
	int keep = ls_tok_is(&t, "KEEP"), ln = t.line;

	if (keep) {
		if (expect(p, '('))
			return -1;
		if (peek(p, LM_PATTERN)->kind != LT_NAME &&
		    peek(p, LM_PATTERN)->kind != LT_STR)
			return expected(p, LM_PATTERN, "a file pattern");
		t = next(p, LM_PATTERN);
	}
	if (ls_tok_is(&t, "EXCLUDE_FILE")) {
		if (parse_exclude(p, &in->file_excl, &in->nfile_excl))
			return -1;
		if (peek(p, LM_PATTERN)->kind != LT_NAME &&
		    peek(p, LM_PATTERN)->kind != LT_STR)
			return expected(p, LM_PATTERN, "a file pattern");
		t = next(p, LM_PATTERN);
	}
	if (sort_kind(&t) && peek_op(p, '('))
		return perr(p, t.line,
			    "unsupported construct '%.*s' on file names",
			    (int)t.len, t.text);
	in->file_pat = tok_str(p, &t);
	if (!peek_op(p, '('))
		return unsupported(p, t.line, t.text, t.len);
	next(p, LM_EXPR);
	if (parse_secpats(p, in, 0, 0) || expect(p, ')'))
		return -1;
	if (keep && expect(p, ')'))
		return -1;
	in->keep = keep;
	st = add(p, tail, LS_INPUT, ln);
	st->in = in;
	accept_end(p);
	return 0;
}

static int data_size(const struct ls_token *t)
{
	if (ls_tok_is(t, "BYTE"))
		return 1;
	if (ls_tok_is(t, "SHORT"))
		return 2;
	if (ls_tok_is(t, "LONG"))
		return 4;
	if (ls_tok_is(t, "QUAD") || ls_tok_is(t, "SQUAD"))
		return 8;
	return 0;
}

static int parse_body_stmt(struct parser *p, tailp *tail)
{
	struct ls_token t;
	struct ls_stmt *st;
	struct ls_expr *e;
	int rc, size;

	if (peek(p, LM_PATTERN)->kind != LT_NAME &&
	    peek(p, LM_PATTERN)->kind != LT_STR)
		return expected(p, LM_PATTERN, "a statement");
	t = next(p, LM_PATTERN);
	if ((rc = parse_common(p, CTX_BODY, tail, &t)) <= 0)
		return rc;
	size = data_size(&t);
	if (size || ls_tok_is(&t, "FILL")) {
		if (expect(p, '(') || !(e = parse_expr(p)) || expect(p, ')'))
			return -1;
		st = add(p, tail, size ? LS_DATA : LS_FILL, t.line);
		st->e = e;
		st->size = size;
		accept_end(p);
		return 0;
	}
	if (ls_tok_is(&t, "CONSTRUCTORS")) { /* a.out only; ELF ignores it */
		accept_end(p);
		return 0;
	}
	if (ls_tok_is(&t, "CREATE_OBJECT_SYMBOLS") || ls_tok_is(&t, "INPUT_SECTION_FLAGS"))
		return unsupported(p, t.line, t.text, t.len);
	return parse_input(p, tail, t);
}

/* ---- output section descriptions ---- */

static const char *const sec_types[] = { "NOLOAD", "COPY", "INFO", "DSECT",
					 "OVERLAY", "READONLY" };

/* "(NOLOAD)" and friends; restores the lexer if it is an address. */
static int parse_sec_type(struct parser *p, struct ls_outdesc *os)
{
	struct ls_lexer saved = *p->lx;
	struct ls_token t;
	size_t i;

	if (!peek_op(p, '('))
		return 0;
	next(p, LM_EXPR);
	/* Only a name is consumed before restoring: a rejected character
	 * would print its message twice. */
	if (peek(p, LM_NAME)->kind != LT_NAME) {
		*p->lx = saved;
		return 0;
	}
	t = next(p, LM_NAME);
	for (i = 0; i < sizeof(sec_types) / sizeof(sec_types[0]); i++)
		if (ls_tok_is(&t, sec_types[i]) && peek_op(p, ')')) {
			next(p, LM_EXPR);
			if (i == 0) {
				os->noload = 1;
				return 1;
			}
			/* GNU ld makes COPY, INFO, DSECT and OVERLAY sections
			 * non-allocated; the compiler accepts them only empty
			 * (Linux's `.got.plt (INFO)`, checked by its ASSERT). */
			if (i <= 4) {
				os->info = 1;
				return 1;
			}
			return unsupported(p, t.line, t.text, t.len);
		}
	*p->lx = saved;
	return 0;
}

static int pconst(const struct ls_expr *e, uint64_t *v);

static int parse_fill(struct parser *p, struct ls_outdesc *os)
{
	struct ls_expr *e = parse_expr(p);

	if (!e)
		return -1;
	if (!pconst(e, &os->fill))
		return perr(p, e->line, "fill must be a constant");
	os->has_fill = 1;
	/* GNU ld: a hex fill is the byte string its digits spell; any other
	 * number is a 4-byte big-endian value. */
	os->fill_len = e->kind == LE_NUM && e->hex_digits ?
			       (e->hex_digits + 1) / 2 : 4;
	if (os->fill_len > 4 || os->fill > 0xffffffffu)
		return perr(p, e->line, "fill pattern longer than 4 bytes");
	return 0;
}

static int parse_outsec_tail(struct parser *p, struct ls_outdesc *os)
{
	const struct ls_token *t;

	if (peek_op(p, '>'))
		return unsupported(p, line(p), ">", 1);
	t = peek(p, LM_EXPR);
	if (ls_tok_is(t, "AT") || ls_tok_is(t, "AT>"))
		return unsupported(p, t->line, "AT>", 3);
	while (accept(p, ':')) {
		const char *n = take_name(p, LM_NAME, "a segment name");

		if (!n)
			return -1;
		os->phdrs = arena_grow(p, (void *)os->phdrs, os->nphdrs,
				       sizeof(*os->phdrs));
		os->phdrs[os->nphdrs++] = n;
	}
	if (accept(p, '=') && parse_fill(p, os))
		return -1;
	accept(p, ',');
	return 0;
}

/* Keyword-with-argument items between ':' and '{'. */
static int parse_outsec_attrs(struct parser *p, struct ls_outdesc *os)
{
	for (;;) {
		const struct ls_token *t = peek(p, LM_EXPR);
		struct ls_expr **slot = NULL;
		struct ls_token kw;

		if (ls_tok_is(t, "AT"))
			slot = &os->lma;
		else if (ls_tok_is(t, "ALIGN"))
			slot = &os->align;
		else if (ls_tok_is(t, "SUBALIGN") || ls_tok_is(t, "ONLY_IF_RO") ||
			 ls_tok_is(t, "ONLY_IF_RW") || ls_tok_is(t, "ALIGN_WITH_INPUT"))
			return unsupported(p, t->line, t->text, t->len);
		else
			return 0;
		kw = next(p, LM_EXPR);
		if (*slot)
			return perr(p, kw.line, "duplicate '%.*s' in output section",
				    (int)kw.len, kw.text);
		if (expect(p, '(') || !(*slot = parse_expr(p)) || expect(p, ')'))
			return -1;
	}
}

static int parse_outsec(struct parser *p, tailp *tail, struct ls_token t)
{
	struct ls_outdesc *os = ls_alloc(&p->s->arena, sizeof(*os));
	struct ls_stmt *st;
	tailp body;
	int rc;

	os->name = tok_str(p, &t);
	os->discard = !strcmp(os->name, "/DISCARD/");
	if ((rc = parse_sec_type(p, os)) < 0)
		return -1;
	if (!rc && !peek_op(p, ':')) {
		if (!(os->vma = parse_expr(p)) || parse_sec_type(p, os) < 0)
			return -1;
	}
	if (expect(p, ':') || parse_outsec_attrs(p, os) || expect(p, '{'))
		return -1;
	st = add(p, tail, LS_OUTSEC, t.line);
	st->os = os;
	body = &os->body;
	/* Errors inside the body were reported and skipped already. */
	parse_list(p, CTX_BODY, &body, 1);
	if (expect(p, '}'))
		return -1;
	return parse_outsec_tail(p, os);
}

/* ---- PHDRS ---- */

static const struct {
	const char *name;
	uint32_t type;
} pt_names[] = {
	{ "PT_NULL", 0 },
	{ "PT_LOAD", 1 },
	{ "PT_DYNAMIC", 2 },
	{ "PT_INTERP", 3 },
	{ "PT_NOTE", 4 },
	{ "PT_SHLIB", 5 },
	{ "PT_PHDR", 6 },
	{ "PT_TLS", 7 },
	{ "PT_GNU_EH_FRAME", 0x6474e550 },
	{ "PT_GNU_STACK", 0x6474e551 },
	{ "PT_GNU_RELRO", 0x6474e552 },
	{ "PT_GNU_PROPERTY", 0x6474e553 },
	{ "PT_OPENBSD_MUTABLE", 0x65a3dbe5 },
	{ "PT_OPENBSD_RANDOMIZE", 0x65a3dbe6 },
	{ "PT_OPENBSD_WXNEEDED", 0x65a3dbe7 },
	{ "PT_OPENBSD_NOBTCFI", 0x65a3dbe8 },
	{ "PT_OPENBSD_SYSCALLS", 0x65a3dbe9 },
	{ "PT_OPENBSD_BOOTDATA", 0x65a41be6 },
};

/* Numbers and operators only: PHDRS values need no symbols. */
static int pconst(const struct ls_expr *e, uint64_t *v)
{
	uint64_t a, b, x;

	switch (e->kind) {
	case LE_NUM:
		*v = e->num;
		return 1;
	case LE_UN:
		if (!pconst(e->a, &a))
			return 0;
		*v = e->op == LK_E_NEG ? -a : e->op == LK_E_NOT ? ~a : !a;
		return 1;
	case LE_BIN:
		if (!pconst(e->a, &a) || !pconst(e->b, &b) ||
		    ((e->op == LK_E_DIV || e->op == LK_E_MOD) && !b))
			return 0;
		*v = ls_fold_bin(e->op, a, b);
		return 1;
	case LE_COND:
		if (!pconst(e->c, &x) || !pconst(e->a, &a) || !pconst(e->b, &b))
			return 0;
		*v = x ? a : b;
		return 1;
	default:
		return 0;
	}
}

static int const_u32(struct parser *p, const char *what, uint32_t *out)
{
	struct ls_expr *e = parse_expr(p);
	uint64_t v;

	if (!e)
		return -1;
	if (!pconst(e, &v) || v > 0xffffffffu)
		return perr(p, e->line, "%s must be a constant below 2^32", what);
	*out = (uint32_t)v;
	return 0;
}

static int parse_phdr_type(struct parser *p, struct ls_phdesc *ph)
{
	const struct ls_token *t = peek(p, LM_EXPR);
	size_t i;

	if (t->kind != LT_NAME)
		return const_u32(p, "segment type", &ph->type);
	for (i = 0; i < sizeof(pt_names) / sizeof(pt_names[0]); i++)
		if (ls_tok_is(t, pt_names[i].name)) {
			ph->type = pt_names[i].type;
			next(p, LM_EXPR);
			return 0;
		}
	return perr(p, t->line, "unknown segment type '%.*s'", (int)t->len,
		    t->text);
}

static int parse_phdr(struct parser *p)
{
	struct ls_phdesc ph = { 0 };
	int i;

	ph.line = line(p);
	ph.file = p->lx->file;
	if (!(ph.name = take_name(p, LM_NAME, "a segment name")) ||
	    parse_phdr_type(p, &ph))
		return -1;
	for (;;) {
		const struct ls_token *t = peek(p, LM_EXPR);

		if (ls_tok_is(t, "FILEHDR")) {
			ph.filehdr = 1;
		} else if (ls_tok_is(t, "PHDRS")) {
			ph.phdrs = 1;
		} else if (ls_tok_is(t, "FLAGS")) {
			next(p, LM_EXPR);
			if (expect(p, '(') || const_u32(p, "FLAGS", &ph.flags) ||
			    expect(p, ')'))
				return -1;
			ph.has_flags = 1;
			continue;
		} else if (t->kind == LT_NAME) {
			return unsupported(p, t->line, t->text, t->len);
		} else {
			break;
		}
		next(p, LM_EXPR);
	}
	if (expect(p, ';'))
		return -1;
	for (i = 0; i < p->s->nphdrs; i++)
		if (!strcmp(p->s->phdrs[i].name, ph.name))
			return perr(p, ph.line, "duplicate segment '%s'", ph.name);
	if (p->s->nphdrs >= LS_MAX_PHDRS)
		return perr(p, ph.line, "too many PHDRS entries (max %d)",
			    LS_MAX_PHDRS);
	p->s->phdrs[p->s->nphdrs++] = ph;
	return 0;
}

static void sync(struct parser *p);

static int parse_phdrs(struct parser *p)
{

	if (expect(p, '{'))
		return -1;
	p->s->has_phdrs = 1;
	while (!peek_op(p, '}') && peek(p, LM_EXPR)->kind != LT_EOF) {
		if (parse_phdr(p))
			sync(p);
	}
	return expect(p, '}');
}

/* ---- top level ---- */

static int parse_paren_names(struct parser *p, int mode, int max,
			     const char **first)
{
	int n = 0;

	if (expect(p, '('))
		return -1;
	do {
		const char *s = take_name(p, mode, "a name");

		if (!s)
			return -1;
		if (!n && first)
			*first = s;
		if (++n > max)
			return perr(p, line(p), "too many arguments");
	} while (accept(p, ','));
	if (expect(p, ')'))
		return -1;
	accept_end(p);
	return 0;
}

static int parse_top_stmt(struct parser *p, int ctx, tailp *tail)
{
	const struct ls_token *pk = peek(p, LM_NAME);
	struct ls_token t;
	int rc;

	if (pk->kind != LT_NAME && pk->kind != LT_STR)
		return expected(p, LM_NAME, "a statement");
	t = next(p, LM_NAME);
	if ((rc = parse_common(p, ctx, tail, &t)) <= 0)
		return rc;
	if (ls_tok_is(&t, "ENTRY"))
		return parse_paren_names(p, LM_NAME, 1, &p->s->entry);
	if (ctx == CTX_TOP) {
		if (ls_tok_is(&t, "OUTPUT_FORMAT"))
			return parse_paren_names(p, LM_NAME, 3, NULL);
		if (ls_tok_is(&t, "OUTPUT_ARCH"))
			return parse_paren_names(p, LM_PATTERN, 1, NULL);
		if (ls_tok_is(&t, "PHDRS"))
			return parse_phdrs(p);
		if (ls_tok_is(&t, "SECTIONS")) {
			if (expect(p, '{'))
				return -1;
			parse_list(p, CTX_SECTIONS, tail, 1);
			return expect(p, '}');
		}
		return unsupported(p, t.line, t.text, t.len);
	}
	if (ls_tok_is(&t, "OVERLAY") || ls_tok_is(&t, "INSERT"))
		return unsupported(p, t.line, t.text, t.len);
	return parse_outsec(p, tail, t);
}

/* Skips to the end of the broken statement: past ';', or past a balanced
 * {...} and its ":phdr =fill" tail, stopping before an unmatched '}'. */
static void sync(struct parser *p)
{
	int depth = 0;

	for (;;) {
		const struct ls_token *t = peek(p, LM_PATTERN);

		if (t->kind == LT_EOF)
			return;
		if (t->kind == LT_OP && t->op == '}' && !depth)
			return;
		next(p, LM_PATTERN);
		if (t->kind != LT_OP)
			continue;
		if (t->op == ';' && !depth)
			return;
		if (t->op == '{')
			depth++;
		if (t->op == '}' && !--depth)
			break;
	}
	while (peek_op(p, ':') || peek_op(p, '=')) {
		next(p, LM_EXPR);
		if (peek(p, LM_EXPR)->kind != LT_EOF)
			next(p, LM_EXPR);
	}
}

static int parse_list(struct parser *p, int ctx, tailp *tail, int braced)
{
	int rc = 0;

	for (;;) {
		const struct ls_token *t = peek(p, LM_PATTERN);

		if (t->kind == LT_EOF)
			return rc;
		if (t->kind == LT_OP && t->op == ';') {
			next(p, LM_PATTERN);
			continue;
		}
		if (t->kind == LT_OP && t->op == '}') {
			if (braced)
				return rc;
			perr(p, t->line, "unexpected '}'");
			next(p, LM_PATTERN);
			rc = -1;
			continue;
		}
		if ((ctx == CTX_BODY ? parse_body_stmt(p, tail)
				     : parse_top_stmt(p, ctx, tail))) {
			rc = -1;
			sync(p);
		}
	}
}

static struct ls_script *parse_text(const char *name, const char *text,
				    size_t size)
{
	struct ls_script *s = calloc(1, sizeof(*s));
	struct ls_lexer lx;
	struct parser p = { 0 };
	tailp tail;

	if (!s)
		return NULL;
	s->name = ls_strndup(&s->arena, name, strlen(name));
	p.s = s;
	p.lx = &lx;
	ls_lex_init(&lx, s->name, ls_strndup(&s->arena, text, size), size,
		    &p.errors);
	tail = &s->stmts;
	parse_list(&p, CTX_TOP, &tail, 0);
	next(&p, LM_EXPR);
	if (p.errors) {
		ls_free(s);
		return NULL;
	}
	return s;
}

struct ls_script *ls_parse_string(const char *name, const char *text)
{
	return parse_text(name, text, strlen(text));
}

struct ls_script *ls_parse_file(const char *path)
{
	size_t size;
	int err, errors = 0;
	char *text = read_all(path, &size, &err);
	struct ls_script *s;

	if (!text) {
		ls_error(&errors, path, 0, "cannot read: %s", strerror(err));
		return NULL;
	}
	if (memchr(text, 0, size)) {
		ls_error(&errors, path, 1, "file contains a NUL byte");
		free(text);
		return NULL;
	}
	s = parse_text(path, text, size);
	free(text);
	return s;
}

void ls_free(struct ls_script *s)
{
	if (!s)
		return;
	ls_arena_free(&s->arena);
	free(s);
}

const char *ls_entry(const struct ls_script *s)
{
	return s->entry;
}
