/*
 * mb2shim: a minimal Multiboot2 loader for testing the demo kernel under
 * QEMU without GRUB. Module 0 is the kernel ELF64; its command line holds
 * options (words):
 *   loader=NAME     loader-name tag ('_' becomes ' '); default
 *                   "relinkboot fallback"
 *   badmagic        enter with EAX = 0x2badb002 (kernel must FAIL)
 *   nosyms          no ELF-sections tag
 *   norandom        leave PT_OPENBSD_RANDOMIZE zero
 *   noacpi          no RSDP tag
 * Other modules are left where QEMU put them (usable RAM): a test module
 * holding kit magics must be found by the kernel's RAM scan.
 * Errors: one "mb2shim: ..." line on COM1 and isa-debug-exit 0x12.
 */
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

#define NULL		     ((void *)0)
#define MB1_MAGIC	     0x2badb002u
#define MB2_MAGIC	     0x36d76289u
#define PT_LOAD		     1
#define PT_OPENBSD_RANDOMIZE 0x65a3dbe6u
#define SHT_NOBITS	     8
#define SHF_ALLOC	     0x2

struct mb1_info {
	u32 flags, mem_lower, mem_upper, boot_device, cmdline;
	u32 mods_count, mods_addr, syms[4], mmap_length, mmap_addr;
};
struct mb1_mod {
	u32 start, end, string, reserved;
};
struct elf64_ehdr {
	u8 ident[16];
	u16 type, machine;
	u32 version;
	u64 entry, phoff, shoff;
	u32 flags;
	u16 ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct elf64_phdr {
	u32 type, flags;
	u64 offset, vaddr, paddr, filesz, memsz, align;
};
struct elf64_shdr {
	u32 name, type;
	u64 flags, addr, offset, size;
	u32 link, info;
	u64 addralign, entsize;
};

extern char shim_end[];
void shim_jump(u32 entry, u32 eax, u32 ebx) __attribute__((noreturn));
void shim_main(u32 magic, struct mb1_info *mbi);

static u8 shim_info[32768] __attribute__((aligned(8)));
static u32 shim_len;
static u64 shim_rng;

static void outb(u16 port, u8 v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static void shim_puts(const char *s)
{
	for (; *s; s++)
		outb(0x3f8, (u8)*s);
}

static void shim_die(const char *why) __attribute__((noreturn));
static void shim_die(const char *why)
{
	shim_puts("mb2shim: ");
	shim_puts(why);
	shim_puts("\n");
	outb(0xf4, 0x12);
	for (;;)
		__asm__ volatile("hlt");
}

static void shim_copy(void *d, const void *s, u32 n)
{
	u8 *dp = d;
	const u8 *sp = s;

	while (n--)
		*dp++ = *sp++;
}

static void shim_fill(void *d, u8 v, u32 n)
{
	u8 *dp = d;

	while (n--)
		*dp++ = v;
}

static int shim_word(const char *opts, const char *w, const char **val)
{
	const char *p = opts;

	while (*p) {
		const char *a = p, *b = w;

		while (*a && *b && *a == *b)
			a++, b++;
		if (!*b && (*a == ' ' || *a == '\0' || *a == '=')) {
			if (val)
				*val = *a == '=' ? a + 1 : a;
			return 1;
		}
		while (*p && *p != ' ')
			p++;
		while (*p == ' ')
			p++;
	}
	return 0;
}

static u8 shim_random(void)
{
	u32 lo, hi;

	if (!shim_rng) {
		__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
		shim_rng = ((u64)hi << 32 | lo) | 1;
	}
	shim_rng ^= shim_rng << 13;
	shim_rng ^= shim_rng >> 7;
	shim_rng ^= shim_rng << 17;
	return (u8)(shim_rng >> 24);
}

/* Appends a tag of `size` bytes (header included); returns its body. */
static u8 *shim_tag(u32 type, u32 size)
{
	u8 *t;

	shim_len = (shim_len + 7) & ~7u;
	if (shim_len + size + 8 > sizeof(shim_info))
		shim_die("info buffer too small");
	t = shim_info + shim_len;
	shim_fill(t, 0, (size + 7) & ~7u);
	((u32 *)t)[0] = type;
	((u32 *)t)[1] = size;
	shim_len += size;
	return t + 8;
}

static void shim_string_tag(u32 type, const char *s, int underscores)
{
	u32 n = 0;
	u8 *b;

	while (s[n] && s[n] != ' ')
		n++;
	b = shim_tag(type, 8 + n + 1);
	shim_copy(b, s, n);
	for (u32 i = 0; underscores && i < n; i++)
		if (b[i] == '_')
			b[i] = ' ';
}

static void shim_mmap_tag(const struct mb1_info *mbi)
{
	u32 off = 0, n = 0;
	u8 *b, *e;

	if (!(mbi->flags & (1u << 6)))
		shim_die("no memory map from QEMU");
	while (off + 4 <= mbi->mmap_length) {
		off += *(const u32 *)(mbi->mmap_addr + off) + 4;
		n++;
	}
	b = shim_tag(6, 16 + 24 * n);
	((u32 *)b)[0] = 24;
	((u32 *)b)[1] = 0;
	e = b + 8;
	for (off = 0; off + 4 <= mbi->mmap_length && n--; e += 24) {
		const u8 *s = (const u8 *)(mbi->mmap_addr + off);

		shim_copy(e, s + 4, 20); /* addr, len, type */
		off += *(const u32 *)s + 4;
	}
}

static void shim_acpi_tag(void)
{
	for (u32 a = 0xe0000; a < 0x100000; a += 16) {
		const u8 *p = (const u8 *)a;
		const char *sig = "RSD PTR ";
		u8 sum = 0;
		u32 i;

		for (i = 0; i < 8 && p[i] == (u8)sig[i]; i++)
			;
		if (i < 8)
			continue;
		for (i = 0; i < 20; i++)
			sum += p[i];
		if (sum)
			continue;
		if (p[15] >= 2) {
			u32 len = *(const u32 *)(p + 20);
			shim_copy(shim_tag(15, 8 + len), p, len);
		} else {
			shim_copy(shim_tag(14, 8 + 20), p, 20);
		}
		return;
	}
}

static void shim_elf_tag(const u8 *f, u32 fsize, const struct elf64_ehdr *eh)
{
	u32 i, bytes = (u32)eh->shnum * 64;
	u8 *b;

	if (eh->shentsize != 64 || eh->shoff > fsize ||
	    bytes > fsize - eh->shoff)
		shim_die("kernel section headers out of bounds");
	b = shim_tag(9, 20 + bytes);
	((u32 *)b)[0] = eh->shnum;
	((u32 *)b)[1] = 64;
	((u32 *)b)[2] = eh->shstrndx;
	shim_copy(b + 12, f + eh->shoff, bytes);
	for (i = 0; i < eh->shnum; i++) {
		struct elf64_shdr *sh = (struct elf64_shdr *)(b + 12 + 64 * i);

		/* Non-loaded sections stay inside the module, where QEMU
		 * put the file: their physical address is the module's
		 * (whatever sh_addr the file had, as GRUB does). */
		if (!(sh->flags & SHF_ALLOC) && sh->type != 0 &&
		    sh->type != SHT_NOBITS) {
			if (sh->offset > fsize || sh->size > fsize - sh->offset)
				shim_die("kernel section out of bounds");
			sh->addr = (u32)f + sh->offset;
		}
	}
}

/* Loads the segments; returns the lowest physical address. */
static u32 shim_load(const u8 *f, u32 fsize, const struct elf64_ehdr *eh,
		     int randomize)
{
	u32 i, low = ~0u;

	if (eh->phentsize != sizeof(struct elf64_phdr) || eh->phoff > fsize ||
	    (u32)eh->phnum * 56 > fsize - eh->phoff)
		shim_die("kernel program headers out of bounds");
	for (i = 0; i < eh->phnum; i++) {
		const struct elf64_phdr *ph =
			(const void *)(f + eh->phoff + 56 * i);

		if (ph->type != PT_LOAD)
			continue;
		if (ph->offset > fsize || ph->filesz > fsize - ph->offset ||
		    ph->memsz < ph->filesz || ph->paddr < (u32)shim_end ||
		    ph->paddr + ph->memsz > 0xc0000000u)
			shim_die("kernel PT_LOAD out of bounds");
		shim_copy((void *)(u32)ph->paddr, f + ph->offset,
			  (u32)ph->filesz);
		shim_fill((u8 *)(u32)ph->paddr + ph->filesz, 0,
			  (u32)(ph->memsz - ph->filesz));
		if (ph->paddr < low)
			low = (u32)ph->paddr;
	}
	for (i = 0; i < eh->phnum && randomize; i++) {
		const struct elf64_phdr *ph =
			(const void *)(f + eh->phoff + 56 * i);
		u8 *p = (u8 *)(u32)ph->paddr;

		if (ph->type == PT_OPENBSD_RANDOMIZE)
			for (u64 k = 0; k < ph->memsz; k++)
				p[k] = shim_random();
	}
	if (low == ~0u)
		shim_die("kernel has no PT_LOAD");
	return low;
}

/* Entry from the Multiboot2 header's entry tag, as a loader must. */
static u32 shim_entry(const u8 *f, u32 fsize)
{
	u32 off, lim = fsize < 32768 ? fsize : 32768;

	for (off = 0; off + 16 <= lim; off += 8) {
		const u32 *h = (const u32 *)(f + off);
		u32 t;

		if (h[0] != 0xe85250d6u || h[0] + h[1] + h[2] + h[3] != 0 ||
		    h[2] > lim - off)
			continue;
		for (t = 16; t + 8 <= h[2];) {
			const u8 *tp = f + off + t;
			u16 type = *(const u16 *)tp;
			u32 sz = *(const u32 *)(tp + 4);

			if (type == 3 && sz >= 12)
				return *(const u32 *)(tp + 8);
			if (type == 0 || sz < 8)
				break;
			t += (sz + 7) & ~7u;
		}
		shim_die("Multiboot2 header without entry tag");
	}
	shim_die("no Multiboot2 header in the first 32 KiB");
}

void shim_main(u32 magic, struct mb1_info *mbi)
{
	const struct mb1_mod *mod;
	const struct elf64_ehdr *eh;
	const char *opts, *v;
	const u8 *f;
	u32 fsize, low, entry, *m;

	if (magic != MB1_MAGIC || !(mbi->flags & (1u << 3)) || !mbi->mods_count)
		shim_die("need QEMU -kernel with -initrd KERNEL");
	mod = (const struct mb1_mod *)mbi->mods_addr;
	f = (const u8 *)mod->start;
	fsize = mod->end - mod->start;
	opts = mod->string ? (const char *)mod->string : "";
	eh = (const struct elf64_ehdr *)f;
	if (fsize < sizeof(*eh) || eh->ident[0] != 0x7f ||
	    eh->ident[1] != 'E' || eh->ident[4] != 2 || eh->machine != 62)
		shim_die("module 0 is not an x86-64 ELF");
	low = shim_load(f, fsize, eh, !shim_word(opts, "norandom", NULL));
	entry = shim_entry(f, fsize);

	shim_len = 8;
	shim_string_tag(1, shim_word(opts, "cmdline", &v) ? v : "", 1);
	shim_string_tag(
		2, shim_word(opts, "loader", &v) ? v : "relinkboot_fallback",
		1);
	m = (u32 *)shim_tag(4, 16);
	m[0] = mbi->mem_lower;
	m[1] = mbi->mem_upper;
	shim_mmap_tag(mbi);
	if (!shim_word(opts, "nosyms", NULL))
		shim_elf_tag(f, fsize, eh);
	if (!shim_word(opts, "noacpi", NULL))
		shim_acpi_tag();
	*(u32 *)shim_tag(21, 12) = low;
	shim_tag(0, 8);
	shim_len = (shim_len + 7) & ~7u;
	((u32 *)shim_info)[0] = shim_len;
	((u32 *)shim_info)[1] = 0;
	shim_jump(entry,
		  shim_word(opts, "badmagic", NULL) ? MB1_MAGIC : MB2_MAGIC,
		  (u32)shim_info);
}
