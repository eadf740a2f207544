/*
 * Shared declarations of the demo kernel. Every object is compiled with
 * -DOBJ_NAME="name" -DOBJ_INDEX=n (its place in the canonical object order,
 * from rules.mk) so tables can tell which object an entry came from.
 * Functions of object NAME are called NAME or NAME_*, and no object name
 * contains '_': the self-checks find an object's code range by that prefix.
 */
#ifndef DEMO_H
#define DEMO_H

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long u64;
typedef unsigned long uptr;
typedef unsigned long size_t;

#define NULL ((void *)0)

/* VA = PA + KERNBASE for the higher-half mapping set up by locore. */
#define KERNBASE 0xffffffff80000000UL

/* One marker per object: the fingerprint hashes their addresses. */
#define DEMO_OBJECT(name)                                        \
	void name##_marker(void);                                \
	__attribute__((noinline, used)) void name##_marker(void) \
	{                                                        \
		__asm__ volatile("" ::: "memory");               \
	}

/* Returns the object's own name string; called through tables. */
#define DEMO_IDENT(name)                                         \
	const char *name##_ident(void);                          \
	__attribute__((noinline)) const char *name##_ident(void) \
	{                                                        \
		return OBJ_NAME;                                 \
	}

/* ---- init-order table: entries must run in canonical object order ---- */
struct demo_init {
	const char *owner;
	void (*fn)(void);
	u32 index; /* OBJ_INDEX of the contributing object */
	u32 pad;
};
#define DEMO_INIT(fn_)                                                      \
	static const struct demo_init demo_init_##fn_                       \
		__attribute__((used, section(".initcall"), aligned(8))) = { \
			OBJ_NAME, fn_, OBJ_INDEX, 0}

/* ---- linker set of self-checks (output section set_demo_checks) ---- */
enum demo_check_id {
	/* run in this order: later checks use the symbol table */
	CK_MBINFO,
	CK_SYMTAB,
	CK_OBJRANGES,
	CK_INITORDER,
	CK_FPTRS,
	CK_BSS,
	CK_CANARY,
	CK_WEAK,
	CK_COMMON,
	CK_JUMPTAB,
	CK_STRMERGE,
	CK_ACPI,
	CK_MEMMAP,
	CK_CPU,
	CK_CRC32,
	CK_SORT,
	CK_HEAP,
	CK_COUNT
};
struct demo_check {
	const char *name;
	int (*fn)(char *detail, size_t cap); /* 0 ok; else detail filled */
	const char *owner;
	u32 id;
	u32 pad;
};
#define DEMO_CHECK(id_, name_, fn_)                                           \
	static const struct demo_check demo_check_##fn_ = {name_, fn_,        \
							   OBJ_NAME, id_, 0}; \
	static const struct demo_check *const demo_checkp_##fn_               \
		__attribute__((used, section("set_demo_checks"))) =           \
			&demo_check_##fn_

/* Linker-script and linker-set symbols. */
extern char __kernel_start[], etext[], edata[], end[], __bss_start[];
extern const struct demo_init __initcall_start[], __initcall_end[];
extern const struct demo_check *const __start_set_demo_checks[];
extern const struct demo_check *const __stop_set_demo_checks[];

void main(u32 info, u32 magic);

/* serial / kprintf / exit */
void serial_putc(char c);
void serial_puts(const char *s);
void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int ksnprintf(char *buf, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void exitdev_exit(int pass) __attribute__((noreturn));
void panic(const char *why) __attribute__((noreturn));

/* string */
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int string_startswith(const char *s, const char *prefix);

/* Multiboot2 info */
struct mb2_tag {
	u32 type;
	u32 size;
};
int mbinfo_init(u32 magic, u32 info_phys); /* 0 ok */
const struct mb2_tag *mbinfo_find(u32 type, const struct mb2_tag *after);
const char *mbinfo_problem(void);
u32 mbinfo_phys(void);
u32 mbinfo_size(void);

/* Pointers to physical memory below 4 GiB (identity-mapped by locore). */
static inline void *phys_to_ptr(u64 pa)
{
	return (void *)pa;
}
/* Physical load base minus the link base (locore, from info tag 21). */
extern long demo_phys_delta;
static inline u64 kva_to_phys(const void *p)
{
	return (uptr)p - KERNBASE + (u64)demo_phys_delta;
}

/* loader, fingerprint, ramscan, needles */
const char *loader_kind(void);
u64 fingerprint_compute(void);
int ramscan_run(void); /* number of findings */
struct needle {
	const char *what;
	const u8 *bytes;
	u32 len;
};
const struct needle *needles_get(u32 *count);

/* symbols from the Multiboot2 ELF-sections tag */
int symtab_open(char *detail, size_t cap);
/* Name of the FUNC symbol whose [value, value+size) holds addr, or NULL. */
const char *symtab_name_at(u64 addr);
/* Range of an object's functions: symbols "obj" or "obj_*"; 0 if found. */
int symtab_object_range(const char *obj, u64 *lo, u64 *hi);
int symtab_in_object(const char *owner, u64 addr);

/* checks, init order */
int checks_run(void); /* number of failures */
void initorder_run(void);
int initorder_ok(char *detail, size_t cap);
const char *const *fingerprint_names(u32 *count);
u64 fingerprint_marker_addr(u32 i);

/* weak/strong */
const char *demo_weak_name(void);
const char *demo_weak_unoverridden(void);

/* common (COMMON symbols, from common.c built with -fcommon) */
extern int common_counter;
extern unsigned char common_buf[512];

/* misc services used by checks */
int jumptab_eval(const u8 *prog, size_t n, u64 x, u64 *out);
u32 crc32_compute(const void *p, size_t n);
void sort_u64(u64 *v, size_t n);
void *heap_alloc(size_t n, size_t align);
u64 rng_next(void);
u64 cpu_rdtsc(void);
const char *cmdline_get(void);
void idt_install(void);
const char *strsa_text(void);
const char *strsb_text(void);

/* one op per service object, in fptrs.c */
struct demo_op {
	const char *owner;
	const char *(*ident)(void);
};

#endif
