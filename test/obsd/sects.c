/*
 * Something in every special input section of test/obsd/ld.script, so the
 * link exercises each rule, and a check that the kernel finds them where
 * the script put them (also filled/relocated correctly after a relink).
 */
#include "obsd.h"

/* The kit's .text gap defines endboot, as OpenBSD's gap.o does. */
extern char endboot[];
extern char __kutext_start[], __kutext_end[], __text_page_start[],
	__text_page_end[], __nofault_start[], __nofault_end[],
	__retguard_start[], __retguard_end[];
extern int (*const __CTOR_LIST__[])(void), (*const __CTOR_END__[])(void);

__attribute__((section(".kutext"), noinline, used)) int kutext_probe(void)
{
	return 0x4b55;
}

__attribute__((section(".cptext"), noinline, used)) int cptext_probe(void)
{
	return 0x4350;
}

__attribute__((section(".ktext.page"), aligned(4096), noinline, used)) int
ktext_page_probe(void)
{
	return 0x4b50;
}

static int ctor_probe(void)
{
	return 0x4354;
}

__attribute__((section(".ctors"),
	       used)) static int (*const ctor_entry)(void) = ctor_probe;
__attribute__((section(".nofault.probe"), used)) static const u64 nofault_word =
	0x6e6f6661756c74ull;
__attribute__((section(".codepatch"), used)) static const u32 codepatch_word =
	0x63700001;
__attribute__((section(".codepatchend"), used)) static const u32 codepatch_end =
	0x637000ff;
/* Two alignments: SORT_BY_ALIGNMENT puts the 256-byte one first. */
__attribute__((section(".kutext.page"), used,
	       aligned(16))) static const u8 kutext_small[16] = { 1 };
__attribute__((section(".kutext.page"), used,
	       aligned(256))) static const u8 kutext_big[256] = { 2 };
__attribute__((section(".openbsd.randomdata.retguard.probe"),
	       used)) static volatile u64 retguard_probe[4];
__attribute__((section(".kudata"), used)) static volatile u64 kudata_word =
	0x6b7564617461ull;

static int in(const void *p, const char *lo, const char *hi, u64 n)
{
	return (const char *)p >= lo && (const char *)p + n <= hi;
}

int check_sections(void)
{
	u32 i, zero = 0;

	if (!in((const void *)kutext_probe, __kutext_start, __kutext_end, 1) ||
	    kutext_probe() != 0x4b55 || cptext_probe() != 0x4350)
		return fail("sections", "kutext/cptext", (u64)kutext_probe);
	if (!in((const void *)ktext_page_probe, __text_page_start,
		__text_page_end, 1) ||
	    ((u64)ktext_page_probe & 0xfff) || ktext_page_probe() != 0x4b50)
		return fail("sections", "ktext.page", (u64)ktext_page_probe);
	if (__CTOR_END__ - __CTOR_LIST__ != 1 || __CTOR_LIST__[0]() != 0x4354)
		return fail("sections", "ctors",
			    (u64)(__CTOR_END__ - __CTOR_LIST__));
	if (!in(&nofault_word, __nofault_start, __nofault_end, 8) ||
	    nofault_word != 0x6e6f6661756c74ull)
		return fail("sections", "nofault", (u64)&nofault_word);
	if (codepatch_word != 0x63700001 || codepatch_end != 0x637000ff ||
	    (u64)&codepatch_end < (u64)&codepatch_word)
		return fail("sections", "codepatch", (u64)&codepatch_word);
	if ((u64)kutext_big & 0xff || kutext_big[0] != 2 ||
	    kutext_small[0] != 1 || (u64)kutext_big > (u64)kutext_small)
		return fail("sections", "kutext.page", (u64)kutext_big);
	if (((u64)endboot & 0xfff) || (u64)endboot <= (u64)start ||
	    (u64)endboot > (u64)check_sections)
		return fail("sections", "endboot", (u64)endboot);
	if (kudata_word != 0x6b7564617461ull)
		return fail("sections", "kudata", kudata_word);
	if (!in((const void *)retguard_probe, __retguard_start, __retguard_end,
		sizeof(retguard_probe)))
		return fail("sections", "retguard place", (u64)retguard_probe);
	for (i = 0; i < 4; i++)
		zero += retguard_probe[i] == 0;
	/* Filled by the loader: a zero 64-bit word has p = 2^-64. */
	if (zero)
		return fail("sections", "retguard not random, zero words",
			    zero);
	cons_puts("obsd: check sections ok\n");
	return 0;
}
