/* The OpenBSD-protocol test kernel (test/obsd). */
#ifndef OBSD_H
#define OBSD_H

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef int i32;

#define KERNBASE 0xffffffff80000000ull
#define PHYS(p) ((u64)(p) - KERNBASE)

/* locore0.S: the words the loader left at (%esp) .. 32(%esp). */
extern u32 obsd_stackargs[9];
extern u32 obsd_entry_esp, obsd_entry_cr0;
/* ld.script: end is 2 MiB aligned; the loaded image ends at bss end. */
extern char start[], end[], __kernel_bss_end[];
/* vers.c, param.c, ioconf.c */
extern const char obsd_version[];
/* swapgeneric.c: the root device (rootdev in OpenBSD) */
extern const char obsd_rootdev[];
extern int obsd_hz;
extern const char *const obsd_devices[];

/* cons.c */
void cons_init(void);
void cons_puts(const char *s);
void cons_hex(u64 v);
void cons_dec(u64 v);
__attribute__((noreturn)) void cons_exit(int pass);

/* checks.c: each returns 0 or prints `obsd: FAIL what detail` and 1. */
int fail(const char *what, const char *detail, u64 v);
int check_args(void);
int check_bootargs(void);
/* syms.c: the ELF symbol table after the image, as the kernel finds it */
int check_symbols(void);
void obsd_main(void);
/* sects.c */
int check_sections(void);
/* rand.c */
int check_random(void);

#endif
