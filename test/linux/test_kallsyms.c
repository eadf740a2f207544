/*
 * The boot-time kallsyms (tools/kbkallsyms.c on the host,
 * linkkit/linux_kallsyms.c at boot) against the corpus' own
 * scripts/kallsyms binary, run as link-vmlinux.sh runs it
 * (--all-symbols --absolute-percpu --base-relative) on a symbol list made
 * as link-vmlinux.sh makes it (nm + scripts/mksysmap, LC_COLLATE=C), its
 * .S assembled by gcc and linked with _text defined: the bytes of its
 * .rodata must equal ours. First for the build's own layout (and the
 * kallsyms bytes inside the real vmlinux), then for layouts where groups
 * of symbols moved as a shuffled object order moves them: the host's
 * blob made once from the original list, only the addresses new. Then
 * the layouts the boot side must refuse, and hand-broken blobs.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kbkallsyms.h"
#include "linux_kallsyms.h"
#include "tap.h"

#ifndef LINUX_CORPUS
#define LINUX_CORPUS "."
#endif

/* One line of the symbol list (nm -n through mksysmap). */
struct line {
	uint64_t addr;
	char type;
	char *name;
};

struct map {
	struct line *l;
	size_t n;
	char *text;
	size_t len;
};

/* An allocated section of vmlinux: symbols inside it move together. */
struct region {
	uint64_t start, end;
};

static char dir[256];
static struct region regions[128];
static size_t nregions;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	return rc == -1 ? -1 : WEXITSTATUS(rc);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) &&
	    fread(buf, 1, (size_t)n, f) == (size_t)n) {
		buf[n] = 0;
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static int spit(const char *path, const void *p, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(p, 1, len, f) == len;

	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -1;
}

static int read_map(const char *path, struct map *m)
{
	char *s, *nl;
	size_t cap = 0;
	char name[2100], type;
	unsigned long long a;

	memset(m, 0, sizeof(*m));
	m->text = (char *)slurp(path, &m->len);
	if (!m->text)
		return -1;
	for (s = m->text; *s; s = nl + 1) {
		nl = strchr(s, '\n');
		if (!nl || sscanf(s, "%llx %c %2047s", &a, &type, name) != 3)
			return -1;
		if (m->n == cap) {
			struct line *l;

			cap = cap ? 2 * cap : 65536;
			l = realloc(m->l, cap * sizeof(*m->l));
			if (!l)
				return -1;
			m->l = l;
		}
		m->l[m->n].addr = a;
		m->l[m->n].type = type;
		m->l[m->n].name = strdup(name);
		m->n++;
	}
	return 0;
}

static size_t find_line(const struct map *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->l[i].name, name))
			return i;
	return (size_t)-1;
}

/* ---- the oracle: the corpus' scripts/kallsyms ---- */

static const uint64_t *sort_addr;
static const struct map *sort_map;

/* nm -n: by value, then by name (strcoll with LC_COLLATE=C), else as in
 * the symbol table (glibc's qsort is a stable merge sort here). */
static int nm_order(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	int c;

	if (sort_addr[a] != sort_addr[b])
		return sort_addr[a] < sort_addr[b] ? -1 : 1;
	c = strcmp(sort_map->l[a].name, sort_map->l[b].name);
	if (c)
		return c;
	return a < b ? -1 : a > b;
}

/* The list mksysmap would write for these addresses. */
static int write_map(const char *file, const struct map *m,
		     const uint64_t *addr)
{
	size_t *o = malloc(m->n * sizeof(*o)), i;
	char path[512];
	FILE *f;

	for (i = 0; i < m->n; i++)
		o[i] = i;
	sort_addr = addr;
	sort_map = m;
	qsort(o, m->n, sizeof(*o), nm_order);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	if (!f) {
		free(o);
		return -1;
	}
	for (i = 0; i < m->n; i++)
		fprintf(f, "%016llx %c %s\n", (unsigned long long)addr[o[i]],
			m->l[o[i]].type, m->l[o[i]].name);
	free(o);
	return fclose(f) ? -1 : 0;
}

/* Runs scripts/kallsyms on dir/file; its .rodata with _text = text.
 * Returns its exit status (non-zero: it refused), -1 on a tool error. */
static int oracle(const char *file, uint64_t text, uint8_t **bin, size_t *len)
{
	char path[512];
	int rc;

	*bin = NULL;
	rc = sh("cd '%s' && '%s/scripts/kallsyms' --all-symbols "
		"--absolute-percpu --base-relative %s >k.S 2>k.err",
		dir, LINUX_CORPUS, file);
	if (rc)
		return rc;
	if (sh("cd '%s' && gcc -nostdinc -Iinc -D__ASSEMBLY__ -fno-PIE -m64 "
	       "-c -o k.o k.S && ld -m elf_x86_64 -e 0 --defsym=_text=%#llx "
	       "-o k.elf k.o && objcopy -O binary -j .rodata k.elf k.bin",
	       dir, (unsigned long long)text))
		return -1;
	snprintf(path, sizeof(path), "%s/k.bin", dir);
	*bin = slurp(path, len);
	return *bin ? 0 : -1;
}

/* ---- ours ---- */

/* Prep on dir/file. */
static int prep(const char *file, struct kb_ksyms *k, double *secs)
{
	char path[512];
	size_t len;
	char *text;
	double t;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	text = (char *)slurp(path, &len);
	if (!text) {
		snprintf(k->err, sizeof(k->err), "cannot read %.200s", file);
		return -1;
	}
	t = now();
	rc = kb_ksyms_prep(text, len, k);
	if (secs)
		*secs = now() - t;
	free(text);
	return rc;
}

/* The section for these addresses (by map line) from blob b. */
static const char *emit(const struct kb_ksyms *k, const struct lk_ksym_blob *b,
			const uint64_t *by_line, uint8_t **sec, size_t *len,
			uint32_t *bad, double *secs)
{
	struct lk_ksym_layout l;
	lk_u64 *a = malloc(k->n * sizeof(*a));
	void *work = malloc(lk_ksym_work_size(b));
	const char *err;
	uint32_t i;
	double t;

	for (i = 0; i < k->n; i++)
		a[i] = by_line[k->syms[i].line];
	lk_ksym_layout(b, &l);
	*len = l.size;
	*sec = malloc(l.size);
	t = now();
	err = lk_ksym_emit_section(b, a, k->n, *sec, l.size, work,
				   lk_ksym_work_size(b), bad);
	if (secs)
		*secs = now() - t;
	free(a);
	free(work);
	return err;
}

static size_t first_diff(const uint8_t *a, size_t la, const uint8_t *b,
			 size_t lb)
{
	size_t i;

	for (i = 0; i < la && i < lb; i++)
		if (a[i] != b[i])
			return i;
	return la == lb ? (size_t)-1 : i;
}

/* ---- layouts ---- */

/* The allocated sections of vmlinux, and its bytes at address a. */
static const uint8_t *vmlinux_regions(const uint8_t *vm, size_t len, uint64_t a,
				      uint64_t need)
{
	const Elf64_Ehdr *e = (const void *)vm;
	const Elf64_Shdr *sh;
	const uint8_t *at = NULL;
	size_t i;

	if (len < sizeof(*e) || memcmp(e->e_ident, ELFMAG, SELFMAG) ||
	    e->e_shoff + (uint64_t)e->e_shnum * sizeof(*sh) > len)
		return NULL;
	sh = (const void *)(vm + e->e_shoff);
	for (i = 0; i < e->e_shnum; i++) {
		if (!(sh[i].sh_flags & SHF_ALLOC) || !sh[i].sh_size)
			continue;
		if (nregions < sizeof(regions) / sizeof(regions[0])) {
			regions[nregions].start = sh[i].sh_addr;
			regions[nregions].end = sh[i].sh_addr + sh[i].sh_size;
			nregions++;
		}
		if (sh[i].sh_type == SHT_PROGBITS && a >= sh[i].sh_addr &&
		    a + need <= sh[i].sh_addr + sh[i].sh_size &&
		    sh[i].sh_offset + sh[i].sh_size <= len)
			at = vm + sh[i].sh_offset + (a - sh[i].sh_addr);
	}
	return at;
}

static int by_addr(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	if (sort_addr[a] != sort_addr[b])
		return sort_addr[a] < sort_addr[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The lines strictly inside region r (its border symbols stay), by
 * address. */
static size_t inside(const struct map *m, const uint64_t *addr,
		     const struct region *r, size_t *out)
{
	size_t i, n = 0;

	for (i = 0; i < m->n; i++)
		if (m->l[i].addr > r->start && m->l[i].addr < r->end)
			out[n++] = i;
	sort_addr = addr;
	qsort(out, n, sizeof(*out), by_addr);
	return n;
}

struct chunk {
	size_t first, last; /* positions in the inside() list */
	uint64_t span;
};

/* Object-order shuffling: runs of symbols (cut between addresses, about
 * 16 addresses a run) keep their spacing and move as a whole, packed
 * from where the region's first one was. With tails, one run in eight
 * ends at its last symbol, so the next run starts on it: new ties. */
static void shuffle(const struct map *m, uint64_t *addr, int tails)
{
	size_t *in = malloc(m->n * sizeof(*in)), n, i, j, nc;
	struct chunk *c = malloc(m->n * sizeof(*c)), t;
	uint64_t cur, next, d;
	size_t r;

	for (r = 0; r < nregions; r++) {
		n = inside(m, addr, &regions[r], in);
		for (i = 0, nc = 0; i < n; nc++) {
			c[nc].first = i;
			for (j = i + 1; j < n; j++)
				if (addr[in[j]] != addr[in[j - 1]] &&
				    tap_below(16) == 0)
					break;
			c[nc].last = j - 1;
			next = j < n ? addr[in[j]] : regions[r].end;
			c[nc].span = next - addr[in[i]];
			if (tails && tap_below(8) == 0)
				c[nc].span = addr[in[j - 1]] - addr[in[i]];
			i = j;
		}
		for (i = nc; i > 1; i--) {
			j = tap_below((uint32_t)i);
			t = c[i - 1];
			c[i - 1] = c[j];
			c[j] = t;
		}
		cur = n ? addr[in[0]] : 0;
		for (i = 0; i < nc; i++) {
			d = cur - addr[in[c[i].first]];
			for (j = c[i].first; j <= c[i].last; j++)
				addr[in[j]] += d;
			cur += c[i].span;
		}
	}
	free(in);
	free(c);
}

/* Many symbols on few addresses: every three addresses inside a region
 * become one, so all of kallsyms' tie rules decide. */
static void collapse(const struct map *m, uint64_t *addr)
{
	size_t *in = malloc(m->n * sizeof(*in)), n, i, rank;
	uint64_t base, was, prev = 0;
	size_t r;

	for (r = 0; r < nregions; r++) {
		n = inside(m, addr, &regions[r], in);
		base = n ? addr[in[0]] : 0;
		for (i = 0, rank = 0; i < n; i++) {
			was = addr[in[i]];
			if (i && was != prev)
				rank++;
			prev = was;
			addr[in[i]] = base + 8 * (rank / 3);
		}
	}
	free(in);
}

/* KASLR-like: everything in the kernel's half moves by d. */
static void slide(const struct map *m, uint64_t *addr, uint64_t d)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (addr[i] >= 0xffffffff80000000ull)
			addr[i] += d;
}

/* ---- the checks ---- */

struct ctx {
	struct map m;
	struct kb_ksyms k;
	struct lk_ksym_blob b;
	uint64_t *orig;
	size_t text; /* line of _text */
};

static void check_layout(struct ctx *c, const char *name, uint64_t *addr)
{
	char file[64], tname[96];
	uint8_t *want = NULL, *got = NULL;
	size_t wl = 0, gl = 0, at;
	struct kb_ksyms k2;
	const char *err;
	uint32_t bad;
	int rc;

	snprintf(file, sizeof(file), "%s.map", name);
	if (write_map(file, &c->m, addr)) {
		tap_check(0, name, "cannot write %s", file);
		return;
	}
	rc = oracle(file, addr[c->text], &want, &wl);
	err = emit(&c->k, &c->b, addr, &got, &gl, &bad, NULL);
	at = rc || err ? 0 : first_diff(want, wl, got, gl);
	snprintf(tname, sizeof(tname), "%s_equals_scripts_kallsyms", name);
	tap_check(!rc && !err && at == (size_t)-1, tname,
		  "kallsyms rc %d, ours %s (symbol %u), first difference at "
		  "%#zx of %zu/%zu",
		  rc, err ? err : "ok", bad, at, wl, gl);
	/* The key idea itself: the new list gives the same blob. */
	snprintf(tname, sizeof(tname), "%s_same_blob", name);
	rc = prep(file, &k2, NULL);
	tap_check(!rc && k2.blob_len == c->k.blob_len &&
			  !memcmp(k2.blob, c->k.blob, k2.blob_len),
		  tname, "prep %s, %zu vs %zu bytes", rc ? k2.err : "ok",
		  k2.blob_len, c->k.blob_len);
	kb_ksyms_free(&k2);
	free(want);
	free(got);
}

/* Which blob symbol came from line l. */
static uint32_t blob_index(const struct ctx *c, size_t l)
{
	uint32_t i;

	for (i = 0; i < c->k.n; i++)
		if (c->k.syms[i].line == l)
			return i;
	return LK_KSYM_NONE;
}

/* The lowest address of a kept non-percpu symbol: the relative base. */
static uint64_t lowest(const struct ctx *c, const uint64_t *addr)
{
	uint64_t lo = ~0ull, a;
	uint32_t i;

	for (i = 0; i < c->k.n; i++) {
		a = addr[c->k.syms[i].line];
		if (!(c->k.blob[LK_KSYM_HDR + i] & LK_KSYM_F_PERCPU) && a < lo)
			lo = a;
	}
	return lo;
}

static void expect_refusal(struct ctx *c, const char *name, uint64_t *addr,
			   const char *want, size_t culprit, int oracle_fails)
{
	uint8_t *got = NULL, *bin = NULL;
	size_t gl, bl;
	uint32_t bad = 0;
	const char *err = emit(&c->k, &c->b, addr, &got, &gl, &bad, NULL);
	char file[64];
	int rc = 0;

	int culprit_ok;

	if (culprit != (size_t)-1)
		culprit_ok = bad == blob_index(c, culprit);
	else /* any symbol more than 2 GiB above the lowest one */
		culprit_ok = bad < c->k.n &&
			     addr[c->k.syms[bad].line] - lowest(c, addr) >
				     0x7fffffffull;
	tap_check(err && !strcmp(err, want) && culprit_ok, name,
		  "got \"%s\" for symbol %u (%s), want \"%s\" for %u (%s)",
		  err ? err : "no error", bad,
		  bad < c->k.n ? c->k.syms[bad].name : "-", want,
		  culprit != (size_t)-1 ? blob_index(c, culprit) : 0,
		  culprit != (size_t)-1 ? c->m.l[culprit].name : "any");
	if (oracle_fails) {
		snprintf(file, sizeof(file), "%s.map", name);
		write_map(file, &c->m, addr);
		rc = oracle(file, addr[c->text], &bin, &bl);
		snprintf(file, sizeof(file), "%s_by_kallsyms", name);
		tap_check(rc > 0, file, "scripts/kallsyms did not refuse it");
	}
	free(got);
	free(bin);
}

static void check_refusals(struct ctx *c)
{
	uint64_t *a = malloc(c->m.n * sizeof(*a));
	size_t i, pick = (size_t)-1, start, end, last = 0;
	struct kb_ksyms k2;
	char file[64];

	start = find_line(&c->m, "__per_cpu_start");
	end = find_line(&c->m, "__per_cpu_end");
	/* A percpu symbol lands outside the range: its letter would change
	 * ('A' no more), and so would the token table. */
	for (i = 0; i < c->m.n; i++)
		if (c->orig[i] > c->orig[start] && c->orig[i] < c->orig[end] &&
		    blob_index(c, i) != LK_KSYM_NONE) {
			pick = i;
			break;
		}
	memcpy(a, c->orig, c->m.n * sizeof(*a));
	a[pick] = c->orig[c->text] + 0x40;
	expect_refusal(c, "refuse_percpu_escape", a,
		       "kallsyms: a symbol crossed the percpu range's border "
		       "(its type letter would change)",
		       pick, 0);
	snprintf(file, sizeof(file), "escape.map");
	write_map(file, &c->m, a);
	tap_check(prep(file, &k2, NULL) == 0 &&
			  (k2.blob_len != c->k.blob_len ||
			   memcmp(k2.blob, c->k.blob, k2.blob_len)),
		  "percpu_escape_changes_blob",
		  "the blob did not change: the refusal would be needless");
	kb_ksyms_free(&k2);

	/* The highest symbol 4 GiB up: it wraps past 2^64 and becomes the
	 * relative base, 4 GiB below the rest; no 32-bit offset holds them. */
	for (i = 0; i < c->m.n; i++)
		if (c->orig[i] > c->orig[last] &&
		    blob_index(c, i) != LK_KSYM_NONE)
			last = i;
	memcpy(a, c->orig, c->m.n * sizeof(*a));
	a[last] += 0x100000000ull;
	expect_refusal(c, "refuse_offset_overflow", a,
		       "kallsyms: symbol more than 2 GiB above the relative "
		       "base",
		       (size_t)-1, 1);

	/* The percpu range grown past INT_MAX with a symbol at its end. */
	memcpy(a, c->orig, c->m.n * sizeof(*a));
	a[end] = 0x80000000ull;
	expect_refusal(c, "refuse_percpu_above_int_max", a,
		       "kallsyms: percpu symbol value above INT_MAX", end, 1);
	free(a);
}

/* ---- hand-broken blobs ---- */

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

enum { KEEP, BYTE, WORD };

/* The blob, maybe cut to len, with one byte or word at `at` set to val:
 * open (and check) must give exactly want. */
static void broken_open(const struct ctx *c, const char *name, size_t len,
			int how, size_t at, uint32_t val, const char *want)
{
	uint8_t *p = malloc(c->k.blob_len);
	struct lk_ksym_blob b;
	const char *err;

	memcpy(p, c->k.blob, c->k.blob_len);
	if (how == WORD)
		put32(p + at, val);
	else if (how == BYTE)
		p[at] = (uint8_t)val;
	err = lk_ksym_open(&b, p, len);
	if (!err)
		err = lk_ksym_check(&b);
	tap_check(err && !strcmp(err, want), name, "got \"%s\", want \"%s\"",
		  err ? err : "no error", want);
	free(p);
}

static void check_broken(const struct ctx *c)
{
	size_t len = c->k.blob_len, names = LK_KSYM_HDR + c->k.n;
	uint8_t *p = malloc(len);
	struct lk_ksym_blob b;
	struct lk_ksym_out o;
	lk_u64 *a = calloc(c->k.n, sizeof(*a));
	void *work = malloc(lk_ksym_work_size(&c->b) + 4);
	uint8_t *buf = malloc(4 * (size_t)c->k.n + c->b.names_len + 1024);
	const char *err;
	uint32_t i, two = LK_KSYM_NONE;

	broken_open(c, "broken_short", 31, KEEP, 0, 0,
		    "kallsyms: blob shorter than its header");
	broken_open(c, "broken_magic", len, BYTE, 0, 'X',
		    "kallsyms: blob has a bad magic");
	broken_open(c, "broken_version", len, WORD, 4, 2,
		    "kallsyms: blob has an unknown version");
	broken_open(c, "broken_reserved", len, WORD, 28, 1,
		    "kallsyms: blob header's reserved word is not zero");
	broken_open(c, "broken_count", len, WORD, 8, 0,
		    "kallsyms: symbol count is 0 or not below 2^24");
	broken_open(c, "broken_percpu_index", len, WORD, 24, c->k.n,
		    "kallsyms: percpu range symbol index out of range");
	broken_open(c, "broken_truncated", len - 1, KEEP, 0, 0,
		    "kallsyms: blob size does not match its header");
	broken_open(c, "broken_zero_name", len, BYTE, names, 0,
		    "kallsyms: name entry malformed or past the name stream");
	broken_open(c, "broken_first_repeat", len, BYTE, LK_KSYM_HDR,
		    LK_KSYM_F_SAME_NAME,
		    "kallsyms: first symbol marked as a repeated name");
	broken_open(c, "broken_token_table", len, BYTE, len - 1, 'x',
		    "kallsyms: token table is not 256 NUL-terminated strings");
	/* One name byte moved from the names to the token table. */
	memcpy(p, c->k.blob, len);
	put32(p + 12, get32(p + 12) - 1);
	put32(p + 16, get32(p + 16) + 1);
	err = lk_ksym_open(&b, p, len);
	tap_check(err && !strcmp(err, "kallsyms: name entry malformed or past "
				      "the name stream"),
		  "broken_names_overrun", "got \"%s\"", err ? err : "no error");
	/* A two-byte length whose second byte is zero (not the shortest). */
	memcpy(p, c->k.blob, len);
	p[names] = 0x81;
	p[names + 1] = 0;
	err = lk_ksym_open(&b, p, len);
	tap_check(err && !strcmp(err, "kallsyms: name entry malformed or past "
				      "the name stream"),
		  "broken_long_length", "got \"%s\"", err ? err : "no error");
	/* The semantic check: a wrong flag, a wrong name order. */
	for (i = 1; i < c->k.n && two == LK_KSYM_NONE; i++)
		if (!(c->k.blob[LK_KSYM_HDR + i] &
		      (LK_KSYM_F_WEAK | LK_KSYM_F_SAME_NAME)))
			two = i;
	broken_open(c, "broken_weak_flag", len, BYTE, LK_KSYM_HDR + two,
		    c->k.blob[LK_KSYM_HDR + two] | LK_KSYM_F_WEAK,
		    "kallsyms: a symbol's flags do not match its name");
	broken_open(c, "broken_name_order", len, BYTE, LK_KSYM_HDR + two,
		    c->k.blob[LK_KSYM_HDR + two] | LK_KSYM_F_SAME_NAME,
		    "kallsyms: symbols are not in name order");

	/* emit: the caller's side. */
	memset(&o, 0, sizeof(o));
	o.offsets.p = buf;
	o.offsets.len = 4ull * c->k.n;
	o.relative_base.p = buf;
	o.relative_base.len = 8;
	o.num_syms.p = buf;
	o.num_syms.len = 4;
	o.names.p = buf;
	o.names.len = c->b.names_len - 1;
	o.markers.p = buf;
	o.markers.len = lk_ksym_markers_size(&c->b);
	o.seqs.p = buf;
	o.seqs.len = 3ull * c->k.n;
	err = lk_ksym_emit(&c->b, a, c->k.n, &o, work, lk_ksym_work_size(&c->b),
			   NULL);
	tap_check(err && !strcmp(err, "kallsyms: kallsyms_names is not the "
				      "reserved size"),
		  "broken_out_size", "got \"%s\"", err ? err : "no error");
	err = lk_ksym_emit(&c->b, a, c->k.n - 1, &o, work,
			   lk_ksym_work_size(&c->b), NULL);
	tap_check(err && !strcmp(err, "kallsyms: address count differs from "
				      "the blob's symbols"),
		  "broken_address_count", "got \"%s\"", err ? err : "no error");
	err = lk_ksym_emit(&c->b, a, c->k.n, &o, (uint8_t *)work + 2,
			   lk_ksym_work_size(&c->b), NULL);
	tap_check(err && !strcmp(err, "kallsyms: work memory too small or "
				      "unaligned"),
		  "broken_work", "got \"%s\"", err ? err : "no error");
	err = lk_ksym_emit_section(&c->b, a, c->k.n, buf, 100, work,
				   lk_ksym_work_size(&c->b), NULL);
	tap_check(err && !strcmp(err, "kallsyms: section is not the size "
				      "scripts/kallsyms lays out"),
		  "broken_section_size", "got \"%s\"", err ? err : "no error");
	free(p);
	free(a);
	free(work);
	free(buf);
}

/* ---- the build's own layout ---- */

static void check_layout_labels(struct ctx *c)
{
	struct lk_ksym_layout l;
	char path[512], name[64];
	unsigned long long v, got[8];
	const char *labels[8] = {
		"kallsyms_offsets",	"kallsyms_relative_base",
		"kallsyms_num_syms",	"kallsyms_names",
		"kallsyms_markers",	"kallsyms_seqs_of_names",
		"kallsyms_token_table", "kallsyms_token_index",
	};
	FILE *f;
	char t;
	int i, ok = 1;

	lk_ksym_layout(&c->b, &l);
	snprintf(path, sizeof(path), "nm --defined-only '%s/k.o'", dir);
	memset(got, 0xff, sizeof(got));
	f = popen(path, "r");
	while (f && fscanf(f, "%llx %c %63s", &v, &t, name) == 3)
		for (i = 0; i < 8; i++)
			if (!strcmp(name, labels[i]))
				got[i] = v;
	if (f)
		pclose(f);
	ok = got[0] == l.offsets && got[1] == l.relative_base &&
	     got[2] == l.num_syms && got[3] == l.names && got[4] == l.markers &&
	     got[5] == l.seqs && got[6] == l.token_table &&
	     got[7] == l.token_index;
	tap_check(ok, "layout_matches_labels",
		  "names %#llx/%#llx markers %#llx/%#llx tokens %#llx/%#llx",
		  got[3], (unsigned long long)l.names, got[4],
		  (unsigned long long)l.markers, got[7],
		  (unsigned long long)l.token_index);
}

static size_t gzip_size(const char *file)
{
	char cmd[600];
	size_t n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "gzip -9 -c '%s/%s' | wc -c", dir, file);
	f = popen(cmd, "r");
	if (f) {
		if (fscanf(f, "%zu", &n) != 1)
			n = 0;
		pclose(f);
	}
	return n;
}

static void spit_blob(const struct ctx *c)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/blob", dir);
	spit(path, c->k.blob, c->k.blob_len);
}

static void check_original(struct ctx *c, const uint8_t *vm, size_t vmlen)
{
	uint8_t *want = NULL, *got = NULL;
	size_t wl = 0, gl = 0, at, i, ks;
	uint32_t bad = 0;
	double tp, te, best = 1e9;
	const char *err;
	const uint8_t *real;
	int rc;

	rc = prep("orig.map", &c->k, &tp);
	tap_check(rc == 0, "prep", "%s", c->k.err);
	if (rc)
		return;
	err = lk_ksym_open(&c->b, c->k.blob, c->k.blob_len);
	if (!err)
		err = lk_ksym_check(&c->b);
	tap_check(!err, "blob_checks", "%s", err);
	if (err)
		return;
	rc = oracle("orig.map", c->orig[c->text], &want, &wl);
	for (i = 0; i < 5; i++) {
		free(got);
		err = emit(&c->k, &c->b, c->orig, &got, &gl, &bad, &te);
		if (te < best)
			best = te;
	}
	at = rc || err ? 0 : first_diff(want, wl, got, gl);
	tap_check(
		!rc && !err && at == (size_t)-1,
		"original_equals_scripts_kallsyms",
		"kallsyms rc %d, ours %s, first difference at %#zx of %zu/%zu",
		rc, err ? err : "ok", at, wl, gl);
	check_layout_labels(c);
	/* The same bytes sit in the real vmlinux at kallsyms_offsets. */
	ks = find_line(&c->m, "kallsyms_offsets");
	real = ks == (size_t)-1 ? NULL
				: vmlinux_regions(vm, vmlen, c->orig[ks], gl);
	tap_check(real && got && !memcmp(real, got, gl),
		  "original_equals_vmlinux",
		  "kallsyms_offsets %s in vmlinux, or the bytes differ",
		  real ? "found" : "not found");
	spit_blob(c);
	printf("# kallsyms: %u symbols, prep %.3f s, emit %.2f ms, blob %zu "
	       "bytes (gzip -9 %zu), work %llu bytes, section %zu bytes\n",
	       c->k.n, tp, best * 1e3, c->k.blob_len, gzip_size("blob"),
	       (unsigned long long)lk_ksym_work_size(&c->b), gl);
	free(want);
	free(got);
}

/* The scratch directory: the lists, the oracle's files and a stand-in
 * for <asm/bitsperlong.h> (the corpus has no kernel headers). */
static int make_dir(void)
{
	const char *t = getenv("TMPDIR");
	char path[512];

	snprintf(dir, sizeof(dir), "%s/test_kallsyms.XXXXXX",
		 t && *t ? t : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/inc/asm", dir);
	if (sh("mkdir -p '%s'", path))
		return -1;
	snprintf(path, sizeof(path), "%s/inc/asm/bitsperlong.h", dir);
	return spit(path, "#define BITS_PER_LONG 64\n", 25);
}

static void run(struct ctx *c, const uint8_t *vm, size_t vmlen)
{
	uint64_t *a = malloc(c->m.n * sizeof(*a));
	size_t i;

	c->orig = malloc(c->m.n * sizeof(*c->orig));
	for (i = 0; i < c->m.n; i++)
		c->orig[i] = c->m.l[i].addr;
	c->text = find_line(&c->m, "_text");
	vmlinux_regions(vm, vmlen, 0, 0);
	check_original(c, vm, vmlen);
	if (!c->b.n) {
		free(a);
		return;
	}
	for (i = 0; i < 3; i++) {
		char name[32];

		memcpy(a, c->orig, c->m.n * sizeof(*a));
		shuffle(&c->m, a, i > 0);
		snprintf(name, sizeof(name), "shuffle%zu", i);
		check_layout(c, name, a);
	}
	memcpy(a, c->orig, c->m.n * sizeof(*a));
	shuffle(&c->m, a, 1);
	slide(&c->m, a, (uint64_t)0 - (2ull << 20) * (1 + tap_below(8)));
	check_layout(c, "shuffle_slid", a);
	/* The kernel below 2 GiB, above the percpu range: the general sort. */
	memcpy(a, c->orig, c->m.n * sizeof(*a));
	shuffle(&c->m, a, 1);
	slide(&c->m, a, 0x1000000ull - c->orig[c->text]);
	check_layout(c, "low_kernel", a);
	memcpy(a, c->orig, c->m.n * sizeof(*a));
	collapse(&c->m, a);
	check_layout(c, "ties", a);
	check_refusals(c);
	check_broken(c);
	free(a);
}

int main(void)
{
	char path[512];
	uint8_t *vm = NULL;
	size_t vmlen = 0;
	struct ctx c;

	memset(&c, 0, sizeof(c));
	tap_seed();
	snprintf(path, sizeof(path), "%s/vmlinux", LINUX_CORPUS);
	vm = slurp(path, &vmlen);
	snprintf(path, sizeof(path), "%s/scripts/kallsyms", LINUX_CORPUS);
	if (!vm || access(path, X_OK)) {
		printf("skip kallsyms_corpus: %s has no vmlinux or "
		       "scripts/kallsyms (../shared/corpora absent)\n",
		       LINUX_CORPUS);
		free(vm);
		return 0;
	}
	if (make_dir()) {
		tap_check(0, "scratch_dir", "cannot make %s", dir);
		return 1;
	}
	/* link-vmlinux.sh: mksysmap with the kernel's LC_COLLATE=C. */
	snprintf(path, sizeof(path), "%s/orig.map", dir);
	tap_check(sh("cd '%s' && LC_ALL=C NM=nm sh '%s/scripts/mksysmap' "
		     "'%s/vmlinux' orig.map",
		     dir, LINUX_CORPUS, LINUX_CORPUS) == 0 &&
			  read_map(path, &c.m) == 0 && c.m.n > 0,
		  "mksysmap", "nm + scripts/mksysmap failed on vmlinux");
	tap_check(sh("cmp -s '%s' '%s/System.map'", path, LINUX_CORPUS) == 0,
		  "mksysmap_is_system_map", "the list differs from System.map");
	if (c.m.n)
		run(&c, vm, vmlen);
	kb_ksyms_free(&c.k);
	for (size_t i = 0; i < c.m.n; i++)
		free(c.m.l[i].name);
	free(c.m.l);
	free(c.m.text);
	free(c.orig);
	free(vm);
	if (!getenv("KEEP_KALLSYMS_DIR"))
		sh("rm -rf '%s'", dir);
	return tap_failed;
}
