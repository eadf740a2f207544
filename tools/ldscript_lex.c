/* Context-dependent tokenizer for GNU ld scripts (see ldscript_int.h). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ldscript_int.h"

void ls_lex_init(struct ls_lexer *lx, const char *file, const char *src,
		 size_t size, int *errors)
{
	memset(lx, 0, sizeof(*lx));
	lx->file = file;
	lx->src = src;
	lx->size = size;
	lx->line = 1;
	lx->errors = errors;
}

/* Diagnostics wait until the token is consumed: the parser may peek the
 * same bytes in several modes and each message must appear once. */
static void lex_bad(struct ls_lexer *lx, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void lex_bad(struct ls_lexer *lx, int line, const char *fmt, ...)
{
	va_list ap;

	if (lx->bad_msg[0])
		return;
	va_start(ap, fmt);
	vsnprintf(lx->bad_msg, sizeof(lx->bad_msg), fmt, ap);
	va_end(ap);
	lx->bad_line = line;
}

static int at(const struct ls_lexer *lx, size_t i)
{
	return i < lx->size ? (unsigned char)lx->src[i] : 0;
}

/* Skips blanks and comments from *pos; counts lines into *line. */
static void skip_space(struct ls_lexer *lx, size_t *pos, int *line)
{
	for (;;) {
		int c = at(lx, *pos);

		if (*pos >= lx->size)
			return;
		if (c == '\n') {
			(*line)++;
			(*pos)++;
		} else if (isspace(c)) {
			(*pos)++;
		} else if (c == '/' && at(lx, *pos + 1) == '*') {
			int start = *line;

			*pos += 2;
			while (*pos < lx->size &&
			       !(at(lx, *pos) == '*' && at(lx, *pos + 1) == '/')) {
				if (at(lx, *pos) == '\n')
					(*line)++;
				(*pos)++;
			}
			if (*pos >= lx->size) {
				lex_bad(lx, start,
					 "unterminated comment");
				return;
			}
			*pos += 2;
		} else {
			return;
		}
	}
}

static int expr_first(int c)
{
	return isalpha(c) || c == '_' || c == '.' || c == '$';
}

static int expr_rest(int c)
{
	return expr_first(c) || isdigit(c);
}

/* Name characters beyond the expression ones, by mode. An operator
 * character followed by '=' ends the name so "x/=2" still parses. */
static int name_char(const struct ls_lexer *lx, size_t i, int mode)
{
	int c = at(lx, i), n = at(lx, i + 1);

	if (i >= lx->size)
		return 0;
	if (expr_rest(c))
		return 1;
	if (c == '/' && n == '*')
		return 0;
	if (c && strchr("/-+*^!", c) && n == '=')
		return 0;
	if (mode == LM_NAME)
		return c == '/' || c == '-' || c == '\\' || c == '~';
	return c && strchr("/-\\~*?[]^!+:@%", c);
}

static const struct {
	const char *s;
	int op;
} ops[] = {
	{ "<<=", LO_SHLEQ }, { ">>=", LO_SHREQ }, { "<<", LO_SHL },
	{ ">>", LO_SHR },    { "<=", LO_LE },     { ">=", LO_GE },
	{ "==", LO_EQ },     { "!=", LO_NE },     { "&&", LO_LAND },
	{ "||", LO_LOR },    { "+=", LO_ADDEQ },  { "-=", LO_SUBEQ },
	{ "*=", LO_MULEQ },  { "/=", LO_DIVEQ },  { "&=", LO_ANDEQ },
	{ "|=", LO_OREQ },
};

static int lex_op(struct ls_lexer *lx, size_t pos, struct ls_token *t)
{
	size_t i;
	int c = at(lx, pos);

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].s);

		if (pos + n <= lx->size && !memcmp(lx->src + pos, ops[i].s, n)) {
			t->kind = LT_OP;
			t->op = ops[i].op;
			t->len = n;
			return 1;
		}
	}
	if (c && strchr("+-*/%&|^~!<>=?:(){};,", c)) {
		t->kind = LT_OP;
		t->op = c;
		t->len = 1;
		return 1;
	}
	return 0;
}

static int digit_val(int c)
{
	if (isdigit(c))
		return c - '0';
	if (isxdigit(c))
		return tolower(c) - 'a' + 10;
	return 99;
}

/* Numbers: 0x hex, leading 0 octal, decimal; K or M suffix (x1024). */
static void lex_num(struct ls_lexer *lx, size_t pos, struct ls_token *t)
{
	size_t i = pos;
	unsigned base = 10;
	uint64_t v = 0;
	int over = 0, digits = 0;

	if (at(lx, i) == '0' && tolower(at(lx, i + 1)) == 'x') {
		base = 16;
		i += 2;
	} else if (at(lx, i) == '0') {
		base = 8;
	}
	while (i < lx->size && isxdigit(at(lx, i)) &&
	       digit_val(at(lx, i)) < (int)base) {
		uint64_t d = digit_val(at(lx, i));

		if (v > (UINT64_MAX - d) / base)
			over = 1;
		v = v * base + d;
		digits++;
		i++;
	}
	t->hex_digits = base == 16 ? digits : 0;
	if (strchr("KkMm", at(lx, i)) && at(lx, i)) {
		int sh = tolower(at(lx, i)) == 'k' ? 10 : 20;

		if (v >> (64 - sh))
			over = 1;
		v <<= sh;
		t->hex_digits = 0;
		i++;
	}
	t->kind = LT_NUM;
	t->num = v;
	t->len = i - pos;
	if (expr_rest(at(lx, i)) || (base == 16 && !digits)) {
		while (expr_rest(at(lx, i)))
			i++;
		t->len = i - pos;
		t->kind = LT_BAD;
		lex_bad(lx, t->line, "bad number '%.*s'",
			 (int)t->len, lx->src + pos);
	} else if (over) {
		t->kind = LT_BAD;
		lex_bad(lx, t->line,
			 "number '%.*s' does not fit in 64 bits", (int)t->len,
			 lx->src + pos);
	}
}

static void lex_str(struct ls_lexer *lx, size_t pos, struct ls_token *t,
		    int *line)
{
	size_t i = pos + 1;

	while (i < lx->size && lx->src[i] != '"' && lx->src[i] != '\n')
		i++;
	if (i >= lx->size || lx->src[i] != '"') {
		lex_bad(lx, t->line, "unterminated string");
		t->kind = LT_BAD;
		t->len = i - pos;
		return;
	}
	t->kind = LT_STR;
	t->text = lx->src + pos + 1;
	t->len = i - pos - 1;
	(void)line;
	/* t->len covers the contents; the caller skips both quotes. */
}

static void lex_one(struct ls_lexer *lx, int mode)
{
	struct ls_token *t = &lx->peek;
	size_t pos = lx->pos;
	int line = lx->line, c;

	lx->bad_msg[0] = 0;
	skip_space(lx, &pos, &line);
	memset(t, 0, sizeof(*t));
	t->line = line;
	t->text = lx->src + pos;
	c = at(lx, pos);
	if (pos >= lx->size) {
		t->kind = LT_EOF;
	} else if (c == '"') {
		lex_str(lx, pos, t, &line);
		lx->peek_end = pos + t->len + (t->kind == LT_STR ? 2 : 0);
		lx->peek_end_line = line;
		return;
	} else if (isdigit(c) && mode == LM_EXPR) {
		lex_num(lx, pos, t);
	} else if (expr_first(c) || (mode != LM_EXPR && name_char(lx, pos, mode))) {
		size_t i = pos + 1;

		while (mode == LM_EXPR ? expr_rest(at(lx, i)) : name_char(lx, i, mode))
			i++;
		t->kind = LT_NAME;
		t->len = i - pos;
	} else if (!lex_op(lx, pos, t)) {
		t->kind = LT_BAD;
		t->len = 1;
		if (isprint(c))
			lex_bad(lx, line,
				 "unexpected character '%c'", c);
		else
			lex_bad(lx, line,
				 "unexpected character 0x%02x", c);
	}
	lx->peek_end = pos + t->len;
	lx->peek_end_line = line;
}

const struct ls_token *ls_lex_peek(struct ls_lexer *lx, int mode)
{
	if (!lx->have_peek || lx->peek_mode != mode) {
		lex_one(lx, mode);
		lx->have_peek = 1;
		lx->peek_mode = mode;
	}
	return &lx->peek;
}

struct ls_token ls_lex_next(struct ls_lexer *lx, int mode)
{
	struct ls_token t = *ls_lex_peek(lx, mode);

	lx->pos = lx->peek_end;
	lx->line = lx->peek_end_line;
	lx->have_peek = 0;
	if (lx->bad_msg[0]) {
		ls_error(lx->errors, lx->file, lx->bad_line, "%s", lx->bad_msg);
		lx->bad_msg[0] = 0;
	}
	return t;
}

void ls_tok_describe(const struct ls_token *t, char *buf, size_t n)
{
	if (t->kind == LT_EOF)
		snprintf(buf, n, "end of file");
	else if (t->kind == LT_STR)
		snprintf(buf, n, "\"%.*s\"", (int)(t->len > 40 ? 40 : t->len),
			 t->text);
	else if (t->kind == LT_BAD && t->len == 1 && !isprint((unsigned char)*t->text))
		snprintf(buf, n, "0x%02x", (unsigned char)*t->text);
	else
		snprintf(buf, n, "'%.*s'", (int)(t->len > 40 ? 40 : t->len),
			 t->text);
}

int ls_tok_is(const struct ls_token *t, const char *word)
{
	size_t n = strlen(word);

	return t->kind == LT_NAME && t->len == n && !memcmp(t->text, word, n);
}
