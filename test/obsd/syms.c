/*
 * The symbol table as OpenBSD's kernel finds it: amd64 locore0 takes
 * ssym = __kernel_bss_end (the image's end) and esym from the `end`
 * entry argument; ddb's db_elf_sym_init then wants an ELF header there,
 * a SHT_SYMTAB whose sh_link names the string table, both 8-aligned, and
 * every name inside the strings. This checks that, the layout boot(8)'s
 * loadfile gives the block (e_shoff 64, no program headers, sections
 * 8-aligned back to back, SHF_ALLOC, esym at the last one's end), and that
 * the table is this kernel's: symbols looked up by name have the
 * addresses the code uses.
 */
#include "obsd.h"

struct ehdr {
	u8 ident[16];
	u16 type, machine;
	u32 version;
	u64 entry, phoff, shoff;
	u32 flags;
	u16 ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct shdr {
	u32 name, type;
	u64 flags, addr, offset, size;
	u32 link, info;
	u64 addralign, entsize;
};

struct sym {
	u32 name;
	u8 info, other;
	u16 shndx;
	u64 value, size;
};

#define SHT_SYMTAB 2
#define SHT_STRTAB 3
#define SHF_ALLOC 2
#define STB_LOCAL 0
#define STB_GLOBAL 1
#define STT_FUNC 2

struct symtab {
	const u8 *base; /* ssym, physical */
	u64 len;	/* esym - ssym */
	const struct ehdr *e;
	const struct shdr *sh;
	const struct sym *sym;
	u64 nsym, nlocal;
	const char *str;
	u64 strsize;
};

/* A file-scope local: must be in the table as a local function. */
static int __attribute__((noinline)) syms_local_probe(int x)
{
	return x * 3 + 1;
}

static int streq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/* The header and section headers, inside the block. */
static int check_headers(struct symtab *t)
{
	const struct ehdr *e = t->e;

	if (t->len < sizeof(*e) || e->ident[0] != 0x7f || e->ident[1] != 'E' ||
	    e->ident[2] != 'L' || e->ident[3] != 'F' || e->ident[4] != 2)
		return fail("symbols",
			    "no ELF64 header at the image's end, len", t->len);
	if (e->machine != 62)
		return fail("symbols", "e_machine", e->machine);
	if (e->shoff != 64 || e->phoff != 0 || e->phnum != 0 ||
	    e->shentsize != sizeof(struct shdr))
		return fail("symbols", "not boot(8)'s header shape, e_shoff",
			    e->shoff);
	if (e->shnum == 0 || e->shstrndx >= e->shnum ||
	    64 + (u64)e->shnum * sizeof(struct shdr) > t->len)
		return fail("symbols",
			    "section headers outside the block, shnum",
			    e->shnum);
	t->sh = (const struct shdr *)(t->base + 64);
	return 0;
}

/* Loaded sections: 8-aligned, back to back after the headers, inside
 * the block, SHF_ALLOC; the last one ends at esym. */
static int check_sections_layout(struct symtab *t)
{
	u64 at = 64 + (u64)t->e->shnum * sizeof(struct shdr), i;

	for (i = 0; i < t->e->shnum; i++) {
		const struct shdr *s = &t->sh[i];

		if (s->type != SHT_SYMTAB && s->type != SHT_STRTAB)
			continue;
		if (s->offset != at || !(s->flags & SHF_ALLOC))
			return fail("symbols",
				    "table not where boot(8) puts "
				    "it, section",
				    i);
		if (s->size > t->len - at)
			return fail("symbols", "table past esym, section", i);
		at += (s->size + 7) & ~7ull;
	}
	if (at != t->len)
		return fail("symbols", "esym not at the last table's end, at",
			    at);
	return 0;
}

static int find_symtab(struct symtab *t)
{
	u64 i;

	for (i = 0; i < t->e->shnum; i++) {
		const struct shdr *s = &t->sh[i], *l;

		if (s->type != SHT_SYMTAB)
			continue;
		if (s->link >= t->e->shnum || s->size % sizeof(struct sym))
			return fail("symbols", "bad .symtab header, sh_link",
				    s->link);
		l = &t->sh[s->link];
		if (l->type != SHT_STRTAB || l->size == 0 || (s->offset & 7) ||
		    (l->offset & 7))
			return fail("symbols",
				    "strtab missing or unaligned, at",
				    l->offset);
		t->sym = (const struct sym *)(t->base + s->offset);
		t->nsym = s->size / sizeof(struct sym);
		t->nlocal = s->info;
		t->str = (const char *)t->base + l->offset;
		t->strsize = l->size;
		return 0;
	}
	return fail("symbols", "no SHT_SYMTAB among sections", t->e->shnum);
}

/* Names inside the strings (ddb's own check), locals before sh_info. */
static int check_entries(const struct symtab *t)
{
	u64 i;

	if (t->nsym < 2 || t->nlocal == 0 || t->nlocal > t->nsym)
		return fail("symbols", "empty table or bad sh_info", t->nlocal);
	for (i = 0; i < t->nsym; i++) {
		if (t->sym[i].name >= t->strsize || t->str[t->strsize - 1])
			return fail("symbols", "name outside .strtab, symbol",
				    i);
		if (i &&
		    ((t->sym[i].info >> 4) == STB_LOCAL) != (i < t->nlocal))
			return fail("symbols",
				    "local after the first global, symbol", i);
	}
	return 0;
}

static const struct sym *lookup(const struct symtab *t, const char *name)
{
	u64 i;

	for (i = 1; i < t->nsym; i++)
		if (streq(t->str + t->sym[i].name, name))
			return &t->sym[i];
	return 0;
}

/* name must be a function of binding bind at address va. */
static int check_func(const struct symtab *t, const char *name, u64 va,
		      int bind)
{
	const struct sym *s = lookup(t, name);

	if (!s)
		return fail("symbols", name, 0);
	if (s->value != va || (s->info & 15) != STT_FUNC ||
	    (s->info >> 4) != bind || s->size == 0)
		return fail("symbols", name, s->value);
	return 0;
}

int check_symbols(void)
{
	const u32 *a = obsd_stackargs;
	u64 ssym = PHYS(__kernel_bss_end), esym = a[4];
	struct symtab t = { 0 };

	if (syms_local_probe(1) != 4)
		return fail("symbols", "probe", 0);
	if ((ssym & 7) || esym <= ssym)
		return fail("symbols", "no table: end", esym);
	t.base = (const u8 *)ssym;
	t.len = esym - ssym;
	t.e = (const struct ehdr *)t.base;
	if (check_headers(&t) || check_sections_layout(&t) || find_symtab(&t) ||
	    check_entries(&t))
		return 1;
	if (check_func(&t, "obsd_main", (u64)obsd_main, STB_GLOBAL) ||
	    check_func(&t, "check_symbols", (u64)check_symbols, STB_GLOBAL) ||
	    check_func(&t, "syms_local_probe", (u64)syms_local_probe,
		       STB_LOCAL))
		return 1;
	cons_puts("obsd: symbols ");
	cons_dec(t.nsym);
	cons_puts("\nobsd: check symbols ok\n");
	return 0;
}
