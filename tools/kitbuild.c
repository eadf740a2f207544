/*
 * `linkkit create`, part 1: read the objects, resolve symbols, classify
 * relocations, compile the script, and serialize the payload.
 *
 * Everything that does not depend on the per-boot layout is decided here so
 * the boot side stays small; choices that depend on the object order
 * (COMDAT copies, several weak definitions) are prepared in kbalt.c and
 * made at boot. Where GNU ld (ld.bfd) has a documented or observable
 * behaviour (COMMON sizing, string merging, GOTPCRELX relaxation) this
 * code reproduces it, because the differential tests (test/diff) use
 * ld.bfd as the oracle.
 */
#include <fcntl.h>
#include <fnmatch.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kb.h"
#include "kbint.h"

void kb_err(struct kb *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("linkkit: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	b->errors++;
}

/* ---- string table and symbols ---- */

static uint32_t hash_name(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static void intern_grow(struct kb *b)
{
	size_t ns = b->isize ? b->isize * 2 : 4096;
	uint32_t *nt = kb_xcalloc(ns, sizeof(*nt));

	for (size_t k = 0; k < b->isize; k++) {
		uint32_t h;

		if (!b->itab[k])
			continue;
		h = hash_name((const char *)b->strtab.p + b->itab[k]) & (ns - 1);
		while (nt[h])
			h = (h + 1) & (ns - 1);
		nt[h] = b->itab[k];
	}
	free(b->itab);
	b->itab = nt;
	b->isize = ns;
}

/* Each distinct name is stored once: the boot side holds the whole
 * payload in memory, and section names repeat in every object. */
uint32_t kb_intern(struct kb *b, const char *s)
{
	uint32_t h, off;

	if (!*s)
		return 0;
	if (b->icount * 2 >= b->isize)
		intern_grow(b);
	h = hash_name(s) & (b->isize - 1);
	for (; (off = b->itab[h]); h = (h + 1) & (b->isize - 1))
		if (!strcmp((const char *)b->strtab.p + off, s))
			return off;
	off = (uint32_t)kb_buf_add(&b->strtab, s, strlen(s) + 1);
	b->itab[h] = off;
	b->icount++;
	return off;
}

uint32_t kb_new_sym(struct kb *b, const char *name)
{
	struct kb_sym *s;

	b->syms = kb_xgrow(b->syms, b->nsyms, sizeof(*b->syms));
	s = &b->syms[b->nsyms];
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->obj = NONE;
	s->sec = NONE;
	s->ref = NONE;
	return (uint32_t)b->nsyms++;
}

/* Global symbol by name, created undefined when create is set. */
uint32_t kb_global(struct kb *b, const char *name, int create)
{
	uint32_t h, i;

	if (b->hsize == 0 || b->hcount * 2 >= b->hsize) {
		size_t ns = b->hsize ? b->hsize * 2 : 1024;
		uint32_t *nt = kb_xcalloc(ns, sizeof(*nt));

		for (size_t k = 0; k < b->hsize; k++) {
			if (!b->htab[k])
				continue;
			h = hash_name(b->syms[b->htab[k] - 1].name) & (ns - 1);
			while (nt[h])
				h = (h + 1) & (ns - 1);
			nt[h] = b->htab[k];
		}
		free(b->htab);
		b->htab = nt;
		b->hsize = ns;
	}
	h = hash_name(name) & (b->hsize - 1);
	for (; (i = b->htab[h]); h = (h + 1) & (b->hsize - 1))
		if (!strcmp(b->syms[i - 1].name, name))
			return i - 1;
	if (!create)
		return NONE;
	i = kb_new_sym(b, name);
	b->syms[i].bind = STB_GLOBAL;
	b->syms[i].global = 1;
	b->htab[h] = i + 1;
	b->hcount++;
	return i;
}

/* ---- reading objects ---- */

static int read_sections(struct kb *b, struct kb_obj *o)
{
	size_t shstrndx;

	if (elf_getshdrnum(o->elf, &o->nsec) || elf_getshdrstrndx(o->elf, &shstrndx)) {
		kb_err(b, "%s: cannot read section headers: %s", o->path,
		       elf_errmsg(-1));
		return -1;
	}
	o->secs = kb_xcalloc(o->nsec, sizeof(*o->secs));
	for (size_t i = 1; i < o->nsec; i++) {
		struct kb_sec *s = &o->secs[i];
		Elf_Scn *scn = elf_getscn(o->elf, i);
		Elf_Data *d;

		s->input = s->chunk = s->secsym = NONE;
		if (!scn || !gelf_getshdr(scn, &s->sh)) {
			kb_err(b, "%s: bad section header %zu", o->path, i);
			return -1;
		}
		s->name = elf_strptr(o->elf, shstrndx, s->sh.sh_name);
		if (!s->name) {
			kb_err(b, "%s: section %zu has a bad name", o->path, i);
			return -1;
		}
		if (s->sh.sh_type == SHT_NOBITS)
			continue;
		d = elf_getdata(scn, NULL);
		if (s->sh.sh_size && (!d || d->d_size != s->sh.sh_size)) {
			kb_err(b, "%s: section %s: contents out of file bounds",
			       o->path, s->name);
			return -1;
		}
		s->data = d ? d->d_buf : NULL;
	}
	return 0;
}

static int read_symbols(struct kb *b, struct kb_obj *o)
{
	for (size_t i = 1; i < o->nsec; i++) {
		struct kb_sec *s = &o->secs[i];
		Elf_Data *d;

		if (s->sh.sh_type != SHT_SYMTAB)
			continue;
		if (o->nsym) {
			kb_err(b, "%s: more than one symbol table", o->path);
			return -1;
		}
		d = elf_getdata(elf_getscn(o->elf, i), NULL);
		if (!d || s->sh.sh_entsize != sizeof(Elf64_Sym) || s->sh.sh_link >= o->nsec) {
			kb_err(b, "%s: bad symbol table", o->path);
			return -1;
		}
		o->symtab = i;
		o->nsym = d->d_size / sizeof(Elf64_Sym);
		o->syms = kb_xcalloc(o->nsym, sizeof(*o->syms));
		o->symname = kb_xcalloc(o->nsym, sizeof(*o->symname));
		o->ksym = kb_xcalloc(o->nsym, sizeof(*o->ksym));
		for (size_t k = 0; k < o->nsym; k++) {
			const char *n;

			gelf_getsym(d, (int)k, &o->syms[k]);
			n = elf_strptr(o->elf, s->sh.sh_link, o->syms[k].st_name);
			if (!n) {
				kb_err(b, "%s: symbol %zu has a bad name", o->path, k);
				return -1;
			}
			o->symname[k] = n;
			o->ksym[k] = NONE;
		}
	}
	return 0;
}

static int open_object(struct kb *b, struct kb_obj *o, const char *path,
		       const char *name)
{
	GElf_Ehdr eh;
	char *tmp = kb_xstrdup(path);

	o->path = path;
	o->name = kb_xstrdup(name ? name : basename(tmp));
	free(tmp);
	o->fd = open(path, O_RDONLY);
	if (o->fd < 0) {
		kb_err(b, "%s: cannot open", path);
		return -1;
	}
	o->elf = elf_begin(o->fd, ELF_C_READ, NULL);
	if (!o->elf || elf_kind(o->elf) != ELF_K_ELF || !gelf_getehdr(o->elf, &eh) ||
	    gelf_getclass(o->elf) != ELFCLASS64) {
		kb_err(b, "%s: not an ELF64 file", path);
		return -1;
	}
	if (eh.e_type != ET_REL || eh.e_machine != EM_X86_64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB) {
		kb_err(b, "%s: not an x86-64 relocatable object", path);
		return -1;
	}
	if (read_sections(b, o) || read_symbols(b, o))
		return -1;
	return 0;
}

static int is_loadable(const struct kb_sec *s)
{
	uint32_t t = s->sh.sh_type;

	if (!(s->sh.sh_flags & SHF_ALLOC) || (s->sh.sh_flags & SHF_EXCLUDE))
		return 0;
	return t == SHT_PROGBITS || t == SHT_NOBITS || t == SHT_INIT_ARRAY ||
	       t == SHT_FINI_ARRAY || t == SHT_PREINIT_ARRAY || t == SHT_NOTE ||
	       t == SHT_X86_64_UNWIND;
}

/* ---- symbol resolution ---- */

static void define_global(struct kb *b, uint32_t oi, size_t k)
{
	struct kb_obj *o = &b->objs[oi];
	const GElf_Sym *es = &o->syms[k];
	int weak = GELF_ST_BIND(es->st_info) == STB_WEAK;
	uint32_t i = kb_global(b, o->symname[k], 1);
	struct kb_sym *s = &b->syms[i];
	uint8_t vis = GELF_ST_VISIBILITY(es->st_other);

	o->ksym[k] = i;
	/* As ld: the output visibility is the most constraining one of every
	 * definition and reference (internal 1 < hidden 2 < protected 3). */
	if (vis && (!s->vis || vis < s->vis))
		s->vis = vis;
	if (es->st_shndx == SHN_UNDEF) {
		if (!weak)
			s->strong_ref = 1;
		s->referenced = 1;
		return;
	}
	if (es->st_shndx == SHN_COMMON) {
		if (s->def == DEF_OBJ)
			return;
		if (s->def != DEF_COMMON || es->st_size > s->size) {
			s->obj = oi;
			s->size = es->st_size;
		}
		if (es->st_value > s->common_align)
			s->common_align = es->st_value;
		s->has_common = 1;
		s->def = DEF_COMMON;
		s->type = STT_OBJECT;
		s->emit = 1;
		return;
	}
	if (es->st_shndx < o->nsec && o->secs[es->st_shndx].state == SEC_COMDAT_LOSER)
		return; /* the winning group defines it */
	kb_add_def(b, i, oi, (uint32_t)k);
	if (kb_noncanonical_copy(b, oi, es->st_shndx))
		return; /* a candidate only: the boot side picks the copy */
	if (s->def == DEF_OBJ && !s->weak_def && !weak) {
		kb_err(b, "%s: duplicate definition of '%s' (first defined in %s)",
		       o->name, s->name, b->objs[s->obj].name);
		return;
	}
	if (s->def == DEF_OBJ && (weak || !s->weak_def))
		return;
	kb_sym_define(s, oi, es);
}

static void define_local(struct kb *b, uint32_t oi, size_t k)
{
	struct kb_obj *o = &b->objs[oi];
	const GElf_Sym *es = &o->syms[k];
	int t = GELF_ST_TYPE(es->st_info);
	struct kb_sym *s;
	uint32_t i;

	if (t == STT_SECTION)
		return; /* section symbols are made on demand */
	i = kb_new_sym(b, o->symname[k]);
	s = &b->syms[i];
	o->ksym[k] = i;
	s->obj = oi;
	s->bind = STB_LOCAL;
	s->type = t;
	s->value = es->st_value;
	s->size = es->st_size;
	s->def = DEF_OBJ;
	s->sec = es->st_shndx;
	/* As ld.lld -X (OpenBSD links with it): the assembler's .L
	 * temporaries go, file symbols (absolute) stay first of their
	 * object's locals. */
	s->emit = *s->name && strncmp(s->name, ".L", 2) != 0 &&
		  (t == STT_FUNC || t == STT_OBJECT || t == STT_NOTYPE ||
		   t == STT_FILE);
}

static void resolve_symbols(struct kb *b)
{
	for (uint32_t oi = 0; oi < b->nobjs; oi++) {
		struct kb_obj *o = &b->objs[oi];

		for (size_t k = 1; k < o->nsym; k++) {
			const GElf_Sym *es = &o->syms[k];

			if (es->st_shndx == SHN_XINDEX) {
				kb_err(b, "%s: symbol '%s': extended section indices are not supported",
				       o->name, o->symname[k]);
				continue;
			}
			if (es->st_shndx != SHN_UNDEF && es->st_shndx != SHN_ABS &&
			    es->st_shndx != SHN_COMMON && es->st_shndx >= o->nsec) {
				kb_err(b, "%s: symbol '%s': section index %u out of range",
				       o->name, o->symname[k], es->st_shndx);
				continue;
			}
			if (GELF_ST_BIND(es->st_info) == STB_LOCAL)
				define_local(b, oi, k);
			else
				define_global(b, oi, k);
		}
	}
}

/* ---- inputs for the script compiler ---- */

static void add_input(struct kb *b, const char *obj, const char *sec,
		      uint32_t oi, uint32_t type, uint64_t flags, uint64_t size,
		      uint64_t align)
{
	struct ls_input *in;

	b->inputs = kb_xgrow(b->inputs, b->ninputs, sizeof(*b->inputs));
	b->inref = kb_xgrow(b->inref, b->ninputs, sizeof(*b->inref));
	in = &b->inputs[b->ninputs];
	in->object = obj;
	in->section = sec;
	in->object_index = oi;
	in->sh_type = type;
	in->sh_flags = flags;
	in->size = size;
	in->align = align ? align : 1;
	memset(&b->inref[b->ninputs], 0, sizeof(b->inref[0]));
	b->inref[b->ninputs].obj = oi;
	b->inref[b->ninputs].sec = NONE;
	b->inref[b->ninputs].sym = NONE;
	b->inref[b->ninputs].gap = NONE;
	b->ninputs++;
}

static void add_commons(struct kb *b, uint32_t oi, uint32_t *v, size_t n);

/* COMMON symbols grouped by owning object, in symbol order. */
static uint32_t *commons_by_object(struct kb *b, size_t **first)
{
	uint32_t *v = kb_xcalloc(b->nsyms, sizeof(*v));
	size_t *at = kb_xcalloc(b->nobjs + 1, sizeof(*at));

	for (size_t k = 0; k < b->nsyms; k++)
		if (b->syms[k].def == DEF_COMMON)
			at[b->syms[k].obj + 1]++;
	for (uint32_t o = 0; o < b->nobjs; o++)
		at[o + 1] += at[o];
	*first = kb_xcalloc(b->nobjs + 1, sizeof(**first));
	memcpy(*first, at, (b->nobjs + 1) * sizeof(*at));
	for (size_t k = 0; k < b->nsyms; k++)
		if (b->syms[k].def == DEF_COMMON)
			v[at[b->syms[k].obj]++] = (uint32_t)k;
	free(at);
	return v;
}

static void collect_inputs(struct kb *b)
{
	size_t *first;
	uint32_t *com = commons_by_object(b, &first);

	for (uint32_t oi = 0; oi < b->nobjs; oi++) {
		struct kb_obj *o = &b->objs[oi];

		for (size_t i = 1; i < o->nsec; i++) {
			struct kb_sec *s = &o->secs[i];

			if (s->state == SEC_COMDAT_LOSER || !is_loadable(s))
				continue;
			if (s->sh.sh_addralign & (s->sh.sh_addralign - 1)) {
				kb_err(b, "%s: section %s: alignment %llu is not a power of two",
				       o->name, s->name, (unsigned long long)s->sh.sh_addralign);
				continue;
			}
			s->state = SEC_INPUT;
			s->input = (uint32_t)b->ninputs;
			add_input(b, o->name, s->name, oi,
				  s->sh.sh_type == SHT_NOBITS ? SHT_NOBITS : SHT_PROGBITS,
				  s->sh.sh_flags, s->sh.sh_size, s->sh.sh_addralign);
			b->inref[s->input].sec = (uint32_t)i;
		}
		/* ld --build-id makes its note a section of the first input
		 * object, after that object's own (ldelf.c). */
		if (oi == 0 && b->pol.build_id) {
			b->bid_input = (uint32_t)b->ninputs;
			add_input(b, o->name, ".note.gnu.build-id", 0, SHT_PROGBITS, SHF_ALLOC,
				  KB_BUILD_ID_SIZE, 4);
		}
		add_commons(b, oi, com + first[oi], first[oi + 1] - first[oi]);
	}
	free(com);
	free(first);
}

/* ld.bfd's string hash (bfd/hash.c); its link hash table is traversed in
 * bucket order when COMMON symbols are allocated (ld/ldlang.c). */
static uint32_t bfd_hash(const char *s)
{
	uint32_t h = 0, len = (uint32_t)strlen(s);

	for (; *s; s++) {
		h += (uint8_t)*s + ((uint32_t)(uint8_t)*s << 17);
		h ^= h >> 2;
	}
	h += len + (len << 17);
	h ^= h >> 2;
	return h;
}

/* Bucket count of that table once every global is in: it starts at 4051
 * and grows to the next prime below a power of two when 3/4 full (8191
 * checked against ld.bfd 2.40 with ~5000 globals). */
static uint32_t bfd_table_size(size_t n)
{
	static const uint32_t primes[] = { 8191, 16381, 32749, 65521, 131071,
					   262139, 524287, 1048573, 2097143,
					   4194301, 8388593, 16777213 };
	uint32_t size = 4051;

	for (size_t i = 0; i < sizeof(primes) / sizeof(primes[0]) && n > size / 4 * 3; i++)
		size = primes[i];
	return size;
}

struct common_order {
	uint32_t size;
	const struct kb_sym *syms;
};

static int common_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct common_order *c = ctx;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	uint32_t ha = bfd_hash(c->syms[a].name) % c->size;
	uint32_t hb = bfd_hash(c->syms[b].name) % c->size;

	if (ha != hb)
		return ha < hb ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* ld.bfd gives each object one COMMON input section, aligned to its most
 * aligned symbol, holding the symbols the object owns (the largest
 * definition; the first on a tie) in hash order. */
static void add_commons(struct kb *b, uint32_t oi, uint32_t *v, size_t n)
{
	struct common_order ctx = { bfd_table_size(b->hcount), b->syms };
	uint64_t off = 0, align = 1;

	qsort_r(v, n, sizeof(*v), common_cmp, &ctx);
	for (size_t i = 0; i < n; i++) {
		struct kb_sym *s = &b->syms[v[i]];
		uint64_t a = s->common_align ? s->common_align : 1;

		if (a & (a - 1)) {
			kb_err(b, "%s: COMMON symbol '%s': alignment is not a power of two",
			       b->objs[oi].name, s->name);
			continue;
		}
		off = (off + a - 1) & ~(a - 1);
		s->value = off;
		s->input = (uint32_t)b->ninputs;
		off += s->size;
		if (a > align)
			align = a;
	}
	if (n)
		add_input(b, b->objs[oi].name, "COMMON", oi, SHT_NOBITS,
			  SHF_ALLOC | SHF_WRITE, off, align);
}

/* `gap ... FILL SYMBOL`: SYMBOL is global at the start of that gap chunk,
 * as OpenBSD's gap.o defines endboot (the end of the boot code that
 * unmap_startup() removes). Set up like a COMMON: chunk + offset 0. */
static void define_gap_symbol(struct kb *b, const char *name, uint32_t input)
{
	struct kb_sym *s = &b->syms[kb_global(b, name, 1)];

	if (s->def != DEF_NONE) {
		kb_err(b, "policy: gap symbol '%s' is also defined by an object", name);
		return;
	}
	s->def = DEF_COMMON;
	s->input = input;
	s->obj = b->gap_obj;
	s->value = 0;
	s->size = 0;
	s->type = STT_NOTYPE;
	s->emit = 1;
}

static void add_synthetic_inputs(struct kb *b)
{
	if (b->pol.ngaps) {
		b->gap_obj = b->nobjs + b->nsynth++;
		for (size_t g = 0; g < b->pol.ngaps; g++) {
			const struct kb_gap *gp = &b->pol.gaps[g];
			int nobits = gp->fill < 0;
			uint64_t fl = SHF_ALLOC | (nobits ? SHF_WRITE : 0);

			if (!strncmp(gp->section, ".text", 5))
				fl |= SHF_EXECINSTR;
			add_input(b, "gap", gp->section, b->gap_obj,
				  nobits ? SHT_NOBITS : SHT_PROGBITS, fl, gp->max, gp->step);
			b->inref[b->ninputs - 1].gap = (uint32_t)g;
			if (gp->sym)
				define_gap_symbol(b, gp->sym, (uint32_t)(b->ninputs - 1));
		}
	}
	if (b->ngot) {
		b->got_obj = b->nobjs + b->nsynth++;
		add_input(b, "<got>", ".got", b->got_obj, SHT_PROGBITS,
			  SHF_ALLOC | SHF_WRITE, 8 * (uint64_t)b->ngot, 8);
		b->got_input = (uint32_t)(b->ninputs - 1);
	}
}

/* ---- script callbacks ---- */

static uint32_t cb_symbol(void *ctx, const char *name, int assigns, int provide)
{
	struct kb *b = ctx;
	uint32_t i = kb_global(b, name, 0);

	if (assigns && provide &&
	    (i == NONE || b->syms[i].def == DEF_OBJ || b->syms[i].def == DEF_COMMON ||
	     !b->syms[i].referenced))
		return UINT32_MAX;
	if (i == NONE)
		i = kb_global(b, name, 1);
	if (assigns) {
		b->syms[i].def = DEF_PLAN;
		b->syms[i].bind = STB_GLOBAL;
		b->syms[i].type = STT_NOTYPE;
		b->syms[i].size = 0; /* ld.lld: the assignment replaces it */
		b->syms[i].emit = 1;
	}
	b->syms[i].script_ref = 1;
	return i;
}

static int pat_match(const char *a, const char *b)
{
	return !fnmatch(a, b, 0) || !fnmatch(b, a, 0);
}

static uint32_t cb_slot_flags(void *ctx, const char *outsec, const char *pattern)
{
	struct kb *b = ctx;

	(void)outsec;
	for (size_t i = 0; i < b->pol.nkeep; i++)
		if (pat_match(b->pol.keep[i], pattern))
			return LK_SLOT_CANONICAL;
	return b->pol.per_section ? LK_SLOT_SHUFFLE : 0;
}

static uint32_t cb_outsec_flags(void *ctx, const char *outsec)
{
	struct kb *b = ctx;

	for (size_t i = 0; i < b->pol.nrfill; i++)
		if (!strcmp(b->pol.rfill[i], outsec))
			return LK_OUTSEC_RANDOM_FILL;
	return 0;
}

static uint32_t cb_intern(void *ctx, const char *s)
{
	return kb_intern(ctx, s);
}

/* DEFINED(sym) in the script: true when an object defines sym. */
static int cb_defined(void *ctx, const char *name)
{
	struct kb *b = ctx;
	uint32_t i = kb_global(b, name, 0);

	return i != NONE &&
	       (b->syms[i].def == DEF_OBJ || b->syms[i].def == DEF_COMMON);
}

static int compile_script(struct kb *b)
{
	struct ls_callbacks cb = {
		.ctx = b,
		.symbol = cb_symbol,
		.slot_flags = cb_slot_flags,
		.outsec_flags = cb_outsec_flags,
		.intern = cb_intern,
		.defined = cb_defined,
		.lld_empty = b->pol.lld,
	};

	if (ls_compile(b->script, b->inputs, b->ninputs, &cb, &b->comp)) {
		b->errors++;
		return -1;
	}
	b->compiled = 1;
	if (b->pol.base_step && kb_base_insert(b))
		return -1;
	kb_lld_property_notes(b);
	for (size_t i = 0; i < b->ninputs; i++) {
		uint32_t slot = b->comp.input_slot[i];

		if (slot == LS_ORPHAN)
			kb_err(b, "%s: section %s: orphan section not matched by the script",
			       b->inputs[i].object, b->inputs[i].section);
		else if (slot != LS_DISCARD && slot >= b->comp.nslots)
			kb_err(b, "%s: section %s: script compiler returned bad slot %u",
			       b->inputs[i].object, b->inputs[i].section, slot);
	}
	return 0;
}

/* ---- the whole build ---- */

static char *read_text(struct kb *b, const char *path)
{
	FILE *f = fopen(path, "rb");
	char *t;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		kb_err(b, "%s: cannot read", path);
		if (f)
			fclose(f);
		return NULL;
	}
	t = kb_xcalloc((size_t)n + 1, 1);
	if (fread(t, 1, (size_t)n, f) != (size_t)n) {
		kb_err(b, "%s: cannot read", path);
		free(t);
		t = NULL;
	}
	fclose(f);
	return t;
}

static int load_inputs(struct kb *b, const struct kb_options *o)
{
	const char *pname = o->policy_path ? o->policy_path : "(built-in policy)";
	char *pol = o->policy_path ? read_text(b, o->policy_path)
				   : kb_xstrdup(o->policy_text ? o->policy_text : "");

	if (!pol)
		return -1;
	if (kb_policy_parse(pname, pol, &b->pol))
		b->errors++;
	free(pol);
	b->script = ls_parse_file(o->script_path);
	if (!b->script)
		b->errors++;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		kb_err(b, "libelf: %s", elf_errmsg(-1));
		return -1;
	}
	b->nobjs = (uint32_t)o->nobjs;
	b->objs = kb_xcalloc(o->nobjs, sizeof(*b->objs));
	for (size_t i = 0; i < o->nobjs; i++) {
		b->objs[i].fd = -1;
		open_object(b, &b->objs[i], o->objs[i], o->names ? o->names[i] : NULL);
	}
	return b->errors ? -1 : 0;
}

static void free_build(struct kb *b)
{
	for (uint32_t i = 0; i < b->nobjs; i++) {
		struct kb_obj *o = &b->objs[i];

		if (o->secs)
			for (size_t k = 0; k < o->nsec; k++)
				free(o->secs[k].pieces);
		free(o->secs);
		free(o->syms);
		free(o->symname);
		free(o->ksym);
		free(o->name);
		if (o->elf)
			elf_end(o->elf);
		if (o->fd >= 0)
			close(o->fd);
	}
	free(b->objs);
	free(b->syms);
	free(b->htab);
	free(b->groups);
	free(b->copies);
	free(b->csets);
	free(b->defs);
	free(b->inputs);
	free(b->inref);
	free(b->got_syms);
	free(b->relocs);
	free(b->strtab.p);
	free(b->itab);
	if (b->compiled)
		ls_compiled_free(&b->comp);
	if (b->script)
		ls_free(b->script);
	kb_policy_free(&b->pol);
	kb_merge_free(b);
}

int kb_build_payload(const struct kb_options *o, uint8_t **payload, size_t *size)
{
	struct kb b;
	int rc = -1;

	memset(&b, 0, sizeof(b));
	kb_buf_add(&b.strtab, "", 1);
	b.got_obj = b.gap_obj = b.got_input = b.bid_input = NONE;
	b.ksyms_map = o->ksyms_map;
	b.ksyms_obj = o->ksyms_obj;
	if (load_inputs(&b, o))
		goto out;
	/* Keep going after errors so that all of them are reported; only a
	 * script that does not compile stops the build early. */
	kb_resolve_comdat(&b);
	resolve_symbols(&b);
	kb_adopt_defs(&b);
	kb_scan_relocs(&b);
	collect_inputs(&b);
	add_synthetic_inputs(&b);
	if (compile_script(&b))
		goto out;
	kb_order_chunks(&b);
	kb_comdat_align(&b);
	kb_merge_build(&b);
	kb_finish_alts(&b);
	kb_finish_symbols(&b);
	kb_finish_relocs(&b);
	if (b.errors)
		goto out;
	rc = kb_serialize(&b, payload, size);
out:
	if (b.errors)
		fprintf(stderr, "linkkit: %u error%s\n", b.errors, b.errors == 1 ? "" : "s");
	free_build(&b);
	return b.errors ? -1 : rc;
}
