/*
 * The kernel's own symbol table, from the Multiboot2 ELF-sections tag (9).
 * The loader copies .symtab/.strtab somewhere and puts their addresses in
 * sh_addr (physical below 4 GiB, or a kernel VA). The tag header is
 * GRUB's (u32 num, entsize, shndx: sections at +20); the spec's text also
 * shows u16 fields (sections at +16), so both are accepted when the sizes
 * add up.
 */
#include "demo.h"

#define SHT_SYMTAB 2
#define STT_FUNC   2
#define SHDR_SIZE  64
#define SYM_SIZE   24
#define SYMTAB_MAX (64u << 20)

DEMO_OBJECT(symtab)
DEMO_IDENT(symtab)

struct symtab_shdr {
	u32 name, type;
	u64 flags, addr, offset, size;
	u32 link, info;
	u64 addralign, entsize;
};
struct symtab_sym {
	u32 name;
	u8 info, other;
	u16 shndx;
	u64 value, size;
};

static const struct symtab_sym *symtab_syms;
static u64 symtab_nsyms;
static const char *symtab_str;
static u64 symtab_strsz;

/* Section headers in the tag, whichever header layout it uses. */
static const u8 *symtab_shdrs(const struct mb2_tag *t, u32 *num)
{
	const u8 *p = (const u8 *)t;
	u32 n32 = *(const u32 *)(p + 8), e32 = *(const u32 *)(p + 12);
	u16 n16 = *(const u16 *)(p + 8), e16 = *(const u16 *)(p + 10);

	if (e32 == SHDR_SIZE && n32 <= (t->size - 20) / SHDR_SIZE) {
		*num = n32;
		return p + 20;
	}
	if (e16 == SHDR_SIZE && n16 <= (t->size - 16) / SHDR_SIZE) {
		*num = n16;
		return p + 16;
	}
	return NULL;
}

/* A table the loader placed: identity-mapped physical or kernel VA. */
static const void *symtab_mapped(u64 addr, u64 size)
{
	if (addr == 0 || size > SYMTAB_MAX)
		return NULL;
	if (addr >= KERNBASE)
		return addr + size >= addr ? (const void *)addr : NULL;
	if (addr + size > (4UL << 30))
		return NULL;
	return phys_to_ptr(addr);
}

static int symtab_fail(char *detail, size_t cap, const char *why)
{
	ksnprintf(detail, cap, "%s", why);
	return -1;
}

int symtab_open(char *detail, size_t cap)
{
	const struct mb2_tag *t = mbinfo_find(9, NULL);
	const struct symtab_shdr *sh, *ss = NULL;
	const u8 *base;
	u32 num, i;

	if (!t || t->size < 20)
		return symtab_fail(detail, cap, "no ELF-sections tag");
	base = symtab_shdrs(t, &num);
	if (!base)
		return symtab_fail(detail, cap, "ELF-sections tag malformed");
	sh = (const struct symtab_shdr *)base;
	for (i = 0; i < num && !ss; i++)
		if (sh[i].type == SHT_SYMTAB)
			ss = &sh[i];
	if (!ss || ss->link >= num || ss->entsize != SYM_SIZE)
		return symtab_fail(detail, cap, "no usable .symtab section");
	symtab_syms = symtab_mapped(ss->addr, ss->size);
	symtab_str = symtab_mapped(sh[ss->link].addr, sh[ss->link].size);
	if (!symtab_syms || !symtab_str)
		return symtab_fail(detail, cap, ".symtab/.strtab not loaded");
	symtab_nsyms = ss->size / SYM_SIZE;
	symtab_strsz = sh[ss->link].size;
	return 0;
}

/* Name of symbol i, or NULL when its offset is out of bounds. */
static const char *symtab_sym_name(const struct symtab_sym *s)
{
	u64 k;

	if (s->name == 0 || s->name >= symtab_strsz)
		return NULL;
	for (k = s->name; k < symtab_strsz; k++)
		if (symtab_str[k] == '\0')
			return symtab_str + s->name;
	return NULL;
}

static int symtab_is_func(const struct symtab_sym *s)
{
	return (s->info & 0xf) == STT_FUNC && s->value != 0;
}

const char *symtab_name_at(u64 addr)
{
	u64 i;

	for (i = 0; i < symtab_nsyms; i++) {
		const struct symtab_sym *s = &symtab_syms[i];

		if (symtab_is_func(s) && addr >= s->value &&
		    addr - s->value < (s->size ? s->size : 1))
			return symtab_sym_name(s);
	}
	return NULL;
}

/* Does symbol `name` belong to object `obj` by the naming rule? */
static int symtab_owned(const char *name, const char *obj)
{
	size_t n = strlen(obj);

	return string_startswith(name, obj) &&
	       (name[n] == '\0' || name[n] == '_');
}

int symtab_object_range(const char *obj, u64 *lo, u64 *hi)
{
	u64 i;
	int found = 0;

	*lo = ~0UL;
	*hi = 0;
	for (i = 0; i < symtab_nsyms; i++) {
		const struct symtab_sym *s = &symtab_syms[i];
		const char *name;

		if (!symtab_is_func(s) || !(name = symtab_sym_name(s)) ||
		    !symtab_owned(name, obj))
			continue;
		found = 1;
		if (s->value < *lo)
			*lo = s->value;
		if (s->value + s->size > *hi)
			*hi = s->value + s->size;
	}
	return found ? 0 : -1;
}

/* Symbolizes functions of several objects by address. */
#define SYMTAB_FN(f)         \
	{                    \
		(uptr) f, #f \
	}
static int symtab_check(char *detail, size_t cap)
{
	const struct {
		uptr addr;
		const char *name;
	} want[] = {
		SYMTAB_FN(main),	 SYMTAB_FN(serial_putc),
		SYMTAB_FN(kprintf),	 SYMTAB_FN(symtab_name_at),
		SYMTAB_FN(ramscan_run),	 SYMTAB_FN(crc32_compute),
		SYMTAB_FN(jumptab_eval), SYMTAB_FN(heap_alloc),
		SYMTAB_FN(exitdev_exit),
	};
	u32 i;

	if (symtab_open(detail, cap))
		return -1;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *got = symtab_name_at(want[i].addr);

		if (!got || strcmp(got, want[i].name)) {
			ksnprintf(detail, cap, "%s symbolized as %s",
				  want[i].name, got ? got : "nothing");
			return -1;
		}
	}
	return 0;
}
DEMO_CHECK(CK_SYMTAB, "symtab", symtab_check);

/* Every object's functions form one range holding its marker, and no two
 * objects' ranges overlap: objects were placed whole. */
static int symtab_ranges_check(char *detail, size_t cap)
{
	u32 n, i, j;
	const char *const *names = fingerprint_names(&n);
	static u64 lo[64], hi[64];

	if (!symtab_nsyms || n > 64)
		return symtab_fail(detail, cap, "no symbols");
	for (i = 0; i < n; i++) {
		u64 m = fingerprint_marker_addr(i);

		if (symtab_object_range(names[i], &lo[i], &hi[i]) ||
		    m < lo[i] || m >= hi[i]) {
			ksnprintf(detail, cap,
				  "object %s: marker outside its range",
				  names[i]);
			return -1;
		}
		for (j = 0; j < i; j++)
			if (lo[i] < hi[j] && lo[j] < hi[i]) {
				ksnprintf(detail, cap,
					  "objects %s and %s overlap", names[j],
					  names[i]);
				return -1;
			}
	}
	return 0;
}
DEMO_CHECK(CK_OBJRANGES, "objranges", symtab_ranges_check);

/* For table checks: does addr lie in object owner's function range? */
int symtab_in_object(const char *owner, u64 addr)
{
	u64 lo, hi;

	return symtab_object_range(owner, &lo, &hi) == 0 && addr >= lo &&
	       addr < hi;
}
