/*
 * /sbin/init for the userland boot tests (test/obsd/test-userland.sh): a
 * static OpenBSD/amd64 program with no libc that shows, on the console,
 * what a relinked kernel gave its first process, then powers the machine
 * off. Lines (each one write(2), so kernel output cannot split them):
 *
 *   init: argv /sbin/init [-s]
 *   init: kern.version OpenBSD 7.3 (GENERIC) #...     (first line only)
 *   init: ksyms N bytes, M symbols, fingerprint 0x...  (of all values)
 *   init: ksym NAME 0x...                               (a few globals)
 *   init: done
 *
 * or `init: ... error ...` lines where something failed; it goes on to
 * `done` and the power-off in every case, so a test never waits for a
 * timeout. /dev/ksyms is the kernel's symbol table as the boot loader
 * handed it over (an ELF header, section headers, .symtab, .strtab) and
 * untrusted here like any input: every offset and count is checked.
 */

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long u64;

long sys(long n, long a1, long a2, long a3, long a4, long a5, long a6);

/* syscalls.master, OpenBSD 7.3 */
#define SYS_read 3
#define SYS_write 4
#define SYS_open 5
#define SYS_close 6
#define SYS_reboot 55
#define SYS_nanosleep 91
#define SYS_sysctl 202

#define O_RDONLY 0
#define O_WRONLY 1
#define CTL_KERN 1
#define KERN_VERSION 4
#define RB_HALT 0x8
#define RB_POWERDOWN 0x1000

#define SHT_SYMTAB 2
#define SHT_STRTAB 3
#define STB_GLOBAL 1

/* Symbols every GENERIC kernel has (sys/kern, sys/uvm, amd64 machdep). */
static const char *const wanted[] = {"main", "start_init", "uvm_init",
				     "cpu_startup"};

static int con = -1;

/* ---- console lines ---- */

static char line[512];
static u32 len;

static void put(const char *s)
{
	while (*s && len < sizeof line - 1)
		line[len++] = *s++;
}

static void put_n(const char *s, u64 max)
{
	for (u64 i = 0; i < max && s[i] && len < sizeof line - 1; i++)
		line[len++] = s[i];
}

static void put_hex(u64 v)
{
	char b[19];
	int i = 18;

	b[i] = 0;
	do {
		b[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v && i > 2);
	b[--i] = 'x';
	b[--i] = '0';
	put(b + i);
}

static void put_dec(u64 v)
{
	char b[21];
	int i = 20;

	b[i] = 0;
	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v && i > 0);
	put(b + i);
}

static void flush(void)
{
	line[len++] = '\n';
	if (con >= 0)
		sys(SYS_write, con, (long)line, len, 0, 0, 0);
	len = 0;
}

static void fail(const char *what, long err)
{
	put("init: ");
	put(what);
	put(" error ");
	put_dec((u64)-err);
	flush();
}

/* ---- what the kernel passed ---- */

static void show_argv(const long *sp)
{
	long argc = sp[0];
	const char *const *argv = (const char *const *)(sp + 1);

	put("init: argv");
	for (long i = 0; i < argc && i < 16; i++) {
		put(" ");
		put_n(argv[i], 64);
	}
	flush();
}

static void show_version(void)
{
	static char v[256];
	int mib[2] = {CTL_KERN, KERN_VERSION};
	u64 vlen = sizeof v - 1;
	long r = sys(SYS_sysctl, (long)mib, 2, (long)v, (long)&vlen, 0, 0);

	if (r < 0) {
		fail("kern.version", r);
		return;
	}
	if (vlen > sizeof v - 1)
		vlen = sizeof v - 1;
	for (u64 i = 0; i < vlen; i++)
		if (v[i] == '\n')
			v[i] = 0; /* the first line only */
	put("init: kern.version ");
	put_n(v, vlen);
	flush();
}

/* ---- /dev/ksyms ---- */

/* The relinked GENERIC's table is ~2.3 MB; the rest is headroom. */
static u8 ks[16u << 20];

static u64 rd(const u8 *p, int n)
{
	u64 v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* [off, off + size) inside the file, without overflow. */
static int inside(u64 off, u64 size, u64 total)
{
	return off <= total && size <= total - off;
}

static long read_ksyms(void)
{
	long fd = sys(SYS_open, (long)"/dev/ksyms", O_RDONLY, 0, 0, 0, 0);
	u64 n = 0;
	long r = 0;

	if (fd < 0)
		return fd;
	while (n < sizeof ks &&
	       (r = sys(SYS_read, fd, (long)(ks + n), sizeof ks - n, 0, 0, 0)) > 0)
		n += (u64)r;
	sys(SYS_close, fd, 0, 0, 0, 0, 0);
	if (r < 0)
		return r;
	if (n == sizeof ks)
		return -27; /* EFBIG: no room to know it ended */
	return (long)n;
}

struct symtab {
	const u8 *sym, *str;
	u64 nsym, strsz;
};

/* The first SHT_SYMTAB and the SHT_STRTAB its sh_link names. */
static const char *find_symtab(u64 total, struct symtab *t)
{
	u64 shoff, shnum, i;
	const u8 *sh, *st;

	if (total < 64 || rd(ks, 4) != 0x464c457f || ks[4] != 2 || ks[5] != 1)
		return "not an ELF64 LSB file";
	shoff = rd(ks + 40, 8);
	shnum = rd(ks + 60, 2);
	if (rd(ks + 58, 2) != 64 || !inside(shoff, shnum * 64, total))
		return "section headers outside the file";
	for (i = 0; i < shnum; i++)
		if (rd(ks + shoff + i * 64 + 4, 4) == SHT_SYMTAB)
			break;
	if (i == shnum)
		return "no SHT_SYMTAB";
	sh = ks + shoff + i * 64;
	i = rd(sh + 40, 4); /* sh_link */
	if (i >= shnum)
		return "bad sh_link";
	st = ks + shoff + i * 64;
	if (rd(st + 4, 4) != SHT_STRTAB)
		return "sh_link is not a SHT_STRTAB";
	t->nsym = rd(sh + 32, 8) / 24;
	t->strsz = rd(st + 32, 8);
	if (!inside(rd(sh + 24, 8), t->nsym * 24, total) ||
	    !inside(rd(st + 24, 8), t->strsz, total) || t->strsz == 0)
		return "symbol or string table outside the file";
	t->sym = ks + rd(sh + 24, 8);
	t->str = ks + rd(st + 24, 8);
	return 0;
}

/* Name of symbol i equals s (a NUL inside the string table ends it). */
static int name_is(const struct symtab *t, u64 i, const char *s)
{
	u64 off = rd(t->sym + i * 24, 4);

	for (; off < t->strsz; off++, s++) {
		if (t->str[off] != (u8)*s)
			return 0;
		if (!*s)
			return 1;
	}
	return 0;
}

static void show_ksyms(void)
{
	long total = read_ksyms();
	struct symtab t;
	const char *why;
	u64 h = 0xcbf29ce484222325ul; /* FNV-1a 64 */

	if (total < 0) {
		fail("/dev/ksyms", total);
		return;
	}
	if ((why = find_symtab((u64)total, &t))) {
		put("init: /dev/ksyms error: ");
		put(why);
		flush();
		return;
	}
	/* The values in table order: any layout change moves some. */
	for (u64 i = 0; i < t.nsym; i++)
		for (int b = 0; b < 8; b++)
			h = (h ^ t.sym[i * 24 + 8 + b]) * 0x100000001b3ul;
	put("init: ksyms ");
	put_dec((u64)total);
	put(" bytes, ");
	put_dec(t.nsym);
	put(" symbols, fingerprint ");
	put_hex(h);
	flush();
	for (u64 w = 0; w < sizeof wanted / sizeof wanted[0]; w++) {
		u64 i;

		for (i = 0; i < t.nsym; i++)
			if (t.sym[i * 24 + 4] >> 4 == STB_GLOBAL && name_is(&t, i, wanted[w]))
				break;
		put("init: ksym ");
		put(wanted[w]);
		if (i < t.nsym) {
			put(" ");
			put_hex(rd(t.sym + i * 24 + 8, 8));
		} else {
			put(" missing");
		}
		flush();
	}
}

void init_main(const long *sp)
{
	long r;

	con = (int)sys(SYS_open, (long)"/dev/console", O_WRONLY, 0, 0, 0, 0);
	show_argv(sp);
	show_version();
	show_ksyms();
	put("init: done");
	flush();
	r = sys(SYS_reboot, RB_HALT | RB_POWERDOWN, 0, 0, 0, 0, 0);
	fail("reboot", r);
	for (;;) {
		/* init must not exit (the kernel panics): idle instead. */
		static const long ts[2] = {60, 0};

		sys(SYS_nanosleep, (long)ts, 0, 0, 0, 0, 0);
	}
}
