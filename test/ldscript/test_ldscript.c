/*
 * Unit tests for the GNU ld script parser and plan compiler
 * (tools/ldscript_*.c). Prints "ok NAME" / "not ok NAME: reason".
 */
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../tools/ldscript.h"

#ifndef LS_TEST_DIR
#define LS_TEST_DIR "test/ldscript"
#endif

/* ---- result bookkeeping ---- */

static char why[1024];

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	if (why[0])
		return; /* keep the first reason */
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
}

#define CHECK(cond, ...)                  \
	do {                              \
		if (!(cond))              \
			fail(__VA_ARGS__); \
	} while (0)

static int nfailed;

static void report(const char *name)
{
	if (why[0]) {
		printf("not ok %s: %s\n", name, why);
		nfailed++;
	} else {
		printf("ok %s\n", name);
	}
	why[0] = 0;
	fflush(stdout);
}

/* ---- diagnostics capture ---- */

static char diag[16384];
static int ndiag;

static void on_diag(void *ctx, const char *line)
{
	size_t n = strlen(diag);

	(void)ctx;
	ndiag++;
	snprintf(diag + n, sizeof(diag) - n, "%s\n", line);
}

static void diag_reset(void)
{
	diag[0] = 0;
	ndiag = 0;
}

/* ---- a tiny symbol table / strtab as the kit builder would keep ---- */

#define MAXSYM 256
struct tctx {
	char *syms[MAXSYM];
	int assigned[MAXSYM];
	int nsyms;
	char *strs[MAXSYM];
	int nstrs;
	const char *const *objdefs;  /* defined by some object */
	const char *const *unused;   /* never referenced: PROVIDE drops */
	const char *canonical;       /* slot_flags: this pattern -> CANONICAL */
	const char *random_fill;     /* outsec_flags */
	int lld;                     /* callbacks: lld_empty */
	int strict; /* references need a definition, like a kit builder */
	const char *const *refuse; /* the builder cannot define these */
};

static int in_list(const char *const *l, const char *s)
{
	for (; l && *l; l++)
		if (!strcmp(*l, s))
			return 1;
	return 0;
}

static uint32_t cb_symbol(void *vctx, const char *name, int assigns,
			  int provide)
{
	struct tctx *t = vctx;
	int i;

	if (provide && (in_list(t->objdefs, name) || in_list(t->unused, name)))
		return UINT32_MAX;
	if (in_list(t->refuse, name))
		return UINT32_MAX;
	for (i = 0; i < t->nsyms; i++)
		if (!strcmp(t->syms[i], name))
			break;
	if (i == t->nsyms && t->strict && !assigns && !in_list(t->objdefs, name))
		return UINT32_MAX;
	if (i == t->nsyms) {
		if (t->nsyms == MAXSYM)
			return UINT32_MAX;
		t->syms[t->nsyms++] = strdup(name);
	}
	t->assigned[i] |= assigns;
	return (uint32_t)i;
}

static uint32_t cb_slot_flags(void *vctx, const char *os, const char *pat)
{
	struct tctx *t = vctx;

	(void)os;
	return t->canonical && !strcmp(pat, t->canonical) ? LK_SLOT_CANONICAL : 0;
}

static uint32_t cb_outsec_flags(void *vctx, const char *os)
{
	struct tctx *t = vctx;

	return t->random_fill && !strcmp(os, t->random_fill) ?
		       LK_OUTSEC_RANDOM_FILL : 0;
}

static uint32_t cb_intern(void *vctx, const char *s)
{
	struct tctx *t = vctx;

	if (t->nstrs == MAXSYM)
		return 0;
	t->strs[t->nstrs++] = strdup(s);
	return (uint32_t)t->nstrs; /* 1-based: 0 is the empty name */
}

static int cb_defined(void *vctx, const char *name)
{
	return in_list(((struct tctx *)vctx)->objdefs, name);
}

static void tctx_free(struct tctx *t)
{
	int i;

	for (i = 0; i < t->nsyms; i++)
		free(t->syms[i]);
	for (i = 0; i < t->nstrs; i++)
		free(t->strs[i]);
	memset(t, 0, sizeof(*t));
}

static struct ls_callbacks callbacks(struct tctx *t)
{
	struct ls_callbacks cb = {
		.ctx = t,
		.symbol = cb_symbol,
		.slot_flags = cb_slot_flags,
		.outsec_flags = cb_outsec_flags,
		.intern = cb_intern,
		.defined = cb_defined,
		.lld_empty = t->lld,
	};
	return cb;
}

static const char *str_at(const struct tctx *t, uint32_t off)
{
	return off && off <= (uint32_t)t->nstrs ? t->strs[off - 1] : "?";
}

static const char *sym_at(const struct tctx *t, uint32_t i)
{
	return i < (uint32_t)t->nsyms ? t->syms[i] : "?";
}

/* ---- plan disassembly, so expected plans read like the script ---- */

static const char *const opnames[] = {
	[LK_E_CONST] = "CONST", [LK_E_DOT] = "DOT", [LK_E_SYM] = "SYM",
	[LK_E_ADDR] = "ADDR", [LK_E_LOADADDR] = "LOADADDR",
	[LK_E_SIZEOF] = "SIZEOF", [LK_E_ALIGNOF] = "ALIGNOF",
	[LK_E_ALIGN] = "ALIGN", [LK_E_ALIGN2] = "ALIGN2", [LK_E_ADD] = "ADD",
	[LK_E_SUB] = "SUB", [LK_E_MUL] = "MUL", [LK_E_DIV] = "DIV",
	[LK_E_MOD] = "MOD", [LK_E_AND] = "AND", [LK_E_OR] = "OR",
	[LK_E_XOR] = "XOR", [LK_E_SHL] = "SHL", [LK_E_SHR] = "SHR",
	[LK_E_LT] = "LT", [LK_E_LE] = "LE", [LK_E_GT] = "GT", [LK_E_GE] = "GE",
	[LK_E_EQ] = "EQ", [LK_E_NE] = "NE", [LK_E_LAND] = "LAND",
	[LK_E_LOR] = "LOR", [LK_E_MAX] = "MAX", [LK_E_MIN] = "MIN",
	[LK_E_NEG] = "NEG", [LK_E_NOT] = "NOT", [LK_E_LNOT] = "LNOT",
	[LK_E_COND] = "COND",
};

static void disasm_one(const struct tctx *t, const struct ls_compiled *c,
		       const struct lk_op *op, char *b, size_t n)
{
	switch (op->code) {
	case LK_E_CONST: snprintf(b, n, "%#llx", (unsigned long long)op->imm); break;
	case LK_E_SYM: snprintf(b, n, "SYM:%s", sym_at(t, op->arg)); break;
	case LK_E_ADDR: case LK_E_LOADADDR: case LK_E_SIZEOF: case LK_E_ALIGNOF:
		snprintf(b, n, "%s:%s", opnames[op->code],
			 op->arg < c->noutsecs ? str_at(t, c->outsecs[op->arg].name) : "?");
		break;
	case LK_S_SET_DOT: snprintf(b, n, "SETDOT"); break;
	case LK_S_ASSIGN: snprintf(b, n, "ASSIGN:%s", sym_at(t, op->arg)); break;
	case LK_S_SECTION:
		snprintf(b, n, "SECTION:%s%s%s%s",
			 op->arg < c->noutsecs ? str_at(t, c->outsecs[op->arg].name) : "?",
			 op->flags & LK_SEC_VMA ? "/vma" : "",
			 op->flags & LK_SEC_ALIGN ? "/align" : "",
			 op->flags & LK_SEC_LMA ? "/lma" : "");
		break;
	case LK_S_SLOT: snprintf(b, n, "SLOT:%u", op->arg); break;
	case LK_S_DATA: snprintf(b, n, "DATA%u", op->arg); break;
	case LK_S_END_SECTION: snprintf(b, n, "END"); break;
	case LK_S_ASSERT: snprintf(b, n, "ASSERT:%s", str_at(t, (uint32_t)op->imm)); break;
	default:
		snprintf(b, n, "%s", op->code < sizeof(opnames) / sizeof(opnames[0]) &&
			 opnames[op->code] ? opnames[op->code] : "BAD");
	}
}

static char *disasm(const struct tctx *t, const struct ls_compiled *c)
{
	static char out[65536];
	size_t len = 0;
	uint32_t i;

	out[0] = 0;
	for (i = 0; i < c->nops && len < sizeof(out) - 200; i++) {
		char b[160];

		disasm_one(t, c, &c->ops[i], b, sizeof(b));
		len += snprintf(out + len, sizeof(out) - len, "%s%s", i ? " " : "", b);
	}
	return out;
}

/* ---- helpers ---- */

#define AX (SHF_ALLOC | SHF_EXECINSTR)
#define AW (SHF_ALLOC | SHF_WRITE)
#define A SHF_ALLOC
#define PB SHT_PROGBITS
#define NB SHT_NOBITS

/* Parses and compiles `text`; returns the plan disassembly or NULL. */
static char *compile_text(const char *text, const struct ls_input *in,
			  size_t nin, struct tctx *t, struct ls_compiled *c)
{
	struct ls_script *s;
	struct ls_callbacks cb = callbacks(t);
	int rc;

	diag_reset();
	s = ls_parse_string("t.ld", text);
	if (!s)
		return NULL;
	rc = ls_compile(s, in, nin, &cb, c);
	ls_free(s);
	return rc ? NULL : disasm(t, c);
}

static uint32_t outsec_index(const struct tctx *t, const struct ls_compiled *c,
			     const char *name)
{
	uint32_t i;

	for (i = 0; i < c->noutsecs; i++)
		if (!strcmp(str_at(t, c->outsecs[i].name), name))
			return i;
	return UINT32_MAX;
}

/* The plan must contain `want` as a contiguous run of ops. */
static void check_plan_has(const char *plan, const char *want)
{
	size_t n = strlen(want);
	const char *p = plan;

	while ((p = strstr(p, want))) {
		if ((p == plan || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
			return;
		p++;
	}
	fail("plan lacks \"%s\"; plan: %s", want, plan);
}

/* ---- tests ---- */

static const struct ls_input bsd_inputs[] = {
	/* 0 */ { "locore0.o", ".text", 0, PB, AX, 16, 16 },
	/* 1 */ { "gap", ".text", 1, PB, AX, 12288, 4096 },
	/* 2 */ { "locore.o", ".text", 2, PB, AX, 64, 64 },
	/* 3 */ { "locore.o", ".text.first", 2, PB, AX, 8, 8 },
	/* 4 */ { "nofirst.o", ".text.first", 3, PB, AX, 8, 4 },
	/* 5 */ { "nofirst.o", ".text", 3, PB, AX, 8, 4 },
	/* 6 */ { "skipme.o", ".text", 4, PB, AX, 8, 4 },
	/* 7 */ { "skipme.o", ".text.skipped", 4, PB, AX, 8, 4 },
	/* 8 */ { "kern.o", ".rodata", 5, PB, A, 8, 32 },
	/* 9 */ { "kern.o", ".initcall.3", 5, PB, A, 8, 8 },
	/* 10 */ { "kern.o", ".data", 5, PB, AW, 8, 8 },
	/* 11 */ { "kern.o", ".bss", 5, NB, AW, 8, 128 },
	/* 12 */ { "kern.o", "COMMON", 5, NB, AW, 8, 8 },
	/* 13 */ { "kern.o", ".eh_frame", 5, PB, A, 8, 8 },
	/* 14 */ { "kern.o", ".weird", 5, PB, A, 8, 8 },
	/* 15 */ { "kern.o", ".openbsd.randomdata", 5, PB, A, 8, 8 },
	/* 16 */ { "kern.o", ".bss2", 5, NB, AW, 8, 8 },
	/* 17 */ { "kern.o", ".data.after", 5, PB, AW, 8, 8 },
	/* 18 */ { "kern.o", ".ctors.1", 5, PB, AW, 8, 8 },
};
#define NBSD (sizeof(bsd_inputs) / sizeof(bsd_inputs[0]))

static void test_bsd_script(void)
{
	static const char *const objdefs[] = { "objsym", NULL };
	static const char *const unused[] = { "unused_provide", NULL };
	struct tctx t = { .objdefs = objdefs, .unused = unused,
			  .canonical = ".initcall.*",
			  .random_fill = ".openbsd.randomdata" };
	struct ls_callbacks cb = callbacks(&t);
	struct ls_compiled c;
	struct ls_script *s;
	char *plan;
	uint32_t i, text, rod, rnd, note, data, bss, bss2, nothing, after;

	diag_reset();
	s = ls_parse_file(LS_TEST_DIR "/bsd.ld");
	if (!s) {
		fail("parse failed: %s", diag);
		report("bsd_script");
		return;
	}
	CHECK(ls_entry(s) && !strcmp(ls_entry(s), "start"), "entry %s", ls_entry(s));
	if (ls_compile(s, bsd_inputs, NBSD, &cb, &c)) {
		fail("compile failed: %s", diag);
		ls_free(s);
		tctx_free(&t);
		report("bsd_script");
		return;
	}
	plan = disasm(&t, &c);

	/* segments */
	CHECK(c.nphdrs == 7, "nphdrs %u", c.nphdrs);
	CHECK(c.sizeof_headers == 64 + 56 * 7, "sizeof_headers %llu",
	      (unsigned long long)c.sizeof_headers);
	if (c.nphdrs == 7) {
		CHECK(!strcmp(str_at(&t, c.phdrs[0].name), "text") &&
		      c.phdrs[0].type == PT_LOAD &&
		      c.phdrs[0].pflags == (LK_PHDR_FILEHDR | LK_PHDR_PHDRS),
		      "phdr text %u %#x", c.phdrs[0].type, c.phdrs[0].pflags);
		CHECK(c.phdrs[1].pflags == LK_PHDR_FLAGS_SET && c.phdrs[1].flags == 4,
		      "phdr rodata flags %#x/%#x", c.phdrs[1].pflags, c.phdrs[1].flags);
		CHECK(c.phdrs[2].flags == 6, "phdr data flags %u", c.phdrs[2].flags);
		CHECK(c.phdrs[4].type == 0x65a3dbe6, "randomize type %#x", c.phdrs[4].type);
		CHECK(c.phdrs[5].type == PT_NOTE, "note type %#x", c.phdrs[5].type);
		CHECK(c.phdrs[6].type == 0x60000001 && c.phdrs[6].flags == 4,
		      "numeric phdr %#x", c.phdrs[6].type);
	}

	/* output sections */
	CHECK(c.noutsecs == 9, "noutsecs %u", c.noutsecs);
	text = outsec_index(&t, &c, ".text");
	rod = outsec_index(&t, &c, ".rodata");
	rnd = outsec_index(&t, &c, ".openbsd.randomdata");
	note = outsec_index(&t, &c, ".note.kernel");
	after = outsec_index(&t, &c, ".data.after");
	data = outsec_index(&t, &c, ".data");
	bss = outsec_index(&t, &c, ".bss");
	bss2 = outsec_index(&t, &c, ".bss2");
	nothing = outsec_index(&t, &c, ".nothing");
	if (why[0] || text || rod != 1 || rnd != 2 || note != 3 || after != 4 ||
	    data != 5 || bss != 6 || bss2 != 7 || nothing != 8) {
		fail("outsec order %u %u %u %u %u %u %u %u %u", text, rod, rnd,
		     note, after, data, bss, bss2, nothing);
		goto out;
	}
	CHECK(c.outsecs[text].type == SHT_PROGBITS &&
	      c.outsecs[text].flags == AX && c.outsecs[text].align == 4096,
	      ".text type %u flags %#llx align %llu", c.outsecs[text].type,
	      (unsigned long long)c.outsecs[text].flags,
	      (unsigned long long)c.outsecs[text].align);
	CHECK(c.outsecs[text].fill == 0xcccccccc && c.outsecs[text].fill_len == 4,
	      ".text fill %#x/%u", c.outsecs[text].fill, c.outsecs[text].fill_len);
	CHECK(c.outsecs[text].phdr_mask == 1, ".text mask %#x", c.outsecs[text].phdr_mask);
	/* explicit ALIGN(64) beats the inputs' 32 */
	CHECK(c.outsecs[rod].align == 64 && c.outsecs[rod].flags == (A | SHF_WRITE),
	      ".rodata align %llu flags %#llx", (unsigned long long)c.outsecs[rod].align,
	      (unsigned long long)c.outsecs[rod].flags);
	CHECK(c.outsecs[rod].phdr_mask == 2, ".rodata mask %#x", c.outsecs[rod].phdr_mask);
	CHECK(c.outsecs[rnd].phdr_mask == (2 | 16) &&
	      c.outsecs[rnd].oflags == LK_OUTSEC_RANDOM_FILL,
	      "randomdata mask %#x oflags %#x", c.outsecs[rnd].phdr_mask,
	      c.outsecs[rnd].oflags);
	CHECK(c.outsecs[note].phdr_mask == (2 | 32), ".note mask %#x",
	      c.outsecs[note].phdr_mask);
	/* inherits the previous section's segments */
	CHECK(c.outsecs[after].phdr_mask == (2 | 32), ".data.after mask %#x",
	      c.outsecs[after].phdr_mask);
	CHECK(c.outsecs[data].phdr_mask == 4 && c.outsecs[data].fill == 0x90 &&
	      c.outsecs[data].fill_len == 1 && c.outsecs[data].type == SHT_PROGBITS,
	      ".data mask %#x fill %#x/%u", c.outsecs[data].phdr_mask,
	      c.outsecs[data].fill, c.outsecs[data].fill_len);
	CHECK(c.outsecs[bss].type == SHT_NOBITS && c.outsecs[bss].align == 128 &&
	      c.outsecs[bss].flags == AW && c.outsecs[bss].phdr_mask == 8,
	      ".bss type %u align %llu mask %#x", c.outsecs[bss].type,
	      (unsigned long long)c.outsecs[bss].align, c.outsecs[bss].phdr_mask);
	CHECK(c.outsecs[bss2].type == SHT_NOBITS && c.outsecs[bss2].phdr_mask == 8,
	      ".bss2 type %u mask %#x", c.outsecs[bss2].type, c.outsecs[bss2].phdr_mask);
	CHECK(c.outsecs[nothing].phdr_mask == 0, ".nothing mask %#x",
	      c.outsecs[nothing].phdr_mask);
	CHECK(c.outsecs[rod].type == SHT_PROGBITS, ".rodata type");

	/* slots: description order, first match wins */
	{
		static const uint32_t want[NBSD] = {
			0, 3, 2, 1, 3, 3, LS_ORPHAN, 4, 5, 6, 12, 13, 14,
			LS_DISCARD, LS_ORPHAN, 9, 15, 11, 7,
		};

		CHECK(c.nslots == 17, "nslots %u", c.nslots);
		for (i = 0; i < NBSD; i++)
			CHECK(c.input_slot[i] == want[i], "input %u (%s %s) slot %d want %d",
			      i, bsd_inputs[i].object, bsd_inputs[i].section,
			      (int)c.input_slot[i], (int)want[i]);
		CHECK(c.slots[5].flags == LK_SLOT_SORT_ALIGN, "slot 5 flags %#x",
		      c.slots[5].flags);
		CHECK(c.slots[6].flags == (LK_SLOT_SORT_NAME | LK_SLOT_CANONICAL),
		      "slot 6 flags %#x", c.slots[6].flags);
		CHECK(c.slots[7].flags == LK_SLOT_SORT_NAME, "slot 7 flags %#x",
		      c.slots[7].flags);
		CHECK(c.slots[0].flags == 0 && c.slots[0].outsec == text &&
		      c.slots[4].outsec == text && c.slots[5].outsec == rod &&
		      c.slots[13].outsec == bss && c.slots[15].outsec == bss2 &&
		      c.slots[16].outsec == nothing,
		      "slot outsecs");
	}

	/* plan */
	CHECK(!strncmp(plan, "0xffffffff81001000 ASSIGN:__kernel_base_virt "
			     "SYM:__kernel_base_virt 0x7fffffff AND ASSIGN:__kernel_base_phys "
			     "SYM:__kernel_base_virt SYM:__kernel_base_phys SUB "
			     "ASSIGN:__kernel_virt_to_phys "
			     "SYM:__kernel_base_virt 0x1c8 ADD SETDOT "
			     "0x1000 ALIGN DOT SYM:__kernel_virt_to_phys SUB SECTION:.text/vma/lma "
			     "DOT ASSIGN:start SLOT:0 SLOT:1 SLOT:2 SLOT:3 SLOT:4 "
			     "0x1000 ALIGN SETDOT DOT ASSIGN:_etext END ",
		       strlen("0xffffffff81001000 ASSIGN:__kernel_base_virt "
			      "SYM:__kernel_base_virt 0x7fffffff AND ASSIGN:__kernel_base_phys "
			      "SYM:__kernel_base_virt SYM:__kernel_base_phys SUB "
			      "ASSIGN:__kernel_virt_to_phys "
			      "SYM:__kernel_base_virt 0x1c8 ADD SETDOT "
			      "0x1000 ALIGN DOT SYM:__kernel_virt_to_phys SUB SECTION:.text/vma/lma "
			      "DOT ASSIGN:start SLOT:0 SLOT:1 SLOT:2 SLOT:3 SLOT:4 "
			      "0x1000 ALIGN SETDOT DOT ASSIGN:_etext END ")),
	      "plan start: %.600s", plan);
	check_plan_has(plan, "SYM:_etext ASSIGN:etext");
	CHECK(!strstr(plan, "unused_provide"), "unreferenced PROVIDE kept");
	check_plan_has(plan, "DOT ASSIGN:__hidden_end");
	/* ADDR() of the section in its own AT(): `.` aligned as the core
	 * will align it (inputs' 32, explicit 64) */
	check_plan_has(plan, "0x40 0x20 0x40 MAX ALIGN SYM:__kernel_virt_to_phys SUB "
			     "SECTION:.rodata/align/lma");
	check_plan_has(plan, "0x8 ALIGN SETDOT 0x12345678 DATA4 0x7 DATA2 0x1 DATA1 "
			     "SYM:__rodata_start DATA8 END");
	check_plan_has(plan, "SECTION:.openbsd.randomdata SLOT:9 END");
	check_plan_has(plan, "0x1000 ALIGN SECTION:.data.after/vma SLOT:11 END");
	check_plan_has(plan, "0x200000 ALIGN SETDOT LOADADDR:.rodata SIZEOF:.rodata ADD "
			     "ALIGNOF:.text 0x10 GT 0x10 0 COND ADD SECTION:.data/lma");
	/* DEFINED(start) is 1 (assigned earlier), DEFINED(nosuch) is 0 */
	check_plan_has(plan, "DOT 0x1 ADD 0x8 ADD ASSIGN:__data_mid");
	check_plan_has(plan, "SECTION:.bss DOT ASSIGN:__bss_start SLOT:13 SLOT:14 "
			     "DOT 0x10 ADD SETDOT DOT ASSIGN:__bss_end END");
	check_plan_has(plan, "0x200000 ALIGN ASSIGN:_end SYM:_end 0 ADD ASSIGN:_end");
	check_plan_has(plan, "SYM:_end DOT MAX ASSIGN:__max");
	check_plan_has(plan, "SYM:_end SYM:__kernel_base_virt GT ASSERT:kernel has no size");
	check_plan_has(plan, "SYM:__bss_end SYM:__bss_start GE ASSERT:bss inverted");
	CHECK(!strstr(plan, "eh_frame") && !strstr(plan, "DISCARD"), "discard in plan");
	{
		/* the plan must end after the last ASSERT: /DISCARD/ emits nothing */
		const char *tail = strrchr(plan, ' ');

		CHECK(tail && !strcmp(tail, " inverted"), "plan tail %s", tail);
	}
	ls_compiled_free(&c);
out:
	ls_free(s);
	tctx_free(&t);
	report("bsd_script");
}

/* Every binary operator: postfix order and the opcode. */
static void test_operators(void)
{
	static const struct {
		const char *op;
		const char *name;
	} ops[] = {
		{ "+", "ADD" }, { "-", "SUB" }, { "*", "MUL" }, { "/", "DIV" },
		{ "%", "MOD" }, { "&", "AND" }, { "|", "OR" }, { "^", "XOR" },
		{ "<<", "SHL" }, { ">>", "SHR" }, { "<", "LT" }, { "<=", "LE" },
		{ ">", "GT" }, { ">=", "GE" }, { "==", "EQ" }, { "!=", "NE" },
		{ "&&", "LAND" }, { "||", "LOR" },
	};
	static const struct {
		const char *op;
		const char *name;
	} assigns[] = {
		{ "+=", "ADD" }, { "-=", "SUB" }, { "*=", "MUL" }, { "/=", "DIV" },
		{ "&=", "AND" }, { "|=", "OR" }, { "<<=", "SHL" }, { ">>=", "SHR" },
	};
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct tctx t = { 0 };
		struct ls_compiled c;
		char text[128], want[128];
		char *plan;

		snprintf(text, sizeof(text), "x = a%sb;", ops[i].op);
		snprintf(want, sizeof(want), "SYM:a SYM:b %s ASSIGN:x", ops[i].name);
		plan = compile_text(text, NULL, 0, &t, &c);
		CHECK(plan && !strcmp(plan, want), "'%s' gave '%s' (%s)", text,
		      plan ? plan : "error", diag);
		if (plan)
			ls_compiled_free(&c);
		tctx_free(&t);
	}
	for (i = 0; i < sizeof(assigns) / sizeof(assigns[0]); i++) {
		struct tctx t = { 0 };
		struct ls_compiled c;
		char text[160], want[160];
		char *plan;

		snprintf(text, sizeof(text),
			 "x = 1; x %s b; SECTIONS { .t : { . %s 4; } }",
			 assigns[i].op, assigns[i].op);
		/* b is an object symbol: its assignment moves to the end */
		snprintf(want, sizeof(want),
			 "0x1 ASSIGN:x SECTION:.t DOT 0x4 %s SETDOT END SYM:x SYM:b %s ASSIGN:x",
			 assigns[i].name, assigns[i].name);
		plan = compile_text(text, NULL, 0, &t, &c);
		CHECK(plan && !strcmp(plan, want), "'%s' gave '%s' (%s)", text,
		      plan ? plan : "error", diag);
		if (plan)
			ls_compiled_free(&c);
		tctx_free(&t);
	}
	{
		struct tctx t = { 0 };
		struct ls_compiled c;
		char *plan = compile_text("y = -a + ~b * !c ? (d) : e - f - g;",
					  NULL, 0, &t, &c);
		const char *want = "SYM:a NEG SYM:b NOT SYM:c LNOT MUL ADD SYM:d "
				   "SYM:e SYM:f SUB SYM:g SUB COND ASSIGN:y";

		CHECK(plan && !strcmp(plan, want), "unary/cond gave '%s' (%s)",
		      plan ? plan : "error", diag);
		if (plan)
			ls_compiled_free(&c);
		tctx_free(&t);
	}
	report("operators");
}

/* Constant folding agrees with C on the same text (precedence, 64-bit
 * unsigned wrap); the C value comes from the compiler, not from us. */
/* The cases test precedence on purpose. */
#pragma GCC diagnostic ignored "-Wparentheses"
#define FOLD(e) { #e, (uint64_t)(e) }
static void test_folding(void)
{
	static const struct {
		const char *text;
		uint64_t value;
	} cases[] = {
		FOLD(1 + 2 * 3 << 1),
		FOLD(100 / 7 % 4 - 1),
		FOLD(0xf0 | 0x0f & 0x3c ^ 0x11),
		FOLD(1 < 2 == 1 != 0),
		FOLD(0 || 1 && 0),
		FOLD(3 > 2 ? 0x10 : 0x20),
		FOLD(0 ? 1 : 2 ? 3 : 4),
		FOLD(0x8000000000000000 >> 63),
		FOLD(0 - 1),
		FOLD(-(5) + ~0 + !0 + !7),
		FOLD(0xffffffffffffffff * 2),
		FOLD((1 + 2) * (3 + 4) >= 21),
		FOLD(017 + 010),
		FOLD(5 <= 4 || 6 >= 7),
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tctx t = { 0 };
		struct ls_compiled c;
		char text[256], want[128];
		char *plan;

		snprintf(text, sizeof(text), "v = %s;", cases[i].text);
		snprintf(want, sizeof(want), "%#llx ASSIGN:v",
			 (unsigned long long)cases[i].value);
		plan = compile_text(text, NULL, 0, &t, &c);
		CHECK(plan && !strcmp(plan, want), "'%s' gave '%s' want '%s' (%s)",
		      text, plan ? plan : "error", want, diag);
		if (plan)
			ls_compiled_free(&c);
		tctx_free(&t);
	}
	{
		struct tctx t = { 0 };
		struct ls_compiled c;
		char *plan = compile_text(
			"v = 4K + 1M + ALIGN(5, 8) + MAX(3, 9) + MIN(3, 9) + "
			"CONSTANT(COMMONPAGESIZE) + ABSOLUTE(2) + "
			"SEGMENT_START(\"text-segment\", 0x400000);",
			NULL, 0, &t, &c);
		uint64_t want = 4096 + (1 << 20) + 8 + 9 + 3 + 4096 + 2 + 0x400000;
		char w[64];

		snprintf(w, sizeof(w), "%#llx ASSIGN:v", (unsigned long long)want);
		CHECK(plan && !strcmp(plan, w), "functions gave '%s'",
		      plan ? plan : diag);
		if (plan)
			ls_compiled_free(&c);
		tctx_free(&t);
	}
	{
		struct tctx t = { 0 };
		struct ls_compiled c;
		char *plan = compile_text("x = BLOCK(8) + NEXT(16) + ALIGN(32);",
					  NULL, 0, &t, &c);

		CHECK(plan && !strcmp(plan, "0x8 ALIGN 0x10 ALIGN ADD 0x20 ALIGN ADD ASSIGN:x"),
		      "BLOCK/NEXT gave '%s'", plan ? plan : diag);
		if (plan)
			ls_compiled_free(&c);
		tctx_free(&t);
	}
	report("folding");
}

/* Exact diagnostics with line numbers; every error of a script is shown. */
static void test_errors(void)
{
	static const struct {
		const char *text;
		const char *want;
	} cases[] = {
		{ "MEMORY { ram : ORIGIN = 0, LENGTH = 1M }",
		  "t.ld:1: unsupported construct 'MEMORY'\n" },
		{ "SECTIONS {\n .t : { *(.t) } > ram\n}",
		  "t.ld:2: unsupported construct '>'\n" },
		{ "SECTIONS {\n\n .t : SUBALIGN(4) { *(.t) }\n}",
		  "t.ld:3: unsupported construct 'SUBALIGN'\n" },
		{ "x = 1\ny = 2;", "t.ld:2: expected ';' but found 'y'\n" },
		{ "x = (1 + ;", "t.ld:1: expected an expression but found ';'\n" },
		{ "x = LOG2CEIL(4);", "t.ld:1: unsupported construct 'LOG2CEIL'\n" },
		{ "x = 1 @ 2;", "t.ld:1: unexpected character '@'\n" },
		{ "x = 0x;", "t.ld:1: bad number '0x'\n" },
		{ "x = 12ab;", "t.ld:1: bad number '12ab'\n" },
		{ "x = 0x10000000000000000;",
		  "t.ld:1: number '0x10000000000000000' does not fit in 64 bits\n" },
		{ "/* open\n\n", "t.ld:1: unterminated comment\n" },
		{ "ASSERT(1, \"oops);", "t.ld:1: unterminated string\n" },
		{ "PHDRS { a PT_FOO; }", "t.ld:1: unknown segment type 'PT_FOO'\n" },
		{ "PHDRS { a PT_LOAD;\n a PT_NOTE; }", "t.ld:2: duplicate segment 'a'\n" },
		{ "PHDRS { a PT_LOAD AT(0); }", "t.ld:1: unsupported construct 'AT'\n" },
		{ "SECTIONS { .a : { *(.a) } :nope }",
		  "t.ld:1: section '.a' assigned to unknown segment 'nope'\n" },
		{ "SECTIONS { .a : { *(.a) }\n.a : { *(.b) } }",
		  "t.ld:2: duplicate output section '.a'\n" },
		{ "x = ADDR(.nope);", "t.ld:1: ADDR(.nope): no such output section\n" },
		{ "x = 1 / 0;", "t.ld:1: division by zero\n" },
		{ "x = ALIGN(3);", "t.ld:1: alignment 0x3 is not a power of two\n" },
		{ "SECTIONS { .a : { *(.a) } =0x1122334455 }",
		  "t.ld:1: fill pattern longer than 4 bytes\n" },
		{ "SECTIONS { .a : { . = 0x100; } }",
		  "t.ld:1: unsupported construct '. = CONSTANT' inside an output section\n" },
		{ "SECTIONS { .a : { SORT(*)(.a) } }",
		  "t.ld:1: unsupported construct 'SORT' on file names\n" },
		{ "SECTIONS { .a : { foo.o } }", "t.ld:1: unsupported construct 'foo.o'\n" },
		{ "SECTIONS { .a (READONLY) : { *(.a) } }",
		  "t.ld:1: unsupported construct 'READONLY'\n" },
		{ "SECTIONS { /DISCARD/ : { BYTE(1) } }",
		  "t.ld:1: unsupported construct 'statement other than an input description in /DISCARD/'\n" },
		{ "}", "t.ld:1: unexpected '}'\n" },
		{ "SECTIONS { .a : { *(.a) }", "t.ld:1: expected '}' but found end of file\n" },
		{ "x = CONSTANT(FOO);",
		  "t.ld:1: expected MAXPAGESIZE or COMMONPAGESIZE but found 'FOO'\n" },
		{ "x = y;", "t.ld:1: symbol 'y' is not defined\n" },
		{ "INCLUDE nonexistent.ld",
		  "t.ld:1: cannot read INCLUDE file 'nonexistent.ld': No such file or directory\n" },
		{ "PROVIDE(x += 1);", "t.ld:1: expected '=' but found '+='\n" },
		{ "PHDRS { a PT_LOAD FLAGS(x); }",
		  "t.ld:1: FLAGS must be a constant below 2^32\n" },
		{ "PHDRS { a 0x100000000; }",
		  "t.ld:1: segment type must be a constant below 2^32\n" },
		{ "SECTIONS { .a : { *(.a) } =x }", "t.ld:1: fill must be a constant\n" },
		{ "x = 1;\n\001", "t.ld:2: unexpected character 0x01\n" },
		{ "SECTIONS { .a : AT(1) ALIGN(4) AT(2) { } }",
		  "t.ld:1: duplicate 'AT' in output section\n" },
		{ "OUTPUT_ARCH(a, b)", "t.ld:1: too many arguments\n" },
		{ "SECTIONS { .a (@) : { } }", "t.ld:1: unexpected character '@'\n" },
		{ "PROVIDE(. = 1);", "t.ld:1: cannot PROVIDE '.'\n" },
		{ "refused = 1;", "t.ld:1: cannot define symbol 'refused'\n" },
		{ "SECTIONS { .a : { FILL(a) } }",
		  "t.ld:1: FILL value must be a 32-bit constant\n" },
		{ "x = 1 + ASSERT(1, \"m\");",
		  "t.ld:1: unsupported construct 'ASSERT inside an expression'\n" },
		/* several errors, each reported once with its own line */
		{ "FOO(1);\nx = ;\nSECTIONS {\n .a : { *(.a) } :bad\n .b : { *(.b }\n}\nBAR\n",
		  "t.ld:1: unsupported construct 'FOO'\n"
		  "t.ld:2: expected an expression but found ';'\n"
		  "t.ld:5: expected ')' but found '}'\n"
		  "t.ld:7: unsupported construct 'BAR'\n" },
		{ "x = 1 $$ 2;\ny = ADDR(.q);\nz = 1 % 0;",
		  "t.ld:1: expected ';' but found '$$'\n" },
		{ "a = 1;\nb = ADDR(.q);\nc = 1 % 0;\nd = q;",
		  "t.ld:2: ADDR(.q): no such output section\n"
		  "t.ld:3: division by zero\n"
		  "t.ld:4: symbol 'q' is not defined\n" },
	};
	size_t i;

	static const char *const refuse[] = { "refused", NULL };

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tctx t = { .strict = 1, .refuse = refuse };
		struct ls_compiled c;
		char *plan = compile_text(cases[i].text, NULL, 0, &t, &c);

		CHECK(!plan, "'%s' was accepted", cases[i].text);
		CHECK(!strcmp(diag, cases[i].want), "'%s': got\n%s want\n%s",
		      cases[i].text, diag, cases[i].want);
		if (plan)
			ls_compiled_free(&c);
		tctx_free(&t);
	}
	{
		/* a flood of errors stops after 100 lines */
		static char text[4000];
		struct tctx t = { 0 };
		struct ls_compiled c;
		size_t n = 0;
		char *plan;

		for (i = 0; i < 150; i++)
			n += sprintf(text + n, "FOO%zu;\n", i);
		plan = compile_text(text, NULL, 0, &t, &c);
		CHECK(!plan && ndiag == 101 && strstr(diag, "t.ld:100: unsupported construct 'FOO99'\n"
							    "t.ld: too many errors, giving up\n"),
		      "flood: %d lines", ndiag);
		tctx_free(&t);
	}
	{
		/* file-level problems */
		char path[] = "/tmp/ls-test-XXXXXX";
		int fd = mkstemp(path);
		char want[256];

		diag_reset();
		CHECK(!ls_parse_file(LS_TEST_DIR "/no-such.ld") &&
		      !strcmp(diag, LS_TEST_DIR "/no-such.ld:0: cannot read: No such file or directory\n"),
		      "missing file: %s", diag);
		if (fd >= 0) {
			CHECK(write(fd, "x = 1;\0", 7) == 7, "write");
			close(fd);
			diag_reset();
			snprintf(want, sizeof(want), "%s:1: file contains a NUL byte\n", path);
			CHECK(!ls_parse_file(path) && !strcmp(diag, want), "NUL: %s", diag);
			unlink(path);
		}
		diag_reset();
		snprintf(want, sizeof(want), "%s/include_self.ld:2: INCLUDE nested too deeply\n",
			 LS_TEST_DIR);
		CHECK(!ls_parse_file(LS_TEST_DIR "/include_self.ld") && !strcmp(diag, want),
		      "self include: %s", diag);
	}
	report("errors");
}

/* First-match, file-specific patterns, wildcards, EXCLUDE_FILE, orphans. */
static void test_matching(void)
{
	static const char *text =
		"SECTIONS {\n"
		" .first : { a.o(.text) *[xy].o(.text.hot) }\n"
		" .second : { *(.text) ?ar.o(.data) }\n"
		" .third : { *(.text.*) *(.data) b?.o(.data) }\n"
		" .ex : { EXCLUDE_FILE(*skip.o k*.o) *(.ex) "
		"*(EXCLUDE_FILE(keep.o) .ex2 .ex3) }\n"
		" .all : { * ( .ex .ex2 ) }\n"
		" .cls : { *([a-c]x) *([!a-c]y) }\n"
		"}\n";
	static const struct ls_input in[] = {
		/* 0 */ { "b.o", ".text", 0, PB, AX, 8, 4 },
		/* 1 */ { "a.o", ".text", 1, PB, AX, 8, 4 },
		/* 2 */ { "x.o", ".text.hot", 2, PB, AX, 8, 4 },
		/* 3 */ { "z.o", ".text.hot", 3, PB, AX, 8, 4 },
		/* 4 */ { "bar.o", ".data", 4, PB, AW, 8, 4 },
		/* 5 */ { "bx.o", ".data", 5, PB, AW, 8, 4 },
		/* 6 */ { "ok.o", ".ex", 6, PB, A, 8, 4 },
		/* 7 */ { "myskip.o", ".ex", 7, PB, A, 8, 4 },
		/* 8 */ { "keep.o", ".ex", 8, PB, A, 8, 4 },
		/* 9 */ { "keep.o", ".ex2", 8, PB, A, 8, 4 },
		/* 10 */ { "keep.o", ".ex3", 8, PB, A, 8, 4 },
		/* 11 */ { "ok.o", ".ex2", 6, PB, A, 8, 4 },
		/* 12 */ { "ok.o", ".orphan", 6, PB, A, 8, 4 },
		/* 13 */ { "ok.o", "bx", 6, PB, A, 8, 4 },
		/* 14 */ { "ok.o", "dx", 6, PB, A, 8, 4 },
		/* 15 */ { "ok.o", "dy", 6, PB, A, 8, 4 },
		/* 16 */ { "ok.o", "cy", 6, PB, A, 8, 4 },
	};
	/* slots: .first 0,1  .second 2,3  .third 4,5,6  .ex 7,8  .all 9  .cls 10,11 */
	static const uint32_t want[] = { 2, 0, 1, 4, 3, 5, 7, 9, 9, 9, 8,
					 8, LS_ORPHAN, 10, LS_ORPHAN, 11,
					 LS_ORPHAN };
	struct tctx t = { 0 };
	struct ls_compiled c;
	char *plan = compile_text(text, in, sizeof(in) / sizeof(in[0]), &t, &c);
	size_t i;

	if (!plan) {
		fail("compile: %s", diag);
	} else {
		CHECK(c.nslots == 12, "nslots %u", c.nslots);
		for (i = 0; i < sizeof(in) / sizeof(in[0]); i++)
			CHECK(c.input_slot[i] == want[i], "input %zu (%s %s) slot %d want %d",
			      i, in[i].object, in[i].section, (int)c.input_slot[i],
			      (int)want[i]);
		CHECK(c.outsecs[0].flags == AX && c.outsecs[2].flags == (AX | SHF_WRITE),
		      "flags %#llx %#llx", (unsigned long long)c.outsecs[0].flags,
		      (unsigned long long)c.outsecs[2].flags);
		ls_compiled_free(&c);
	}
	tctx_free(&t);
	report("matching");
}

/* PROVIDE only defines what is referenced and not defined by an object;
 * DEFINED() sees objects and earlier script assignments only. */
static void test_provide(void)
{
	static const char *const objdefs[] = { "objsym", "edata", NULL };
	static const char *const unused[] = { "never", NULL };
	struct tctx t = { .objdefs = objdefs, .unused = unused };
	struct ls_compiled c;
	char *plan = compile_text(
		"PROVIDE(edata = 1);\n"
		"PROVIDE(never = 2);\n"
		"PROVIDE_HIDDEN(wanted = 3);\n"
		"a = DEFINED(objsym);\n"
		"b = DEFINED(later);\n"
		"later = 4;\n"
		"c = DEFINED(later) + DEFINED(wanted) * 2 + DEFINED(never) * 4;\n",
		NULL, 0, &t, &c);

	CHECK(plan && !strcmp(plan, "0x3 ASSIGN:wanted 0x1 ASSIGN:a 0 ASSIGN:b "
				    "0x4 ASSIGN:later 0x3 ASSIGN:c"),
	      "plan '%s' (%s)", plan ? plan : "error", diag);
	if (plan)
		ls_compiled_free(&c);
	tctx_free(&t);
	report("provide");
}

/* FILEHDR-less script without PHDRS, INCLUDE, NOLOAD, data forces PROGBITS,
 * empty sections, quoted names, commas, section-level sort nesting. */
static void test_misc(void)
{
	static const struct ls_input in[] = {
		{ "a.o", ".bss", 0, NB, AW, 8, 8 },
		{ "a.o", ".sbss", 0, NB, AW, 8, 8 },
		{ "a.o", ".nl", 0, PB, AW, 8, 8 },
	};
	struct tctx t = { 0 };
	struct ls_compiled c;
	struct ls_callbacks cb = callbacks(&t);
	struct ls_script *s;
	char *plan;

	diag_reset();
	s = ls_parse_file(LS_TEST_DIR "/include_main.ld");
	if (!s) {
		fail("include parse: %s", diag);
	} else {
		if (ls_compile(s, in, 3, &cb, &c)) {
			fail("include compile: %s", diag);
		} else {
			plan = disasm(&t, &c);
			CHECK(!strcmp(plan, "0x1000 SETDOT SECTION:.inc SLOT:0 END "
					    "0x2a ASSIGN:from_include"),
			      "include plan '%s'", plan);
			/* no PHDRS: one RW PT_LOAD for the one section */
			CHECK(c.sizeof_headers == 64 + 56 && c.nphdrs == 1 &&
			      c.phdrs[0].flags == (PF_R | PF_W) &&
			      c.outsecs[0].phdr_mask == 1,
			      "default headers %llu, %u phdrs",
			      (unsigned long long)c.sizeof_headers, c.nphdrs);
			ls_compiled_free(&c);
		}
		ls_free(s);
	}
	tctx_free(&t);

	/* errors inside an INCLUDEd file name that file */
	diag_reset();
	s = ls_parse_file(LS_TEST_DIR "/include_err.ld");
	CHECK(!s && !strcmp(diag, LS_TEST_DIR "/include_bad.ld:2: expected ')' but found ';'\n"
			    LS_TEST_DIR "/include_bad.ld:3: unsupported construct 'MEMORY'\n"
			    LS_TEST_DIR "/include_err.ld:4: expected an expression but found ';'\n"),
	      "include errors:\n%s", diag);
	ls_free(s);

	plan = compile_text(
		"SECTIONS {\n"
		" .nl (NOLOAD) : { *(.nl) }\n"
		" .b 0x2000 (NOLOAD) : { *(.bss, .sbss) }\n"
		" .d : { *(.bss) BYTE(1) }\n"
		" .e : { *(SORT_BY_NAME(SORT_BY_ALIGNMENT(.e*))) }\n"
		" \".q\" : { *(\"x y\") }\n"
		" .n : { *(SORT_NONE(.n)) }\n"
		"}\n",
		in, 3, &t, &c);
	if (!plan) {
		fail("misc: %s", diag);
	} else {
		CHECK(c.outsecs[0].type == SHT_NOBITS, ".nl not NOBITS");
		CHECK(c.outsecs[1].type == SHT_NOBITS, ".b not NOBITS");
		CHECK(c.outsecs[2].type == SHT_PROGBITS, "data left .d NOBITS");
		CHECK(c.slots[3].flags == LK_SLOT_SORT_NAME, "nested sort %#x",
		      c.slots[3].flags);
		CHECK(c.slots[5].flags == 0, "SORT_NONE %#x", c.slots[5].flags);
		CHECK(c.input_slot[0] == 1 && c.input_slot[1] == 1 && c.input_slot[2] == 0,
		      "slots %u %u %u", c.input_slot[0], c.input_slot[1], c.input_slot[2]);
		check_plan_has(plan, "0x2000 SECTION:.b/vma SLOT:1 END");
		check_plan_has(plan, "SECTION:.q SLOT:4 END");
		ls_compiled_free(&c);
	}
	tctx_free(&t);
	report("misc");
}

/* (INFO) and its synonyms: accepted while empty, as Linux's `.got.plt
 * (INFO)` is; a section with input is refused with one line. */
static void test_info(void)
{
	static const struct ls_input in[] = {
		{ "a.o", ".text", 0, PB, AX, 8, 4 },
		{ "a.o", ".got.plt", 0, PB, AW, 24, 8 },
	};
	static const char *const kinds[] = { "INFO", "COPY", "DSECT", "OVERLAY" };
	struct tctx t = { .strict = 1 };
	struct ls_compiled c;
	char text[200];
	char *plan;

	for (size_t i = 0; i < 4; i++) {
		snprintf(text, sizeof(text),
			 "SECTIONS { .text : { *(.text) } .got.plt (%s) : { *(.got.plt) } }",
			 kinds[i]);
		plan = compile_text(text, in, 1, &t, &c);
		CHECK(plan && strstr(plan, "SECTION:.got.plt SLOT:1 END"),
		      "empty (%s): %s", kinds[i], plan ? plan : diag);
		if (plan)
			ls_compiled_free(&c);
		tctx_free(&t);
		memset(&t, 0, sizeof(t));
		t.strict = 1;
		plan = compile_text(text, in, 2, &t, &c);
		CHECK(!plan && !strcmp(diag, "t.ld:1: output section .got.plt: a non-allocated "
					     "(INFO) section with input is not supported\n"),
		      "with input (%s): %s", kinds[i], diag);
		if (plan)
			ls_compiled_free(&c);
		tctx_free(&t);
		memset(&t, 0, sizeof(t));
		t.strict = 1;
	}
}

/* Symbol assignments and ASSERTs that need later sections or symbols are
 * evaluated after the layout, as GNU ld's final values would be; anything
 * reading `.` cannot move and must not use what is not laid out yet. */
static void test_deferred(void)
{
	static const char *const objdefs[] = { "start", "jiffies_64", NULL };
	static const struct ls_input in[] = {
		{ "locore.o", ".text", 0, PB, AX, 8, 4 },
	};
	struct tctx t = { .objdefs = objdefs, .strict = 1 };
	struct ls_compiled c;
	char *plan = compile_text(
		"base = 0x1000;\n"
		"start_phys = LOADADDR(.text) + (start - base);\n"
		"jiffies = jiffies_64;\n"
		"twice = start_phys * 2;\n"
		"SECTIONS {\n"
		" . = base;\n"
		" .text : AT(0x100) { tsize = SIZEOF(.text); tdot = .; *(.text) }\n"
		" ASSERT(SIZEOF(.text) > 0, \"empty\");\n"
		" ASSERT(later > 0, \"late\");\n"
		" later = . + 1;\n"
		"}\n",
		in, 1, &t, &c);
	const char *want =
		"0x1000 ASSIGN:base SYM:base SETDOT 0x100 SECTION:.text/lma DOT ASSIGN:tdot "
		"SLOT:0 END SIZEOF:.text 0 GT ASSERT:empty DOT 0x1 ADD ASSIGN:later "
		"LOADADDR:.text SYM:start SYM:base SUB ADD ASSIGN:start_phys "
		"SYM:jiffies_64 ASSIGN:jiffies SYM:start_phys 0x2 MUL ASSIGN:twice "
		"SIZEOF:.text ASSIGN:tsize SYM:later 0 GT ASSERT:late";

	CHECK(plan && !strcmp(plan, want), "plan\n%s\nwant\n%s\n(%s)",
	      plan ? plan : "error", want, diag);
	if (plan)
		ls_compiled_free(&c);
	tctx_free(&t);

	t.strict = 1;
	t.objdefs = objdefs;
	plan = compile_text(
		"a = ADDR(.text);\n"
		"SECTIONS {\n"
		" . = a;\n"
		" . = ADDR(.data);\n"
		" .text : { . = . + SIZEOF(.text); }\n"
		" .data : { BYTE(SIZEOF(.data)) }\n"
		"}\n",
		NULL, 0, &t, &c);
	CHECK(!plan && !strcmp(diag,
			       "t.ld:3: symbol 'a' is used before its value is known\n"
			       "t.ld:4: ADDR(.data) is used before the section is laid out\n"
			       "t.ld:5: SIZEOF(.text) is used before the section is laid out\n"
			       "t.ld:6: SIZEOF(.data) is used before the section is laid out\n"),
	      "errors:\n%s", diag);
	tctx_free(&t);
	/* x = x + 1 with x from an object reads the object's x: at the end */
	t.strict = 1;
	t.objdefs = objdefs;
	plan = compile_text("jiffies_64 = jiffies_64 + 1;\nz = 2;\n", NULL, 0, &t, &c);
	CHECK(plan && !strcmp(plan, "0x2 ASSIGN:z SYM:jiffies_64 0x1 ADD ASSIGN:jiffies_64"),
	      "self: %s", plan ? plan : diag);
	if (plan)
		ls_compiled_free(&c);
	tctx_free(&t);
	report("deferred");
}

/* A script shaped like Linux's vmlinux.lds. */
static void test_linux(void)
{
	static const char *const objdefs[] = { "startup_64", "jiffies_64",
					       "gdt_page", NULL };
	static const struct ls_input in[] = {
		{ "head_64.o", ".head.text", 0, PB, AX, 8, 16 },
		{ "a.o", ".text.foo_1", 1, PB, AX, 8, 16 },
		{ "a.o", ".text..refcount", 1, PB, AX, 8, 16 },
		{ "a.o", ".note.Xen", 1, PB, A, 8, 4 },
		{ "a.o", "___ksymtab+foo", 1, PB, A, 8, 8 },
		{ "a.o", ".data..percpu", 1, PB, AW, 8, 64 },
		{ "a.o", ".exit.text", 1, PB, AX, 8, 16 },
		{ "a.o", ".bss..brk", 1, NB, AW, 8, 8 },
		{ "a.o", ".x86_cpu_dev.init", 1, PB, A, 8, 8 },
	};
	static const uint32_t want_slot[] = { 0, 3, 4, 7, 10, 18, LS_DISCARD, 26, 24 };
	struct tctx t = { .objdefs = objdefs, .strict = 1 };
	struct ls_callbacks cb = callbacks(&t);
	struct ls_compiled c;
	struct ls_script *s;
	const char *tail = "0x20000000 LE ASSERT:kernel image bigger than KERNEL_IMAGE_SIZE "
			   "SYM:jiffies_64 ASSIGN:jiffies "
			   "SYM:startup_64 0xffffffff80000000 SUB ASSIGN:phys_startup_64 "
			   "SYM:gdt_page SYM:__per_cpu_load ADD ASSIGN:init_per_cpu__gdt_page";
	char *plan;
	size_t i;

	diag_reset();
	s = ls_parse_file(LS_TEST_DIR "/linux.ld");
	if (!s || ls_compile(s, in, sizeof(in) / sizeof(in[0]), &cb, &c)) {
		fail("linux.ld: %s", diag);
		ls_free(s);
		tctx_free(&t);
		report("linux_script");
		return;
	}
	plan = disasm(&t, &c);
	if (getenv("LS_DUMP"))
		printf("# %s\n", plan);
	CHECK(c.noutsecs == 12 && c.nslots == 32 && c.nphdrs == 5,
	      "counts %u %u %u", c.noutsecs, c.nslots, c.nphdrs);
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		CHECK(c.input_slot[i] == want_slot[i], "input %zu (%s) slot %d want %d",
		      i, in[i].section, (int)c.input_slot[i], (int)want_slot[i]);
	CHECK(strlen(plan) > strlen(tail) &&
	      !strcmp(plan + strlen(plan) - strlen(tail), tail),
	      "plan tail: %s", plan + (strlen(plan) > 400 ? strlen(plan) - 400 : 0));
	check_plan_has(plan, "0 SYM:__per_cpu_load 0xffffffff80000000 SUB "
			     "SECTION:.data..percpu/vma/lma");
	check_plan_has(plan, "SYM:__per_cpu_load SIZEOF:.data..percpu ADD SETDOT");
	/* no inputs: GNU ld drops the section but its address still moves `.` */
	check_plan_has(plan, "DOT ASSIGN:_end 0 SECTION:.comment/vma SLOT:30 END "
			     "0 SECTION:.debug_info/vma SLOT:31 END");
	check_plan_has(plan, "0x1 ALIGN 0xffffffff80000000 SUB SECTION:.brk/lma "
			     "DOT ASSIGN:__brk_base DOT 0x10000 ADD SETDOT");
	{
		static const struct {
			const char *name;
			uint32_t mask, type;
		} os[] = {
			{ ".text", 1, SHT_PROGBITS }, { ".notes", 1 | 16, SHT_PROGBITS },
			{ ".rodata", 1, SHT_PROGBITS }, { "__ksymtab", 1, SHT_PROGBITS },
			{ ".data", 2, SHT_PROGBITS }, { ".data..percpu", 4, SHT_PROGBITS },
			{ ".init.text", 8, SHT_PROGBITS }, { ".init.data", 8, SHT_PROGBITS },
			{ ".bss", 2, SHT_NOBITS }, { ".brk", 2, SHT_NOBITS },
			{ ".comment", 2, SHT_PROGBITS },
		};

		for (i = 0; i < sizeof(os) / sizeof(os[0]); i++) {
			uint32_t k = outsec_index(&t, &c, os[i].name);

			if (k == UINT32_MAX) {
				fail("no outsec %s", os[i].name);
				break;
			}
			CHECK(c.outsecs[k].phdr_mask == os[i].mask &&
			      c.outsecs[k].type == os[i].type,
			      "%s mask %#x type %u", os[i].name, c.outsecs[k].phdr_mask,
			      c.outsecs[k].type);
		}
		CHECK(c.outsecs[0].fill == 0xcccc && c.outsecs[0].fill_len == 2,
		      ".text fill %#x/%u", c.outsecs[0].fill, c.outsecs[0].fill_len);
	}
	ls_compiled_free(&c);
	ls_free(s);
	tctx_free(&t);
	report("linux_script");
}

/* Without PHDRS the compiler makes PT_LOADs by permission, like GNU ld. */
static void test_default_phdrs(void)
{
	static const struct ls_input in[] = {
		{ "a.o", ".text", 0, PB, AX, 8, 16 },
		{ "a.o", ".rodata", 0, PB, A, 8, 8 },
		{ "a.o", ".data", 0, PB, AW, 8, 8 },
		{ "a.o", ".bss", 0, NB, AW, 8, 8 },
		{ "a.o", ".data2", 0, PB, AW, 8, 8 },
		{ "a.o", ".text2", 0, PB, AX, 8, 8 },
	};
	static const uint32_t mask[] = { 1, 1, 2, 4, 4, 8, 16 };
	static const uint32_t flags[] = { PF_R | PF_X, PF_R, PF_R | PF_W,
					  PF_R | PF_W, PF_R | PF_X };
	struct tctx t = { 0 };
	struct ls_compiled c;
	char *plan = compile_text(
		"SECTIONS {\n"
		" . = 0x1000 + SIZEOF_HEADERS;\n"
		" .text : { *(.text) }\n"
		" .empty : { *(.nothing) }\n"
		" .rodata : { *(.rodata) }\n"
		" .data : { *(.data) }\n"
		" .bss : { *(.bss) }\n"
		" .data2 : { *(.data2) }\n"
		" .text2 : { *(.text2) }\n"
		"}\n",
		in, sizeof(in) / sizeof(in[0]), &t, &c);
	uint32_t i;

	if (!plan) {
		fail("compile: %s", diag);
	} else {
		CHECK(c.nphdrs == 5, "nphdrs %u", c.nphdrs);
		for (i = 0; i < c.nphdrs && i < 5; i++)
			CHECK(c.phdrs[i].type == PT_LOAD && c.phdrs[i].flags == flags[i] &&
			      c.phdrs[i].pflags == LK_PHDR_FLAGS_SET,
			      "phdr %u type %u flags %u", i, c.phdrs[i].type, c.phdrs[i].flags);
		for (i = 0; i < c.noutsecs && i < 7; i++) {
			uint32_t want = mask[i];

			CHECK(c.outsecs[i].phdr_mask == want, "%s mask %#x want %#x",
			      str_at(&t, c.outsecs[i].name), c.outsecs[i].phdr_mask, want);
		}
		CHECK(!strncmp(plan, "0x1158 SETDOT", 13), "SIZEOF_HEADERS: %.40s", plan);
		ls_compiled_free(&c);
	}
	tctx_free(&t);
	report("default_phdrs");
}

/* `linker lld`: the empty sections ld.lld keeps, and only with the policy. */
static void test_lld_empty(void)
{
	static const struct ls_input in[] = {
		{ "a.o", ".text", 0, PB, AX, 8, 16 },
	};
	static const char *const kept[] = { ".assign", ".dot", ".symaddr",
					    ".named", ".data", NULL };
	static const char *const not_kept[] = { ".text", ".bare", ".prov",
						NULL };
	const char *text = "SECTIONS {\n"
			   " .text 0x1000 : { *(.text) }\n"
			   " .assign : { x_start = .; *(.none) }\n"
			   " .dot : { . = ALIGN(8); }\n"
			   " .bare : { *(.none) }\n"
			   " .symaddr x_start : { *(.none) }\n"
			   " .named : { *(.none) }\n"
			   " .prov : { PROVIDE(p_sym = .); *(.none) }\n"
			   " .data : { LONG(1) }\n"
			   "}\n"
			   "y = ADDR(.named);\n";
	int lld;

	for (lld = 0; lld < 2; lld++) {
		struct tctx t = { .lld = lld };
		struct ls_compiled c;
		char *plan = compile_text(text, in, 1, &t, &c);
		const char *const *n;

		if (!plan) {
			fail("compile: %s", diag);
			tctx_free(&t);
			continue;
		}
		for (n = kept; *n; n++) {
			uint32_t i = outsec_index(&t, &c, *n);
			/* .data has no input but data: the flag is moot
			 * there (it is never empty), and harmless. */
			uint32_t want = lld ? LK_OUTSEC_KEEP_EMPTY : 0;

			CHECK(i != UINT32_MAX && (c.outsecs[i].oflags &
						  LK_OUTSEC_KEEP_EMPTY) == want,
			      "lld %d: %s oflags %#x", lld, *n,
			      i == UINT32_MAX ? 0 : c.outsecs[i].oflags);
		}
		for (n = not_kept; *n; n++) {
			uint32_t i = outsec_index(&t, &c, *n);

			CHECK(i != UINT32_MAX && !(c.outsecs[i].oflags &
						   LK_OUTSEC_KEEP_EMPTY),
			      "lld %d: %s kept", lld, *n);
		}
		ls_compiled_free(&c);
		tctx_free(&t);
	}
	report("lld_empty");
}

/* Deep nesting must give a diagnostic, not a stack overflow. */
static void test_limits(void)
{
	static char text[200000];
	struct tctx t = { 0 };
	struct ls_compiled c;
	size_t i, n = 0;
	char *plan;

	n += sprintf(text, "x = ");
	for (i = 0; i < 50000; i++)
		text[n++] = '(';
	strcpy(text + n, "1;");
	plan = compile_text(text, NULL, 0, &t, &c);
	CHECK(!plan && strstr(diag, "t.ld:1: expression nested too deeply"),
	      "deep parens: %s", diag);
	tctx_free(&t);

	/* 70 non-constant operands: right-nested so the plan stack grows */
	n = sprintf(text, "a = 1; x = ");
	for (i = 0; i < 70; i++)
		n += sprintf(text + n, "a - (");
	n += sprintf(text + n, "a");
	for (i = 0; i < 70; i++)
		text[n++] = ')';
	strcpy(text + n, ";");
	plan = compile_text(text, NULL, 0, &t, &c);
	CHECK(!plan && !strcmp(diag, "t.ld:1: expression needs more than 64 plan stack entries\n"),
	      "stack: %s", diag);
	tctx_free(&t);

	/* a long flat chain: no deep parser recursion, but bounded anyway */
	n = sprintf(text, "x = 1");
	for (i = 0; i < 20000; i++)
		n += sprintf(text + n, "+1");
	strcpy(text + n, ";");
	plan = compile_text(text, NULL, 0, &t, &c);
	CHECK(!plan && !strcmp(diag, "t.ld:1: expression too long\n"), "chain: %s", diag);
	tctx_free(&t);
	n = sprintf(text, "x = 1");
	for (i = 0; i < 5000; i++)
		n += sprintf(text + n, "+1");
	strcpy(text + n, ";");
	plan = compile_text(text, NULL, 0, &t, &c);
	CHECK(plan && !strcmp(plan, "0x1389 ASSIGN:x"), "chain 5000: %s",
	      plan ? plan : diag);
	if (plan)
		ls_compiled_free(&c);
	tctx_free(&t);

	/* many PHDRS */
	n = sprintf(text, "PHDRS {\n");
	for (i = 0; i < 33; i++)
		n += sprintf(text + n, "p%zu PT_LOAD;\n", i);
	strcpy(text + n, "}");
	plan = compile_text(text, NULL, 0, &t, &c);
	CHECK(!plan && !strcmp(diag, "t.ld:34: too many PHDRS entries (max 32)\n"),
	      "phdrs: %s", diag);
	tctx_free(&t);
	report("limits");
}

/* Symbol indices without a table: for scripts with many names. */
static uint32_t count_symbol(void *ctx, const char *name, int assigns,
			     int provide)
{
	static uint32_t n;

	(void)ctx;
	(void)name;
	(void)assigns;
	(void)provide;
	return n++ % 1000000;
}

/* A GENERIC-sized kernel: 2,200 objects x 12 sections against the BSD
 * script must stay far from quadratic (bound is generous for ASan and a
 * shared machine). */
static void test_scale(void)
{
	static const char *const secs[] = {
		".text", ".text.f1", ".text.f2", ".rodata", ".rodata.str1.1",
		".data", ".bss", "COMMON", ".eh_frame", ".initcall.1",
		".openbsd.randomdata", ".ctors.5",
	};
	enum { NOBJ = 2200, NSEC = sizeof(secs) / sizeof(secs[0]) };
	struct ls_input *in = calloc(NOBJ * NSEC, sizeof(*in));
	char (*names)[16] = calloc(NOBJ, 16);
	struct tctx t = { .canonical = ".initcall.*" };
	struct ls_callbacks cb = callbacks(&t);
	struct ls_compiled c;
	struct ls_script *s;
	clock_t t0;
	double secs_used;
	size_t i, orphans = 0, discards = 0;

	for (i = 0; i < NOBJ; i++)
		snprintf(names[i], 16, "obj%zu.o", i);
	for (i = 0; i < (size_t)NOBJ * NSEC; i++) {
		const char *sec = secs[i % NSEC];
		int nb = !strcmp(sec, ".bss") || !strcmp(sec, "COMMON");

		in[i] = (struct ls_input){ names[i / NSEC], sec, (uint32_t)(i / NSEC),
					   nb ? NB : PB, AW, 8, 8 };
	}
	diag_reset();
	t0 = clock();
	s = ls_parse_file(LS_TEST_DIR "/bsd.ld");
	if (!s || ls_compile(s, in, (size_t)NOBJ * NSEC, &cb, &c)) {
		fail("compile: %s", diag);
	} else {
		secs_used = (double)(clock() - t0) / CLOCKS_PER_SEC;
		for (i = 0; i < (size_t)NOBJ * NSEC; i++) {
			orphans += c.input_slot[i] == LS_ORPHAN;
			discards += c.input_slot[i] == LS_DISCARD;
		}
		/* every section has a home; .eh_frame is discarded */
		CHECK(orphans == 0 && discards == NOBJ, "orphans %zu discards %zu",
		      orphans, discards);
		CHECK(secs_used < 10, "took %.2f s", secs_used);
		printf("# scale: %d inputs compiled in %.3f s\n", NOBJ * NSEC, secs_used);
		ls_compiled_free(&c);
	}
	ls_free(s);
	tctx_free(&t);
	{
		/* 20,000 sections, symbols and forward references: no
		 * quadratic walk over names */
		size_t cap = 4 << 20, n = 0;
		char *big = malloc(cap);

		n += sprintf(big + n, "SECTIONS {\n");
		for (i = 0; i < 20000; i++)
			n += sprintf(big + n, " .s%zu : { s%zu = .; *(.s%zu) t%zu = ADDR(.s%zu) + u%zu; }\n",
				     i, i, i, i, i + 1 < 20000 ? i + 1 : 0, i);
		n += sprintf(big + n, "}\n");
		for (i = 0; i < 20000; i++)
			n += sprintf(big + n, "u%zu = DEFINED(s%zu);\n", i, i);
		struct ls_callbacks fast = { .symbol = count_symbol, .intern = cb_intern };

		fast.ctx = &t;
		t0 = clock();
		diag_reset();
		s = ls_parse_string("big.ld", big);
		if (!s || ls_compile(s, NULL, 0, &fast, &c)) {
			fail("big script: %s", diag);
		} else {
			secs_used = (double)(clock() - t0) / CLOCKS_PER_SEC;
			CHECK(c.noutsecs == 20000 && secs_used < 10,
			      "big: %u outsecs, %.2f s", c.noutsecs, secs_used);
			printf("# scale: 20000 sections, 60000 assignments in %.3f s\n",
			       secs_used);
			ls_compiled_free(&c);
		}
		free(big);
		ls_free(s);
		s = NULL;
	}
	ls_free(s);
	tctx_free(&t);
	free(in);
	free(names);
	report("scale");
}

/* Garbage never crashes or hangs, and a rejected script always says why. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int try_text(const char *text, const struct ls_input *in, size_t nin)
{
	struct tctx t = { 0 };
	struct ls_compiled c;
	char *plan = compile_text(text, in, nin, &t, &c);

	if (plan)
		ls_compiled_free(&c);
	tctx_free(&t);
	if (!plan && !ndiag) {
		fail("rejected without a message: %.200s", text);
		return -1;
	}
	return plan != NULL;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	static char buf[65536];
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

static void test_fuzz(void)
{
	static const char alphabet[] = "(){};:=,.*?[]/\"+-<>&|!~^%0123456789xabAB_ \n";
	static const char *const words[] = {
		"SECTIONS", "PHDRS", "ALIGN(", "ADDR(", "KEEP(", "EXCLUDE_FILE(",
		"SORT(", "PROVIDE(", "ASSERT(", "/DISCARD/", "(NOLOAD)", "AT(",
		"/*", "*/", "\"", "FILEHDR", "PT_LOAD", "INCLUDE", "DEFINED(",
	};
	char *base = slurp(LS_TEST_DIR "/bsd.ld"), *copy;
	char text[4096];
	size_t len, blen, i, j;
	int accepted = 0, iter;
	clock_t t0 = clock();

	if (!base) {
		fail("cannot read bsd.ld");
		report("fuzz");
		return;
	}
	blen = strlen(base);
	copy = malloc(blen + 64);
	/* random bytes, any value */
	for (iter = 0; iter < 3000 && !why[0]; iter++) {
		len = rnd() % (sizeof(text) - 1);
		for (i = 0; i < len; i++)
			text[i] = (char)(rnd() % 255 + 1);
		text[len] = 0;
		try_text(text, bsd_inputs, NBSD);
	}
	/* random tokens from the script alphabet */
	for (iter = 0; iter < 3000 && !why[0]; iter++) {
		len = 0;
		while (len < 300) {
			if (rnd() % 4 == 0) {
				const char *w = words[rnd() % (sizeof(words) / sizeof(words[0]))];

				memcpy(text + len, w, strlen(w));
				len += strlen(w);
			} else {
				text[len++] = alphabet[rnd() % (sizeof(alphabet) - 1)];
			}
		}
		text[len] = 0;
		try_text(text, bsd_inputs, NBSD);
	}
	/* mutations of a valid script reach the deep paths */
	for (iter = 0; iter < 3000 && !why[0]; iter++) {
		memcpy(copy, base, blen + 1);
		len = blen;
		for (j = rnd() % 4 + 1; j > 0; j--) {
			size_t at = rnd() % len;

			switch (rnd() % 3) {
			case 0: copy[at] = alphabet[rnd() % (sizeof(alphabet) - 1)]; break;
			case 1: memmove(copy + at, copy + at + 1, len - at); len--; break;
			default: copy[at] = (char)(rnd() % 255 + 1);
			}
		}
		accepted += try_text(copy, bsd_inputs, NBSD) == 1;
	}
	free(copy);
	/* some mutations (inside comments, names) must still be valid */
	CHECK(accepted > 0 && accepted < 3000, "accepted %d of 3000 mutants", accepted);
	printf("# fuzz: 9000 inputs in %.2f s, %d mutants accepted\n",
	       (double)(clock() - t0) / CLOCKS_PER_SEC, accepted);
	report("fuzz");
}

int main(void)
{
	ls_set_diag(on_diag, NULL);
	test_bsd_script();
	test_operators();
	test_folding();
	test_errors();
	test_matching();
	test_provide();
	test_deferred();
	test_info();
	test_linux();
	test_default_phdrs();
	test_lld_empty();
	test_misc();
	test_limits();
	test_scale();
	test_fuzz();
	return nfailed ? 1 : 0;
}
