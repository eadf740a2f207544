/*
 * Choices GNU ld makes by command-line order, which at boot is the
 * shuffled object order: which copy of a COMDAT group is kept (the first
 * in the order) and which of several definitions of a global wins (a
 * strong one over weak ones, else the first). The host keeps every copy
 * and every candidate in the kit (lk_comdat, lk_chunk.comdat, LK_SYM_ALT)
 * and the boot side picks. What the kit cannot express falls back to the
 * canonical (command-line) choice with a warning.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbint.h"

void kb_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("linkkit: warning: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

const char *kb_comdat_sig(const struct kb *b, uint32_t comdat)
{
	return b->groups[b->csets[comdat - 1]].sig;
}

/* ---- COMDAT groups ---- */

/* The members of a COMDAT group section, or NULL (not COMDAT, or bad). */
static const uint32_t *group_words(struct kb *b, uint32_t oi, size_t gi,
				   size_t *n)
{
	struct kb_obj *o = &b->objs[oi];
	struct kb_sec *g = &o->secs[gi];
	const uint32_t *w = g->data;

	*n = g->sh.sh_size / 4;
	if (g->sh.sh_link != o->symtab || g->sh.sh_info >= o->nsym || *n < 1 ||
	    !w) {
		kb_err(b, "%s: section %s: bad group section", o->path,
		       g->name);
		return NULL;
	}
	if (!(w[0] & GRP_COMDAT))
		return NULL;
	for (size_t k = 1; k < *n; k++)
		if (w[k] == 0 || w[k] >= o->nsec) {
			kb_err(b,
			       "%s: section %s: group member %u out of range",
			       o->path, g->name, w[k]);
			return NULL;
		}
	return w;
}

static void drop_copy(struct kb *b, uint32_t oi, const uint32_t *w, size_t n)
{
	for (size_t m = 1; m < n; m++)
		b->objs[oi].secs[w[m]].state = SEC_COMDAT_LOSER;
}

static uint32_t find_group(struct kb *b, const char *sig)
{
	for (size_t k = 0; k < b->ngroups; k++)
		if (!strcmp(b->groups[k].sig, sig))
			return (uint32_t)k;
	b->groups = kb_xgrow(b->groups, b->ngroups, sizeof(*b->groups));
	memset(&b->groups[b->ngroups], 0, sizeof(b->groups[0]));
	b->groups[b->ngroups].sig = sig;
	b->groups[b->ngroups].obj = NONE;
	return (uint32_t)b->ngroups++;
}

/* Records one copy; a second copy in the same object is dropped (ld
 * drops it whatever the order). Signatures are their own namespace. */
static void scan_group(struct kb *b, uint32_t oi, size_t gi)
{
	struct kb_obj *o = &b->objs[oi];
	size_t n;
	const uint32_t *w = group_words(b, oi, gi, &n);
	uint32_t g;

	if (!w)
		return;
	g = find_group(b, o->symname[o->secs[gi].sh.sh_info]);
	/* Objects are scanned in order: this one's copies are the last. */
	for (size_t k = b->ncopies; k-- > 0 && b->copies[k].obj == oi;)
		if (b->copies[k].group == g) {
			drop_copy(b, oi, w, n);
			return;
		}
	if (b->groups[g].obj == NONE)
		b->groups[g].obj = oi;
	b->groups[g].ncopies++;
	b->copies = kb_xgrow(b->copies, b->ncopies, sizeof(*b->copies));
	b->copies[b->ncopies++] = (struct kb_copy){ g, oi, (uint32_t)gi };
	for (size_t m = 1; m < n; m++) {
		const GElf_Shdr *sh = &o->secs[w[m]].sh;

		if ((sh->sh_flags & (SHF_ALLOC | SHF_MERGE)) ==
		    (SHF_ALLOC | SHF_MERGE))
			b->groups[g].merge = 1;
	}
}

/* Merge pieces are shared between chunks, so a copy cannot simply die at
 * boot: such groups keep the canonical first copy. */
static void mark_copy(struct kb *b, const struct kb_copy *c)
{
	struct kb_group *g = &b->groups[c->group];
	size_t n;
	const uint32_t *w = group_words(b, c->obj, c->sec, &n);

	if (!w || g->ncopies < 2)
		return;
	if (g->merge) {
		if (c->obj != g->obj)
			drop_copy(b, c->obj, w, n);
		return;
	}
	for (size_t m = 1; m < n; m++)
		b->objs[c->obj].secs[w[m]].comdat = g->cset;
}

void kb_resolve_comdat(struct kb *b)
{
	for (uint32_t oi = 0; oi < b->nobjs; oi++)
		for (size_t i = 1; i < b->objs[oi].nsec; i++)
			if (b->objs[oi].secs[i].sh.sh_type == SHT_GROUP)
				scan_group(b, oi, i);
	for (size_t k = 0; k < b->ngroups; k++) {
		struct kb_group *g = &b->groups[k];

		if (g->ncopies < 2)
			continue;
		if (g->merge) {
			kb_warn("COMDAT group '%s': has merge sections and "
				"copies in "
				"several objects: the copy in %s is always "
				"kept (GNU ld "
				"keeps the first in link order)",
				g->sig, b->objs[g->obj].name);
			continue;
		}
		b->csets = kb_xgrow(b->csets, b->ncsets, sizeof(*b->csets));
		b->csets[b->ncsets++] = (uint32_t)k;
		g->cset = (uint32_t)b->ncsets;
	}
	for (size_t k = 0; k < b->ncopies; k++)
		mark_copy(b, &b->copies[k]);
}

/* A member of a copy other than the first in canonical order: its
 * definitions are candidates only (kb_finish_alts). */
int kb_noncanonical_copy(const struct kb *b, uint32_t oi, uint32_t si)
{
	const struct kb_obj *o = &b->objs[oi];

	if (si >= o->nsec || !o->secs[si].comdat)
		return 0;
	return b->groups[b->csets[o->secs[si].comdat - 1]].obj != oi;
}

/* ---- symbols with several definitions ---- */

void kb_add_def(struct kb *b, uint32_t sym, uint32_t oi, uint32_t esym)
{
	b->defs = kb_xgrow(b->defs, b->ndefs, sizeof(*b->defs));
	b->defs[b->ndefs++] = (struct kb_def){ sym, oi, esym };
}

/* Makes S the definition ES in object OBJ: the one place a global
 * definition's fields are set (first definitions, weak overrides, and the
 * copies the boot side may pick). */
void kb_sym_define(struct kb_sym *s, uint32_t obj, const GElf_Sym *es)
{
	int weak = GELF_ST_BIND(es->st_info) == STB_WEAK;

	s->def = DEF_OBJ;
	s->weak_def = weak;
	s->obj = obj;
	s->sec = es->st_shndx;
	s->value = es->st_value;
	s->size = es->st_size;
	s->type = GELF_ST_TYPE(es->st_info);
	s->bind = weak ? STB_WEAK : STB_GLOBAL;
	s->emit = 1;
}

static void def_fields(const struct kb *b, struct kb_sym *s,
		       const struct kb_def *d)
{
	kb_sym_define(s, d->obj, &b->objs[d->obj].syms[d->esym]);
}

/* A global defined only in later COMDAT copies still needs a definition
 * for the host's checks; the boot side decides whether it is live. */
void kb_adopt_defs(struct kb *b)
{
	for (size_t i = 0; i < b->ndefs; i++)
		if (b->syms[b->defs[i].sym].def == DEF_NONE)
			def_fields(b, &b->syms[b->defs[i].sym], &b->defs[i]);
}

static int def_cmp(const void *pa, const void *pb)
{
	const struct kb_def *a = pa, *b = pb;

	if (a->sym != b->sym)
		return a->sym < b->sym ? -1 : 1;
	if (a->obj != b->obj)
		return a->obj < b->obj ? -1 : 1;
	return a->esym < b->esym ? -1 : a->esym > b->esym;
}

static const struct kb_sec *def_sec(const struct kb *b, const struct kb_def *d)
{
	const struct kb_obj *o = &b->objs[d->obj];
	uint16_t sh = o->syms[d->esym].st_shndx;

	return sh != SHN_UNDEF && sh < o->nsec ? &o->secs[sh] : NULL;
}

static int def_weak(const struct kb *b, const struct kb_def *d)
{
	return GELF_ST_BIND(b->objs[d->obj].syms[d->esym].st_info) == STB_WEAK;
}

/* Can the boot side choose between these: plain chunks only. */
static int alt_expressible(const struct kb *b, const struct kb_def *d, size_t n)
{
	if (b->syms[d->sym].has_common)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct kb_sec *s = def_sec(b, &d[i]);

		if (!s || s->chunk == NONE || s->pieces)
			return 0;
	}
	return 1;
}

/* All definitions in one COMDAT group, but not in every copy of it. */
static void warn_partial(const struct kb *b, const struct kb_def *d, size_t n)
{
	const struct kb_sec *s = def_sec(b, d);
	uint32_t cs = s ? s->comdat : 0;
	const struct kb_group *g;

	if (!cs)
		return;
	for (size_t i = 1; i < n; i++) {
		s = def_sec(b, &d[i]);
		if (!s || s->comdat != cs)
			return;
	}
	g = &b->groups[b->csets[cs - 1]];
	if (n < g->ncopies)
		kb_warn("symbol '%s' is defined in %zu of the %u copies of "
			"COMDAT "
			"group '%s': it is undefined when another copy is kept",
			b->syms[d->sym].name, n, g->ncopies, g->sig);
}

/* Candidates in canonical order, not emitted; the global keeps the
 * canonical choice for the host's own checks and messages. */
static void make_alt(struct kb *b, const struct kb_def *d, size_t n)
{
	uint32_t first = (uint32_t)b->nsyms;
	struct kb_sym *s;

	for (size_t i = 0; i < n; i++) {
		uint32_t c = kb_new_sym(b, b->syms[d->sym].name);

		def_fields(b, &b->syms[c], &d[i]);
		b->syms[c].emit = 0;
	}
	s = &b->syms[d->sym];
	s->alt = 1;
	s->alt_first = first;
	s->alt_count = (uint32_t)n;
}

static void one_symbol(struct kb *b, const struct kb_def *d, size_t n)
{
	const struct kb_sym *s = &b->syms[d->sym];

	if (s->def == DEF_COMMON) {
		kb_warn("symbol '%s': COMMON in %s, defined only in later "
			"copies "
			"of a COMDAT group (%s): COMMON is always used (GNU ld "
			"uses the definition when its copy is kept)",
			s->name, b->objs[s->obj].name, b->objs[d->obj].name);
		return;
	}
	if (s->def != DEF_OBJ)
		return; /* the script assigns it */
	for (size_t i = 0; i < n; i++) {
		const struct kb_sec *sec = def_sec(b, &d[i]);

		if (!def_weak(b, &d[i]) && !(sec && sec->comdat))
			return; /* a plain definition wins whatever the order */
	}
	warn_partial(b, d, n);
	if (n < 2)
		return;
	if (!alt_expressible(b, d, n)) {
		kb_warn("symbol '%s': defined in %s and %s, not all in input "
			"sections the boot side can choose from: the "
			"definition in "
			"%s is always used (GNU ld picks by link order)",
			s->name, b->objs[d[0].obj].name, b->objs[d[1].obj].name,
			b->objs[s->obj].name);
		return;
	}
	make_alt(b, d, n);
}

/* After the chunks exist: every global with several definitions whose
 * winner depends on the order becomes LK_SYM_ALT. */
void kb_finish_alts(struct kb *b)
{
	size_t i = 0, j;

	qsort(b->defs, b->ndefs, sizeof(*b->defs), def_cmp);
	while (i < b->ndefs) {
		for (j = i + 1;
		     j < b->ndefs && b->defs[j].sym == b->defs[i].sym; j++)
			;
		one_symbol(b, &b->defs[i], j - i);
		i = j;
	}
}

/* ---- output section alignment ---- */

struct align_ent {
	uint32_t set, outsec, obj;
	uint64_t align;
};

static int align_cmp(const void *pa, const void *pb)
{
	const struct align_ent *a = pa, *b = pb;

	if (a->set != b->set)
		return a->set < b->set ? -1 : 1;
	if (a->outsec != b->outsec)
		return a->outsec < b->outsec ? -1 : 1;
	return a->obj < b->obj ? -1 : a->obj > b->obj;
}

/* The largest alignment of each copy in one (group, output section) run;
 * a copy with nothing there counts as 1. */
static void align_range(const struct kb *b, const struct align_ent *e, size_t n,
			uint64_t *lo, uint64_t *hi)
{
	size_t ncopy = 0;

	*lo = UINT64_MAX;
	*hi = 1;
	for (size_t i = 0, j; i < n; i = j) {
		uint64_t m = 1;

		for (j = i; j < n && e[j].obj == e[i].obj; j++)
			m = e[j].align > m ? e[j].align : m;
		*lo = m < *lo ? m : *lo;
		*hi = m > *hi ? m : *hi;
		ncopy++;
	}
	if (ncopy < b->groups[b->csets[e->set - 1]].ncopies)
		*lo = 1;
}

static int set_obj_cmp(const void *pa, const void *pb)
{
	const struct align_ent *a = pa, *b = pb;

	if (a->set != b->set)
		return a->set < b->set ? -1 : 1;
	return a->obj < b->obj ? -1 : a->obj > b->obj;
}

/* The boot side only sees copies that have chunks: a copy with none
 * (everything in it unloaded or discarded by the script) cannot win
 * there, where GNU ld would keep it if it came first. */
static void check_empty_copies(struct kb *b, struct align_ent *e, size_t n)
{
	qsort(e, n, sizeof(*e), set_obj_cmp);
	for (size_t i = 0, j; i < n; i = j) {
		uint32_t seen = 0;
		const struct kb_group *g = &b->groups[b->csets[e[i].set - 1]];

		for (j = i; j < n && e[j].set == e[i].set; j++)
			seen += j == i || e[j].obj != e[j - 1].obj;
		if (seen < g->ncopies)
			kb_warn("COMDAT group '%s': %u of its %u copies load "
				"nothing: the boot side keeps the first copy "
				"that "
				"does, GNU ld the first copy",
				g->sig, g->ncopies - seen, g->ncopies);
	}
}

/* The script compiler aligns an output section for all its inputs, dead
 * copies included; GNU ld only for the copy it keeps. Both agree unless
 * the copies differ in alignment: say so. */
void kb_comdat_align(struct kb *b)
{
	struct align_ent *e = kb_xcalloc(b->nchunks + 1, sizeof(*e));
	uint32_t warned = 0;
	size_t n = 0;

	for (size_t c = 0; c < b->nchunks; c++)
		if (b->chunks[c].comdat)
			e[n++] = (struct align_ent){
				b->chunks[c].comdat,
				b->comp.slots[b->chunks[c].slot].outsec,
				b->chunks[c].object, b->chunks[c].align
			};
	qsort(e, n, sizeof(*e), align_cmp);
	for (size_t i = 0, j; i < n; i = j) {
		uint64_t lo, hi;

		for (j = i; j < n && e[j].set == e[i].set &&
			    e[j].outsec == e[i].outsec;
		     j++)
			;
		align_range(b, e + i, j - i, &lo, &hi);
		if (lo == hi || warned == e[i].set)
			continue;
		warned = e[i].set;
		kb_warn("COMDAT group '%s': its copies differ in alignment in "
			"output "
			"section %s (%llu to %llu): the section is aligned for "
			"the "
			"most aligned copy, GNU ld for the kept one",
			kb_comdat_sig(b, e[i].set),
			(const char *)b->strtab.p +
				b->comp.outsecs[e[i].outsec].name,
			(unsigned long long)lo, (unsigned long long)hi);
	}
	check_empty_copies(b, e, n);
	free(e);
}
