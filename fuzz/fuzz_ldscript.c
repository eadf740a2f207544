/*
 * libFuzzer target: the GNU ld script parser and compiler (host side of
 * `linkkit create`; scripts come from kernel source trees). The script is
 * compiled against a fixed set of inputs shaped like the demo kernel's
 * (text/rodata/data/bss, a merge string section, init tables, COMMON).
 */
#include <elf.h>

#include "ldscript.h"
#include "fz_host.h"

#define NSYM 256

struct fz_ls {
	char *syms[NSYM];
	uint32_t nsyms;
	char *strs[NSYM];
	uint32_t nstrs;
};

static uint32_t fz_symbol(void *ctx, const char *name, int assigns,
			  int provide)
{
	struct fz_ls *t = ctx;
	uint32_t i;

	(void)assigns;
	for (i = 0; i < t->nsyms; i++)
		if (!strcmp(t->syms[i], name))
			return i;
	if (provide && name[0] == 'p')
		return UINT32_MAX; /* exercise dropped PROVIDEs */
	if (t->nsyms == NSYM)
		return NSYM - 1;
	t->syms[t->nsyms] = strdup(name);
	return t->nsyms++;
}

static uint32_t fz_slot_flags(void *ctx, const char *outsec,
			      const char *pattern)
{
	(void)ctx;
	(void)outsec;
	return strstr(pattern, "initcall") ? LK_SLOT_CANONICAL : 0;
}

static uint32_t fz_outsec_flags(void *ctx, const char *outsec)
{
	(void)ctx;
	return strstr(outsec, "random") ? LK_OUTSEC_RANDOM_FILL : 0;
}

static uint32_t fz_intern(void *ctx, const char *s)
{
	struct fz_ls *t = ctx;

	if (t->nstrs == NSYM)
		return 0;
	t->strs[t->nstrs] = strdup(s);
	return t->nstrs++;
}

static int fz_defined(void *ctx, const char *name)
{
	(void)ctx;
	return !strcmp(name, "start") || !strcmp(name, "main");
}

#define AX (SHF_ALLOC | SHF_EXECINSTR)
#define AW (SHF_ALLOC | SHF_WRITE)
static const struct ls_input fz_inputs[] = {
	{ "locore.o", ".text", 0, SHT_PROGBITS, AX, 0x40, 16 },
	{ "locore.o", ".multiboot", 0, SHT_PROGBITS, SHF_ALLOC, 0x18, 8 },
	{ "gap", ".text.gap", 1, SHT_PROGBITS, AX, 0x3000, 16 },
	{ "gap", ".bss.gap", 1, SHT_NOBITS, AW, 0x1000, 16 },
	{ "a.o", ".text", 2, SHT_PROGBITS, AX, 0x123, 16 },
	{ "a.o", ".text.foo", 2, SHT_PROGBITS, AX, 0x10, 1 },
	{ "a.o", ".rodata", 2, SHT_PROGBITS, SHF_ALLOC, 0x20, 32 },
	{ "a.o", ".rodata.str1.1", 2, SHT_PROGBITS,
	  SHF_ALLOC | SHF_MERGE | SHF_STRINGS, 0x11, 1 },
	{ "a.o", ".data", 2, SHT_PROGBITS, AW, 0x8, 8 },
	{ "a.o", ".initcall1.init", 2, SHT_PROGBITS, SHF_ALLOC, 0x8, 8 },
	{ "a.o", ".bss", 2, SHT_NOBITS, AW, 0x2000, 4096 },
	{ "b.o", ".text", 3, SHT_PROGBITS, AX, 0x77, 4 },
	{ "b.o", ".data.rel.ro", 3, SHT_PROGBITS, AW, 0x18, 8 },
	{ "b.o", ".demo.randomdata", 3, SHT_PROGBITS, AW, 0x8, 8 },
	{ "b.o", ".tbss", 3, SHT_NOBITS, AW | SHF_TLS, 0x4, 4 },
	{ "b.o", "COMMON", 3, SHT_NOBITS, AW, 0x40, 32 },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_ls t = { 0 };
	/* lld_empty = 1: also walks lld's rule for empty sections. */
	struct ls_callbacks cb = { &t, fz_symbol, fz_slot_flags,
				   fz_outsec_flags, fz_intern, fz_defined, 1 };
	struct ls_compiled c;
	struct ls_script *s;
	char *text;
	uint32_t i;

	if (size > 65536)
		return 0; /* keep executions fast; length is not the point */
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	s = ls_parse_string("fuzz.ld", text);
	if (s) {
		memset(&c, 0, sizeof(c));
		if (ls_compile(s, fz_inputs,
			       sizeof(fz_inputs) / sizeof(fz_inputs[0]), &cb,
			       &c) == 0)
			ls_compiled_free(&c);
		ls_free(s);
	}
	for (i = 0; i < t.nsyms; i++)
		free(t.syms[i]);
	for (i = 0; i < t.nstrs; i++)
		free(t.strs[i]);
	free(text);
	return 0;
}

static void fz_quiet(void *ctx, const char *line)
{
	(void)ctx;
	if (getenv("FZ_VERBOSE"))
		fprintf(stderr, "%s\n", line);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	ls_set_diag(fz_quiet, NULL);
	return 0;
}
