/* Policy file parser (format: docs/CONVENTIONS.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb.h"
#include "../linkkit/proto/proto.h"

#define MAX_WORDS 8

static int split_words(char *line, char **w)
{
	int n = 0;
	char *s = line;

	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		if (*s == '\0' || *s == '#')
			return n;
		if (n == MAX_WORDS)
			return -1;
		w[n++] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '#')
			s++;
		if (*s == '#') {
			*s = '\0';
			return n;
		}
		if (*s)
			*s++ = '\0';
	}
}

/* Unsigned number, decimal or 0x-hex, nothing trailing. */
static int parse_num(const char *s, uint64_t *out)
{
	char *end;

	if (*s == '-' || *s == '\0')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 0);
	return (errno || *end) ? -1 : 0;
}

static void push(char ***v, size_t *n, const char *s)
{
	*v = kb_xgrow(*v, *n, sizeof(**v));
	(*v)[(*n)++] = kb_xstrdup(s);
}

static int parse_gap(struct kb_policy *p, char **w, int n, const char **err)
{
	struct kb_gap g = { 0 };
	uint64_t fill;

	if (n < 4 || n > 6) {
		*err = "gap wants: gap SECTION MAX STEP [FILL [SYMBOL]]";
		return -1;
	}
	if (parse_num(w[2], &g.max) || parse_num(w[3], &g.step)) {
		*err = "gap: MAX and STEP must be unsigned numbers";
		return -1;
	}
	if (g.step == 0 || (g.step & (g.step - 1))) {
		*err = "gap: STEP must be a power of two";
		return -1;
	}
	if (g.max == 0) {
		*err = "gap: MAX must be at least 1";
		return -1;
	}
	g.fill = -1;
	if (n >= 5) {
		if (parse_num(w[4], &fill) || fill > 255) {
			*err = "gap: FILL must be a byte (0..255)";
			return -1;
		}
		g.fill = (int)fill;
	}
	g.section = kb_xstrdup(w[1]);
	g.sym = n == 6 ? kb_xstrdup(w[5]) : NULL;
	p->gaps = kb_xgrow(p->gaps, p->ngaps, sizeof(*p->gaps));
	p->gaps[p->ngaps++] = g;
	return 0;
}

static int parse_line(struct kb_policy *p, char **w, int n, const char **err)
{
	const char *k = w[0];

	if (!strcmp(k, "protocol") && n == 2) {
		const struct lk_proto *pr = lk_proto_by_name(w[1], strlen(w[1]));
		static char why[128];

		if (!pr) {
			lk_proto_list(why + 17, sizeof(why) - 17);
			memcpy(why, "protocol must be ", 17);
			*err = why;
			return -1;
		}
		p->protocol = pr->id;
	} else if (!strcmp(k, "granularity") && n == 2) {
		if (!strcmp(w[1], "object"))
			p->per_section = 0;
		else if (!strcmp(w[1], "section"))
			p->per_section = 1;
		else {
			*err = "granularity must be object or section";
			return -1;
		}
	} else if (!strcmp(k, "pin") && n >= 2) {
		for (int i = 1; i < n; i++)
			push(&p->pins, &p->npins, w[i]);
	} else if (!strcmp(k, "keep-order") && n >= 2) {
		for (int i = 1; i < n; i++)
			push(&p->keep, &p->nkeep, w[i]);
	} else if (!strcmp(k, "random-fill") && n >= 2) {
		for (int i = 1; i < n; i++)
			push(&p->rfill, &p->nrfill, w[i]);
	} else if (!strcmp(k, "linker") && n == 2) {
		if (strcmp(w[1], "lld") && strcmp(w[1], "bfd")) {
			*err = "linker must be lld or bfd";
			return -1;
		}
		p->lld = !strcmp(w[1], "lld");
	} else if (!strcmp(k, "sort-tables") && n == 2) {
		if (strcmp(w[1], "linux")) {
			*err = "sort-tables must be linux";
			return -1;
		}
		p->sort_linux = 1;
	} else if (!strcmp(k, "build-id") && n == 1) {
		p->build_id = 1;
	} else if (!strcmp(k, "gap")) {
		return parse_gap(p, w, n, err);
	} else if (!strcmp(k, "random-base") && n == 4) {
		if (parse_num(w[1], &p->base_step) || parse_num(w[2], &p->base_limit) ||
		    p->base_step < 4096 || (p->base_step & (p->base_step - 1))) {
			*err = "random-base wants: random-base STEP LIMIT SYMBOL (STEP a power "
			       "of two, at least 4096)";
			return -1;
		}
		free(p->base_sym);
		p->base_sym = kb_xstrdup(w[3]);
	} else if (!strcmp(k, "protocol") || !strcmp(k, "granularity") ||
		   !strcmp(k, "pin") || !strcmp(k, "keep-order") ||
		   !strcmp(k, "random-fill") || !strcmp(k, "linker") ||
		   !strcmp(k, "sort-tables") || !strcmp(k, "build-id") ||
		   !strcmp(k, "random-base")) {
		*err = "wrong number of arguments";
		return -1;
	} else {
		*err = "unknown keyword";
		return -1;
	}
	return 0;
}

int kb_policy_parse(const char *path, const char *text, struct kb_policy *p)
{
	char *copy = kb_xstrdup(text), *line = copy, *next;
	int lineno = 0, bad = 0;

	memset(p, 0, sizeof(*p));
	p->protocol = LK_PROTO_MULTIBOOT2;
	for (; line; line = next) {
		char *w[MAX_WORDS];
		const char *err = NULL;
		int n;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		n = split_words(line, w);
		if (n < 0)
			err = "too many words";
		else if (n == 0)
			continue;
		if (err || parse_line(p, w, n, &err)) {
			fprintf(stderr, "%s:%d: %s\n", path, lineno, err);
			bad = 1;
		}
	}
	free(copy);
	return bad ? -1 : 0;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void kb_policy_free(struct kb_policy *p)
{
	free_list(p->pins, p->npins);
	free_list(p->keep, p->nkeep);
	free_list(p->rfill, p->nrfill);
	for (size_t i = 0; i < p->ngaps; i++) {
		free(p->gaps[i].section);
		free(p->gaps[i].sym);
	}
	free(p->gaps);
	free(p->base_sym);
	memset(p, 0, sizeof(*p));
}
