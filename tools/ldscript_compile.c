/*
 * Compiles a parsed script against the kit's input sections: decides the
 * slot of every input section (first matching description wins, as in GNU
 * ld), derives output section and segment attributes, and emits the plan
 * as postfix stack-machine ops (kit_format.h).
 */
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldscript_int.h"


#define NO_OUTSEC UINT32_MAX

/* String -> index hash map, so hostile scripts with many names stay
 * linear. Keys are borrowed from the AST. */
struct ls_map {
	const char **keys;
	uint32_t *vals;
	size_t cap, n;
};

static size_t map_hash(const char *s)
{
	size_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static size_t map_slot(const struct ls_map *m, const char *k)
{
	size_t i = map_hash(k) & (m->cap - 1);

	while (m->keys[i] && strcmp(m->keys[i], k))
		i = (i + 1) & (m->cap - 1);
	return i;
}

static const uint32_t *map_get(const struct ls_map *m, const char *k)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = map_slot(m, k);
	return m->keys[i] ? &m->vals[i] : NULL;
}

static void *xcalloc(size_t n, size_t size);

/* Keeps the first value stored for a key. */
static void map_add(struct ls_map *m, const char *k, uint32_t v)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap) {
		struct ls_map old = *m;

		m->cap = m->cap ? 2 * m->cap : 64;
		m->keys = xcalloc(m->cap, sizeof(*m->keys));
		m->vals = xcalloc(m->cap, sizeof(*m->vals));
		m->n = 0;
		for (i = 0; i < old.cap; i++)
			if (old.keys[i])
				map_add(m, old.keys[i], old.vals[i]);
		free(old.keys);
		free(old.vals);
	}
	i = map_slot(m, k);
	if (!m->keys[i]) {
		m->keys[i] = k;
		m->vals[i] = v;
		m->n++;
	}
}

static void map_free(struct ls_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

struct desc {
	const struct ls_indesc *in;
	const struct ls_outdesc *os;
	uint32_t slot;   /* or LS_DISCARD */
	uint32_t outsec; /* or NO_OUTSEC */
};

struct osstat {
	int progbits; /* a matched input or data statement has contents */
	int nobits;   /* a NOBITS input matched */
	uint32_t ninputs;
	uint64_t flags, align;
};

struct cc {
	const struct ls_script *s;
	const struct ls_input *in;
	size_t nin;
	const struct ls_callbacks *cb;
	struct ls_compiled *out;
	int errors;
	const struct ls_outdesc **os; /* by outsec index */
	struct desc *descs;
	size_t ndescs;
	struct osstat *st;
	size_t cap_ops;
	struct ls_map assigned; /* names assigned so far, for DEFINED() */
	struct ls_map osmap;    /* output section name -> index */
	size_t next_desc;       /* emission's position in descs */
	uint32_t cur; /* outsec being emitted, NO_OUTSEC outside */
	int sp, sp_err; /* plan stack depth while emitting one statement */
	uint8_t *begun, *ended; /* per outsec: S_SECTION / END emitted */
	const struct ls_stmt **deferred; /* emitted after everything else */
	size_t ndeferred;
	struct ls_map late; /* symbols whose assignment was deferred */
	uint32_t *def_mask; /* per outsec, segments made without PHDRS */
	int final; /* emitting the deferred statements */
	const struct ls_outdesc *heading; /* emitting this section's AT() */
	const char *file;
	int line;
};

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		fputs("ldscript: out of memory\n", stderr);
		abort();
	}
	return p;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fputs("ldscript: out of memory\n", stderr);
		abort();
	}
	return p;
}

static void cerr(struct cc *c, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void cerr(struct cc *c, const char *file, int line, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ls_error(&c->errors, file, line, "%s", msg);
}

static uint32_t find_outsec(const struct cc *c, const char *name)
{
	const uint32_t *v = map_get(&c->osmap, name);

	return v ? *v : NO_OUTSEC;
}

/* ---- pass 1: output sections, descriptions, segments ---- */

static void index_outsecs(struct cc *c)
{
	const struct ls_stmt *st;
	size_t n = 0;

	for (st = c->s->stmts; st; st = st->next)
		n += st->kind == LS_OUTSEC;
	c->os = xcalloc(n, sizeof(*c->os));
	c->out->outsecs = xcalloc(n, sizeof(*c->out->outsecs));
	c->st = xcalloc(n, sizeof(*c->st));
	for (st = c->s->stmts; st; st = st->next) {
		if (st->kind != LS_OUTSEC || st->os->discard)
			continue;
		if (find_outsec(c, st->os->name) != NO_OUTSEC) {
			cerr(c, st->file, st->line, "duplicate output section '%s'",
			     st->os->name);
			continue;
		}
		map_add(&c->osmap, st->os->name, c->out->noutsecs);
		c->os[c->out->noutsecs++] = st->os;
	}
}

static void add_desc(struct cc *c, const struct ls_stmt *st,
		     const struct ls_outdesc *os, size_t *cap)
{
	struct desc *d;

	if (c->ndescs == *cap) {
		*cap = *cap ? *cap * 2 : 32;
		c->descs = xrealloc(c->descs, *cap * sizeof(*c->descs));
	}
	d = &c->descs[c->ndescs++];
	d->in = st->in;
	d->os = os;
	d->outsec = os->discard ? NO_OUTSEC : find_outsec(c, os->name);
	d->slot = os->discard ? LS_DISCARD : c->out->nslots++;
}

static void index_descs(struct cc *c)
{
	const struct ls_stmt *st, *b;
	size_t cap = 0;

	for (st = c->s->stmts; st; st = st->next) {
		if (st->kind != LS_OUTSEC)
			continue;
		for (b = st->os->body; b; b = b->next) {
			if (b->kind == LS_INPUT)
				add_desc(c, b, st->os, &cap);
			else if (st->os->discard)
				cerr(c, b->file, b->line,
				     "unsupported construct 'statement other than an input description in /DISCARD/'");
		}
	}
	c->out->slots = xcalloc(c->out->nslots, sizeof(*c->out->slots));
}

static void build_phdrs(struct cc *c)
{
	int i;

	c->out->nphdrs = c->s->nphdrs;
	c->out->phdrs = xcalloc(c->s->nphdrs, sizeof(*c->out->phdrs));
	for (i = 0; i < c->s->nphdrs; i++) {
		const struct ls_phdesc *ph = &c->s->phdrs[i];
		struct lk_phdr *o = &c->out->phdrs[i];

		o->name = c->cb->intern(c->cb->ctx, ph->name);
		o->type = ph->type;
		o->flags = ph->flags;
		o->pflags = (ph->filehdr ? LK_PHDR_FILEHDR : 0) |
			    (ph->phdrs ? LK_PHDR_PHDRS : 0) |
			    (ph->has_flags ? LK_PHDR_FLAGS_SET : 0);
	}
}

/* ---- pass 2: matching ---- */

static int any_glob(const char **pats, int n, const char *s)
{
	int i;

	for (i = 0; i < n; i++)
		if (ls_glob(pats[i], s))
			return 1;
	return 0;
}

static int desc_matches(const struct ls_indesc *d, const struct ls_input *in)
{
	int i;

	if (!ls_glob(d->file_pat, in->object) ||
	    any_glob(d->file_excl, d->nfile_excl, in->object))
		return 0;
	for (i = 0; i < d->nsecs; i++)
		if (ls_glob(d->secs[i].pat, in->section) &&
		    !any_glob(d->secs[i].exclude, d->secs[i].nexclude, in->object))
			return 1;
	return 0;
}

static void match_inputs(struct cc *c)
{
	size_t i, j;

	c->out->input_slot = xcalloc(c->nin, sizeof(uint32_t));
	for (i = 0; i < c->nin; i++) {
		const struct ls_input *in = &c->in[i];

		c->out->input_slot[i] = LS_ORPHAN;
		if (!in->object || !in->section)
			continue;
		for (j = 0; j < c->ndescs && !desc_matches(c->descs[j].in, in); j++)
			;
		if (j == c->ndescs)
			continue;
		c->out->input_slot[i] = c->descs[j].slot;
		if (c->descs[j].outsec != NO_OUTSEC) {
			struct osstat *st = &c->st[c->descs[j].outsec];

			st->progbits |= in->sh_type != SHT_NOBITS;
			st->nobits |= in->sh_type == SHT_NOBITS;
			st->ninputs++;
			st->flags |= in->sh_flags &
				     (SHF_ALLOC | SHF_WRITE | SHF_EXECINSTR);
			if (in->align > st->align)
				st->align = in->align;
		}
	}
}

static int body_has_data(const struct ls_outdesc *os)
{
	const struct ls_stmt *b;

	for (b = os->body; b; b = b->next)
		if (b->kind == LS_DATA)
			return 1;
	return 0;
}

/* A section holding only `. +=` or nothing is PROGBITS, as with GNU ld
 * (hence the usual NOLOAD on stacks). */
static int outsec_nobits(const struct cc *c, uint32_t i)
{
	const struct osstat *s = &c->st[i];

	return c->os[i]->noload ||
	       (s->nobits && !s->progbits && !body_has_data(c->os[i]));
}

static int outsec_empty(const struct cc *c, uint32_t idx,
			const struct ls_outdesc *os);

static void add_default_phdr(struct cc *c, uint64_t shf)
{
	struct lk_phdr *ph = &c->out->phdrs[c->out->nphdrs];
	char name[16];

	snprintf(name, sizeof(name), "load%u", c->out->nphdrs++);
	ph->name = c->cb->intern(c->cb->ctx, name);
	ph->type = PT_LOAD;
	ph->flags = PF_R | (shf & SHF_WRITE ? PF_W : 0) |
		    (shf & SHF_EXECINSTR ? PF_X : 0);
	ph->pflags = LK_PHDR_FLAGS_SET;
}

/*
 * Without PHDRS GNU ld makes the segments itself. A simple equivalent:
 * a new PT_LOAD whenever write/execute permission changes or file
 * contents follow NOBITS; empty sections join the current one.
 */
static void default_phdrs(struct cc *c)
{
	uint64_t key, prev = 0;
	int prev_nobits = 0, nob;
	uint32_t i;

	c->def_mask = xcalloc(c->out->noutsecs, sizeof(*c->def_mask));
	c->out->phdrs = xcalloc(LS_MAX_PHDRS, sizeof(*c->out->phdrs));
	for (i = 0; i < c->out->noutsecs; i++) {
		if (outsec_empty(c, i, c->os[i])) {
			c->def_mask[i] = c->out->nphdrs ? 1u << (c->out->nphdrs - 1) : 0;
			continue;
		}
		key = c->st[i].flags & (SHF_WRITE | SHF_EXECINSTR);
		nob = outsec_nobits(c, i);
		if (!c->out->nphdrs || key != prev || (prev_nobits && !nob)) {
			if (c->out->nphdrs == LS_MAX_PHDRS) {
				cerr(c, c->s->name, 0,
				     "more than %d segments needed: use PHDRS",
				     LS_MAX_PHDRS);
				return;
			}
			add_default_phdr(c, key);
		}
		c->def_mask[i] = 1u << (c->out->nphdrs - 1);
		prev = key;
		prev_nobits = nob;
	}
}

static void fill_slots(struct cc *c)
{
	size_t i;
	int k;

	for (i = 0; i < c->ndescs; i++) {
		const struct desc *d = &c->descs[i];
		struct lk_slot *sl;

		if (d->slot == LS_DISCARD || d->outsec == NO_OUTSEC)
			continue;
		sl = &c->out->slots[d->slot];
		sl->outsec = d->outsec;
		for (k = 0; k < d->in->nsecs; k++) {
			const struct ls_secpat *sp = &d->in->secs[k];

			if (sp->sort == LS_SORT_NAME)
				sl->flags |= LK_SLOT_SORT_NAME;
			else if (sp->sort == LS_SORT_ALIGN)
				sl->flags |= LK_SLOT_SORT_ALIGN;
			if (c->cb->slot_flags)
				sl->flags |= c->cb->slot_flags(c->cb->ctx,
							       d->os->name, sp->pat);
		}
	}
}

/* ---- constant folding ---- */

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return a ? (x + a - 1) & ~(a - 1) : x;
}

static int is_defined(struct cc *c, const char *name)
{
	if (map_get(&c->assigned, name))
		return 1;
	return c->cb->defined && c->cb->defined(c->cb->ctx, name);
}

/* 1 and *v when `e` is known at compile time; reports division by zero
 * and bad alignments once, where they are constant. */
static int fold(struct cc *c, const struct ls_expr *e, uint64_t *v)
{
	uint64_t a, b, x;

	switch (e->kind) {
	case LE_NUM: *v = e->num; return 1;
	case LE_HEADERS: *v = c->out->sizeof_headers; return 1;
	case LE_DEFINED: *v = is_defined(c, e->name); return 1;
	case LE_UN:
		if (!fold(c, e->a, &a))
			return 0;
		*v = e->op == LK_E_NEG ? -a : e->op == LK_E_NOT ? ~a : !a;
		return 1;
	case LE_BIN:
		if (!fold(c, e->a, &a) || !fold(c, e->b, &b))
			return 0;
		if ((e->op == LK_E_DIV || e->op == LK_E_MOD) && !b) {
			cerr(c, e->file, e->line, "division by zero");
			b = 1;
		}
		*v = ls_fold_bin(e->op, a, b);
		return 1;
	case LE_COND:
		if (!fold(c, e->c, &x) || !fold(c, e->a, &a) || !fold(c, e->b, &b))
			return 0;
		*v = x ? a : b;
		return 1;
	case LE_ALIGN2:
		if (!fold(c, e->a, &x) || !fold(c, e->b, &a))
			return 0;
		*v = align_up(x, a);
		return 1;
	default:
		return 0;
	}
}

/* ---- emission ---- */

static void emit(struct cc *c, int code, int flags, uint32_t arg, uint64_t imm)
{
	struct lk_op *op;

	if (c->out->nops == c->cap_ops) {
		c->cap_ops = c->cap_ops ? c->cap_ops * 2 : 256;
		c->out->ops = xrealloc(c->out->ops, c->cap_ops * sizeof(*op));
	}
	op = &c->out->ops[c->out->nops++];
	op->code = (lk_u16)code;
	op->flags = (lk_u16)flags;
	op->arg = arg;
	op->imm = imm;
}

/* Pushes and pops tracked so a plan never overflows the boot stack. */
static void push(struct cc *c, int code, uint32_t arg, uint64_t imm)
{
	emit(c, code, 0, arg, imm);
	if (++c->sp > LK_PLAN_STACK_MAX && !c->sp_err) {
		c->sp_err = 1;
		cerr(c, c->file, c->line,
		     "expression needs more than %d plan stack entries",
		     LK_PLAN_STACK_MAX);
	}
}

static void pop_op(struct cc *c, int code, int pops)
{
	emit(c, code, 0, 0, 0);
	c->sp -= pops;
}

static void check_align(struct cc *c, const struct ls_expr *a)
{
	uint64_t v;

	if (fold(c, a, &v) && !is_pow2(v))
		cerr(c, a->file, a->line,
		     "alignment 0x%llx is not a power of two",
		     (unsigned long long)v);
}

static void emit_expr(struct cc *c, const struct ls_expr *e);

/* What an expression needs that is not known yet at this point of the
 * plan: sections laid out later, or symbols not assigned so far (object
 * symbols, or script symbols assigned later or deferred). */
#define FWD_SECTION 1
#define FWD_SYMBOL 2
#define FWD_DOT 4
static int forward_refs(const struct cc *c, const struct ls_expr *e)
{
	uint32_t i;

	if (!e)
		return 0;
	switch (e->kind) {
	case LE_DOT:
	case LE_ALIGN1:
		return FWD_DOT | forward_refs(c, e->a);
	case LE_SECFN:
		i = find_outsec(c, e->name);
		if (i == NO_OUTSEC)
			return 0;
		return (e->op == LK_E_SIZEOF ? !c->ended[i] : !c->begun[i]) ?
			       FWD_SECTION : 0;
	case LE_SYM:
		return !map_get(&c->assigned, e->name) ||
				       map_get(&c->late, e->name) ?
			       FWD_SYMBOL : 0;
	default:
		return forward_refs(c, e->a) | forward_refs(c, e->b) |
		       forward_refs(c, e->c);
	}
}

/*
 * GNU ld gives symbols their values from the final layout, so a symbol
 * assignment may use sections and symbols placed further on. A one-pass
 * plan gets the same result by moving such an assignment (or ASSERT) to
 * the end, as long as it does not read `.`.
 */
static int defer(struct cc *c, const struct ls_stmt *st)
{
	int f;

	if (c->final)
		return 0;
	f = forward_refs(c, st->e);
	if (!(f & (FWD_SECTION | FWD_SYMBOL)) || (f & FWD_DOT))
		return 0;
	c->deferred = xrealloc(c->deferred,
			       (c->ndeferred + 1) * sizeof(*c->deferred));
	c->deferred[c->ndeferred++] = st;
	if (st->kind == LS_ASSIGN)
		map_add(&c->late, st->sym, 0);
	return 1;
}

static void emit_sym(struct cc *c, const struct ls_expr *e)
{
	uint32_t i = c->cb->symbol(c->cb->ctx, e->name, 0, 0);

	if (i == UINT32_MAX)
		cerr(c, e->file, e->line, "symbol '%s' is not defined", e->name);
	else if (!c->final && map_get(&c->late, e->name))
		cerr(c, e->file, e->line,
		     "symbol '%s' is used before its value is known", e->name);
	push(c, LK_E_SYM, i, 0);
}

/*
 * ADDR() of a section inside its own AT(): the operands are evaluated
 * before S_SECTION, so compute the VMA the way the core will: the given
 * address, else `.` aligned to the section's alignment.
 */
static void emit_own_addr(struct cc *c, const struct ls_outdesc *os,
			  uint32_t idx)
{
	const struct ls_outdesc *h = c->heading;

	c->heading = NULL; /* the address expression cannot recurse here */
	if (os->vma) {
		emit_expr(c, os->vma);
	} else {
		push(c, LK_E_CONST, 0, c->st[idx].align ? c->st[idx].align : 1);
		if (os->align) {
			emit_expr(c, os->align);
			pop_op(c, LK_E_MAX, 1);
		}
		pop_op(c, LK_E_ALIGN, 0);
	}
	c->heading = h;
}

static void emit_secfn(struct cc *c, const struct ls_expr *e)
{
	static const char *const fn[] = { "ADDR", "LOADADDR", "SIZEOF",
					  "ALIGNOF" };
	uint32_t i = find_outsec(c, e->name);

	if (i != NO_OUTSEC && c->heading && c->heading == c->os[i] &&
	    e->op == LK_E_ADDR) {
		emit_own_addr(c, c->os[i], i);
		return;
	}
	if (i == NO_OUTSEC)
		cerr(c, e->file, e->line, "%s(%s): no such output section",
		     fn[e->op - LK_E_ADDR], e->name);
	else if (!c->final && (e->op == LK_E_SIZEOF ? !c->ended[i] : !c->begun[i]))
		cerr(c, e->file, e->line,
		     "%s(%s) is used before the section is laid out",
		     fn[e->op - LK_E_ADDR], e->name);
	push(c, e->op, i, 0);
}

static void emit_expr(struct cc *c, const struct ls_expr *e)
{
	uint64_t v;

	if (fold(c, e, &v)) {
		if (e->kind == LE_ALIGN2)
			check_align(c, e->b);
		push(c, LK_E_CONST, 0, v);
		return;
	}
	switch (e->kind) {
	case LE_DOT: push(c, LK_E_DOT, 0, 0); return;
	case LE_SYM: emit_sym(c, e); return;
	case LE_SECFN: emit_secfn(c, e); return;
	case LE_ALIGN1:
		check_align(c, e->a);
		emit_expr(c, e->a);
		pop_op(c, LK_E_ALIGN, 0);
		return;
	case LE_ALIGN2:
		check_align(c, e->b);
		emit_expr(c, e->a);
		emit_expr(c, e->b);
		pop_op(c, LK_E_ALIGN2, 1);
		return;
	case LE_UN:
		emit_expr(c, e->a);
		pop_op(c, e->op, 0);
		return;
	case LE_BIN:
		emit_expr(c, e->a);
		emit_expr(c, e->b);
		pop_op(c, e->op, 1);
		return;
	case LE_COND:
		emit_expr(c, e->c);
		emit_expr(c, e->a);
		emit_expr(c, e->b);
		pop_op(c, LK_E_COND, 2);
		return;
	default: /* LE_ASSERT below an assignment's top */
		cerr(c, e->file, e->line,
		     "unsupported construct 'ASSERT inside an expression'");
		push(c, LK_E_CONST, 0, 0);
	}
}

static void begin_stmt(struct cc *c, const struct ls_stmt *st)
{
	c->sp = 0;
	c->sp_err = 0;
	c->file = st->file;
	c->line = st->line;
}

static void note_assigned(struct cc *c, const char *name)
{
	map_add(&c->assigned, name, 0);
}

static void emit_dot_assign(struct cc *c, const struct ls_stmt *st)
{
	uint64_t v;

	if (st->provide) {
		cerr(c, st->file, st->line, "cannot PROVIDE '.'");
		return;
	}
	/* Inside a section GNU ld takes a constant as an offset from the
	 * section start; refuse rather than silently differ. */
	if (c->cur != NO_OUTSEC && !st->op && fold(c, st->e, &v)) {
		cerr(c, st->file, st->line,
		     "unsupported construct '. = CONSTANT' inside an output section");
		return;
	}
	if (st->op)
		push(c, LK_E_DOT, 0, 0);
	emit_expr(c, st->e);
	if (st->op)
		pop_op(c, st->op, 1);
	pop_op(c, LK_S_SET_DOT, 1);
}

static void emit_assign(struct cc *c, const struct ls_stmt *st)
{
	uint32_t i;

	if (!strcmp(st->sym, ".")) {
		emit_dot_assign(c, st);
		return;
	}
	i = c->cb->symbol(c->cb->ctx, st->sym, 1, st->provide != 0);
	if (i == UINT32_MAX) {
		/* PROVIDE of a symbol an object defines or nobody uses. */
		if (!st->provide)
			cerr(c, st->file, st->line, "cannot define symbol '%s'",
			     st->sym);
		return;
	}
	if (!c->final) {
		/* `x = x + 1` reads the old x: decide before noting x. */
		int later = defer(c, st);

		note_assigned(c, st->sym);
		if (later)
			return;
	}
	if (st->op)
		push(c, LK_E_SYM, i, 0);
	emit_expr(c, st->e);
	if (st->op)
		pop_op(c, st->op, 1);
	emit(c, LK_S_ASSIGN, 0, i, 0);
	c->sp--;
}

static void emit_stmts(struct cc *c, const struct ls_stmt *st);

/*
 * GNU ld discards an output section with no input sections, no data and no
 * assignment to `.` (its address still moves `.`, as ld 2.40 does).
 */
static int outsec_empty(const struct cc *c, uint32_t idx,
			const struct ls_outdesc *os)
{
	const struct ls_stmt *b;

	if (c->st[idx].ninputs)
		return 0;
	for (b = os->body; b; b = b->next)
		if (b->kind == LS_DATA ||
		    (b->kind == LS_ASSIGN && !strcmp(b->sym, ".")))
			return 0;
	return 1;
}

/* The operands S_SECTION pops: vma, align, lma in this order. */
static int emit_outsec_operands(struct cc *c, const struct ls_outdesc *os)
{
	int flags = 0;

	if (os->vma) {
		emit_expr(c, os->vma);
		flags |= LK_SEC_VMA;
	}
	if (os->align) {
		check_align(c, os->align);
		emit_expr(c, os->align);
		flags |= LK_SEC_ALIGN;
	}
	if (os->lma) {
		c->heading = os;
		emit_expr(c, os->lma);
		c->heading = NULL;
		flags |= LK_SEC_LMA;
	}
	return flags;
}

static void emit_outsec(struct cc *c, const struct ls_stmt *st)
{
	const struct ls_outdesc *os = st->os;
	uint32_t idx = find_outsec(c, os->name);
	int flags = 0;

	if (os->discard || c->os[idx] != os) {
		/* discarded, or a duplicate already reported */
		const struct ls_stmt *b;

		for (b = os->body; b; b = b->next)
			c->next_desc += b->kind == LS_INPUT;
		return;
	}
	if (os->info && !outsec_empty(c, idx, os))
		cerr(c, st->file, st->line,
		     "output section %s: a non-allocated (INFO) section with input is not supported",
		     os->name);
	flags = emit_outsec_operands(c, os);
	emit(c, LK_S_SECTION, flags, idx, 0);
	c->cur = idx;
	c->begun[idx] = 1;
	emit_stmts(c, os->body);
	emit(c, LK_S_END_SECTION, 0, idx, 0);
	c->ended[idx] = 1;
	c->cur = NO_OUTSEC;
}

static void emit_fill(struct cc *c, const struct ls_stmt *st)
{
	struct lk_outsec *o = &c->out->outsecs[c->cur];
	uint64_t v;

	if (!fold(c, st->e, &v) || v > 0xffffffffu) {
		cerr(c, st->file, st->line, "FILL value must be a 32-bit constant");
		return;
	}
	o->fill = (uint32_t)v;
	o->fill_len = st->e->kind == LE_NUM && st->e->hex_digits &&
			      st->e->hex_digits <= 8 ?
			      (st->e->hex_digits + 1) / 2 : 4;
}

static void emit_stmt(struct cc *c, const struct ls_stmt *st)
{
	begin_stmt(c, st);
	switch (st->kind) {
	case LS_ASSIGN: emit_assign(c, st); break;
	case LS_OUTSEC: emit_outsec(c, st); break;
	case LS_INPUT: {
		/* Emission meets descriptions in the order index_descs did. */
		const struct desc *d = &c->descs[c->next_desc++];

		if (d->slot != LS_DISCARD)
			emit(c, LK_S_SLOT, 0, d->slot, 0);
		break;
	}
	case LS_DATA:
		emit_expr(c, st->e);
		emit(c, LK_S_DATA, 0, (uint32_t)st->size, 0);
		c->st[c->cur].progbits = 1;
		break;
	case LS_FILL: emit_fill(c, st); break;
	case LS_ASSERT:
		if (defer(c, st))
			break;
		emit_expr(c, st->e);
		emit(c, LK_S_ASSERT, 0, 0, c->cb->intern(c->cb->ctx, st->msg));
		break;
	}
}

static void emit_stmts(struct cc *c, const struct ls_stmt *st)
{
	for (; st; st = st->next)
		emit_stmt(c, st);
}

static void emit_deferred(struct cc *c)
{
	size_t i;

	c->final = 1;
	for (i = 0; i < c->ndeferred; i++)
		emit_stmt(c, c->deferred[i]);
}

/* ---- pass 3: output section attributes ---- */

static uint32_t phdr_bit(struct cc *c, const struct ls_stmt *st,
			 const char *name)
{
	int i;

	if (!strcmp(name, "NONE"))
		return 0;
	for (i = 0; i < c->s->nphdrs; i++)
		if (!strcmp(c->s->phdrs[i].name, name))
			return 1u << i;
	cerr(c, st->file, st->line, "section '%s' assigned to unknown segment '%s'",
	     st->os->name, name);
	return 0;
}

/* Does e read a symbol (ld.lld: the section's expressions use symbols)? */
static int expr_uses_symbol(const struct ls_expr *e)
{
	if (!e)
		return 0;
	if (e->kind == LE_SYM)
		return 1;
	return expr_uses_symbol(e->a) || expr_uses_symbol(e->b) ||
	       expr_uses_symbol(e->c);
}

/* Does e name section `name` in ADDR(), LOADADDR() or ALIGNOF()? */
static int expr_names_sec(const struct ls_expr *e, const char *name)
{
	if (!e)
		return 0;
	if (e->kind == LE_SECFN && e->op != LK_E_SIZEOF && !strcmp(e->name, name))
		return 1;
	return expr_names_sec(e->a, name) || expr_names_sec(e->b, name) ||
	       expr_names_sec(e->c, name);
}

static int stmts_name_sec(const struct ls_stmt *st, const char *name)
{
	for (; st; st = st->next) {
		if (st->kind != LS_OUTSEC) {
			if (expr_names_sec(st->e, name))
				return 1;
			continue;
		}
		if (expr_names_sec(st->os->vma, name) ||
		    expr_names_sec(st->os->lma, name) ||
		    expr_names_sec(st->os->align, name) ||
		    stmts_name_sec(st->os->body, name))
			return 1;
	}
	return 0;
}

/*
 * ld.lld (14) keeps an output section without input sections when its
 * address, AT(), ALIGN() or body reads a symbol, when its body has
 * anything but input descriptions (assignments, data, ASSERT; PROVIDE
 * counted as nothing here), or when ADDR/LOADADDR/ALIGNOF name it.
 */
static int lld_keeps(const struct cc *c, const struct ls_outdesc *os)
{
	const struct ls_stmt *b;

	if (expr_uses_symbol(os->vma) || expr_uses_symbol(os->lma) ||
	    expr_uses_symbol(os->align))
		return 1;
	for (b = os->body; b; b = b->next) {
		if (b->kind == LS_INPUT)
			continue;
		if (b->kind == LS_ASSIGN && b->provide)
			continue;
		return 1;
	}
	return stmts_name_sec(c->s->stmts, os->name);
}

static void finish_outsecs(struct cc *c)
{
	const struct ls_stmt *st;
	uint32_t mask = 0;
	int k;

	for (st = c->s->stmts; st; st = st->next) {
		const struct ls_outdesc *os = st->os;
		uint32_t i;
		struct lk_outsec *o;
		struct osstat *s;
		uint64_t a;

		if (st->kind != LS_OUTSEC || os->discard ||
		    c->os[i = find_outsec(c, os->name)] != os)
			continue;
		o = &c->out->outsecs[i];
		s = &c->st[i];
		/* GNU ld: a section without :phdr stays in the previous
		 * section's segments. */
		if (os->nphdrs)
			for (mask = 0, k = 0; k < os->nphdrs; k++)
				mask |= phdr_bit(c, st, os->phdrs[k]);
		o->phdr_mask = c->def_mask ? c->def_mask[i] : mask;
		o->name = c->cb->intern(c->cb->ctx, os->name);
		o->type = outsec_nobits(c, i) ? SHT_NOBITS : SHT_PROGBITS;
		o->flags = s->flags | SHF_ALLOC;
		o->align = s->align ? s->align : 1;
		if (os->align && fold(c, os->align, &a) && is_pow2(a) && a > o->align)
			o->align = a;
		if (os->has_fill) {
			o->fill = (uint32_t)os->fill;
			o->fill_len = (uint32_t)os->fill_len;
		}
		if (c->cb->outsec_flags)
			o->oflags = c->cb->outsec_flags(c->cb->ctx, os->name);
		if (c->cb->lld_empty && !s->ninputs && lld_keeps(c, os))
			o->oflags |= LK_OUTSEC_KEEP_EMPTY;
	}
}

void ls_compiled_free(struct ls_compiled *o)
{
	free(o->input_slot);
	free(o->slots);
	free(o->outsecs);
	free(o->phdrs);
	free(o->ops);
	memset(o, 0, sizeof(*o));
}

int ls_compile(const struct ls_script *s, const struct ls_input *in,
	       size_t nin, const struct ls_callbacks *cb,
	       struct ls_compiled *out)
{
	struct cc c = { 0 };

	memset(out, 0, sizeof(*out));
	c.s = s;
	c.in = in;
	c.nin = nin;
	c.cb = cb;
	c.out = out;
	c.cur = NO_OUTSEC;
	index_outsecs(&c);
	index_descs(&c);
	match_inputs(&c);
	if (s->has_phdrs)
		build_phdrs(&c);
	else
		default_phdrs(&c);
	out->sizeof_headers = 64 + 56 * (uint64_t)out->nphdrs;
	fill_slots(&c);
	c.begun = xcalloc(out->noutsecs, 1);
	c.ended = xcalloc(out->noutsecs, 1);
	emit_stmts(&c, s->stmts);
	emit_deferred(&c);
	finish_outsecs(&c);
	free(c.os);
	free(c.descs);
	free(c.st);
	map_free(&c.assigned);
	map_free(&c.osmap);
	free(c.begun);
	free(c.ended);
	free(c.deferred);
	map_free(&c.late);
	free(c.def_mask);
	if (c.errors) {
		ls_compiled_free(out);
		return -1;
	}
	return 0;
}
