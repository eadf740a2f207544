/* Arena, diagnostics and glob matching for the linker-script parser. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldscript_int.h"

struct ls_arena_blk {
	struct ls_arena_blk *next;
	size_t used, cap;
	max_align_t data[];
};

#define LS_ARENA_BLOCK 65536

void *ls_alloc(struct ls_arena *a, size_t n)
{
	struct ls_arena_blk *b = a->head;
	size_t cap;
	void *p;

	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (!b || b->cap - b->used < n) {
		/* A host tool: running out of memory is not a recoverable
		 * input error, so stop loudly rather than thread NULL
		 * through the AST. */
		cap = n > LS_ARENA_BLOCK ? n : LS_ARENA_BLOCK;
		b = calloc(1, sizeof(*b) + cap);
		if (!b) {
			fputs("ldscript: out of memory\n", stderr);
			abort();
		}
		b->cap = cap;
		b->next = a->head;
		a->head = b;
	}
	p = (char *)b->data + b->used;
	b->used += n;
	return p;
}

char *ls_strndup(struct ls_arena *a, const char *s, size_t n)
{
	char *p = ls_alloc(a, n + 1);

	memcpy(p, s, n);
	return p;
}

void ls_arena_free(struct ls_arena *a)
{
	while (a->head) {
		struct ls_arena_blk *n = a->head->next;

		free(a->head);
		a->head = n;
	}
}

/* One binary operator on 64-bit unsigned values; b != 0 for DIV/MOD. */
uint64_t ls_fold_bin(int op, uint64_t a, uint64_t b)
{
	switch (op) {
	case LK_E_ADD: return a + b;
	case LK_E_SUB: return a - b;
	case LK_E_MUL: return a * b;
	case LK_E_DIV: return a / b;
	case LK_E_MOD: return a % b;
	case LK_E_AND: return a & b;
	case LK_E_OR: return a | b;
	case LK_E_XOR: return a ^ b;
	case LK_E_SHL: return b >= 64 ? 0 : a << b;
	case LK_E_SHR: return b >= 64 ? 0 : a >> b;
	case LK_E_LT: return a < b;
	case LK_E_LE: return a <= b;
	case LK_E_GT: return a > b;
	case LK_E_GE: return a >= b;
	case LK_E_EQ: return a == b;
	case LK_E_NE: return a != b;
	case LK_E_LAND: return a && b;
	case LK_E_LOR: return a || b;
	case LK_E_MAX: return a > b ? a : b;
	default: return a < b ? a : b; /* LK_E_MIN */
	}
}

static ls_diag_fn diag_fn;
static void *diag_ctx;

void ls_set_diag(ls_diag_fn fn, void *ctx)
{
	diag_fn = fn;
	diag_ctx = ctx;
}

#define LS_MAX_ERRORS 100

void ls_error(int *errors, const char *file, int line, const char *fmt, ...)
{
	char msg[512];
	char full[768];
	va_list ap;

	/* Garbage input must not flood the terminal with a line per byte. */
	if (++*errors > LS_MAX_ERRORS) {
		if (*errors == LS_MAX_ERRORS + 1)
			snprintf(full, sizeof(full), "%s: too many errors, giving up",
				 file);
		else
			return;
	} else {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		snprintf(full, sizeof(full), "%s:%d: %s", file, line, msg);
	}
	if (diag_fn)
		diag_fn(diag_ctx, full);
	else
		fprintf(stderr, "%s\n", full);
}

static int glob_class(const char **pp, char c)
{
	const char *p = *pp + 1;
	int neg = 0, hit = 0;

	if (*p == '!' || *p == '^') {
		neg = 1;
		p++;
	}
	/* A ']' right after '[' is a member, as in fnmatch. */
	do {
		if (!*p)
			return -1; /* unterminated: treat '[' literally */
		if (p[1] == '-' && p[2] && p[2] != ']') {
			if ((unsigned char)c >= (unsigned char)p[0] &&
			    (unsigned char)c <= (unsigned char)p[2])
				hit = 1;
			p += 3;
		} else {
			if (c == *p)
				hit = 1;
			p++;
		}
	} while (*p != ']');
	*pp = p + 1;
	return hit != neg;
}

int ls_glob(const char *pat, const char *s)
{
	const char *star_p = NULL, *star_s = NULL;

	/* Iterative with one backtrack point: linear-ish, no recursion, so
	 * hostile patterns cannot blow the stack. */
	while (*s) {
		if (*pat == '*') {
			star_p = ++pat;
			star_s = s;
			continue;
		}
		if (*pat == '[') {
			const char *p = pat;
			int r = glob_class(&p, *s);

			if (r == 1) {
				pat = p;
				s++;
				continue;
			}
			if (r < 0 && *s == '[') {
				pat++;
				s++;
				continue;
			}
		} else if (*pat && (*pat == '?' || *pat == *s)) {
			pat++;
			s++;
			continue;
		}
		if (!star_p)
			return 0;
		pat = star_p;
		s = ++star_s;
	}
	while (*pat == '*')
		pat++;
	return *pat == 0;
}
