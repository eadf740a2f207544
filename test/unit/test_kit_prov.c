/*
 * The record of what a kit was made from (LK_KIT_F_PROV, kit_format.h)
 * and the stale check (linkkit/kit_prov.c): kits are made here as
 * tools/kitwrite.c makes them (stream, optional segment index, record
 * last, all hashed). A kit without the record opens and says so; a
 * malformed record is refused with one line; the check against an
 * in-memory "link directory" passes when every file matches and names
 * the first file that is missing, has another size or other bytes of the
 * same size (an object added to the Makefile's list changes the
 * Makefile); streaming the bytes gives the same verdict.
 */
#include <string.h>
#include <zlib.h>

#include "linkkit.h"
#include "kit_format.h"
#include "tap.h"

static int nlines;
static char last[512];

static void logline(void *ctx, int level, const char *line)
{
	(void)ctx;
	(void)level;
	nlines++;
	snprintf(last, sizeof(last), "%s", line);
}

static void *h_alloc(void *ctx, lk_size n)
{
	(void)ctx;
	return calloc(1, n ? n : 1);
}

static void h_free(void *ctx, void *p, lk_size n)
{
	(void)ctx;
	(void)n;
	free(p);
}

static const struct lk_host host = { NULL,    h_alloc, h_free,
				     logline, NULL,    LK_LOG_ERROR };

static void reset_log(void)
{
	nlines = 0;
	last[0] = 0;
}

/* ---- an in-memory link directory ---- */
#define NFILES 4
struct file {
	const char *name;
	char *data;
	size_t size;
	int gone;    /* read says LK_PROV_MISSING */
	int broken;  /* read fails */
};
static struct file dir[NFILES];

static void dir_init(void)
{
	static const char *names[NFILES] = { "locore0.o", "vers.o", "ld.script",
					     "Makefile" };
	static const char *mk = "OBJS=\tvers.o\n";

	for (int i = 0; i < NFILES; i++) {
		free(dir[i].data);
		memset(&dir[i], 0, sizeof(dir[i]));
		dir[i].name = names[i];
		dir[i].size = i == 3 ? strlen(mk) : 1000 + 333 * (size_t)i;
		dir[i].data = calloc(1, dir[i].size + 64);
		for (size_t j = 0; j < dir[i].size; j++)
			dir[i].data[j] = i == 3 ? mk[j] : (char)tap_rand();
	}
}

static int dir_read(void *ctx, const char *file, const void **data, lk_size *size)
{
	int *reads = ctx;

	(*reads)++;
	for (int i = 0; i < NFILES; i++)
		if (!strcmp(dir[i].name, file)) {
			if (dir[i].gone)
				return LK_PROV_MISSING;
			if (dir[i].broken)
				return LK_ERR_RANGE;
			*data = dir[i].data;
			*size = dir[i].size;
			return LK_OK;
		}
	return LK_PROV_MISSING;
}

/* The record for the directory as it is now. */
static unsigned char *make_rec(const char *kernel, size_t *len)
{
	size_t names = strlen(kernel) + 1, off;
	unsigned char *r;
	struct lk_kit_provtail t = { NFILES, 0, 0, LK_PROV_VERSION, 0,
				     LK_PROV_MAGIC };

	for (int i = 0; i < NFILES; i++)
		names += strlen(dir[i].name) + 1;
	*len = NFILES * 48 + names + sizeof(t);
	r = calloc(1, *len);
	off = NFILES * 48;
	memcpy(r + off, kernel, strlen(kernel) + 1);
	t.names_size = (lk_u32)names;
	t.kernel = 0;
	names = strlen(kernel) + 1;
	for (int i = 0; i < NFILES; i++) {
		struct lk_kit_prov_entry e = { 0 };

		e.size = dir[i].size;
		e.name = (lk_u32)names;
		lk_sha256(dir[i].data, dir[i].size, e.sha256);
		memcpy(r + 48 * i, &e, 48);
		memcpy(r + off + names, dir[i].name, strlen(dir[i].name) + 1);
		names += strlen(dir[i].name) + 1;
	}
	memcpy(r + *len - sizeof(t), &t, sizeof(t));
	return r;
}

/* Not linked here, only inflated: at least a payload header's size. */
static char payload[400];

/* A kit of `payload`, in two segments when seg, with rec (if any) last. */
static unsigned char *make_kit(const unsigned char *rec, size_t rlen, int seg,
			       size_t *kn)
{
	size_t n = sizeof(payload), cap = 1024 + rlen, cut = 200;
	unsigned char *k = calloc(1, cap);
	struct lk_kit_header h;
	z_stream z;
	size_t zl, at;

	memset(&z, 0, sizeof(z));
	deflateInit(&z, 6);
	z.next_out = k + 64;
	z.avail_out = (uInt)(cap - 64);
	z.next_in = (Bytef *)payload;
	z.avail_in = (uInt)(seg ? cut : n);
	if (seg) {
		struct lk_kit_segment s;
		struct lk_kit_segtail t = { 1, 0 };

		deflate(&z, Z_FULL_FLUSH);
		s.zoff = z.total_out;
		s.off = cut;
		z.next_in = (Bytef *)payload + cut;
		z.avail_in = (uInt)(n - cut);
		deflate(&z, Z_FINISH);
		zl = z.total_out;
		memcpy(k + 64 + zl, &s, 16);
		memcpy(k + 64 + zl + 16, &t, 8);
		at = zl + 24;
	} else {
		deflate(&z, Z_FINISH);
		at = zl = z.total_out;
	}
	deflateEnd(&z);
	if (rec)
		memcpy(k + 64 + at, rec, rlen);
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, LK_KIT_MAGIC, 8);
	h.version = LK_KIT_VERSION;
	h.header_size = 64;
	h.flags = (seg ? LK_KIT_F_SEGMENTS : 0) | (rec ? LK_KIT_F_PROV : 0);
	h.payload_zsize = at + (rec ? rlen : 0);
	h.payload_size = n;
	lk_sha256(k + 64, h.payload_zsize, h.payload_hash);
	memcpy(k, &h, 64);
	*kn = 64 + h.payload_zsize;
	return k;
}

/* Opens the kit and its record; the status of whichever failed. */
static int open_prov(const unsigned char *k, size_t kn, struct lk_kit *kit,
		     struct lk_prov *p)
{
	int rc;

	memset(p, 0, sizeof(*p));
	reset_log();
	rc = lk_kit_open(&host, k, kn, "t.kit", kit);
	return rc ? rc : lk_kit_prov_open(&host, kit, "t.kit", p);
}

static void test_absent(void)
{
	size_t kn;
	unsigned char *k = make_kit(NULL, 0, 0, &kn);
	struct lk_kit kit;
	struct lk_prov p;
	char out[sizeof(payload)];
	int rc = open_prov(k, kn, &kit, &p);

	tap_check(rc == LK_OK && p.kernel == NULL && p.count == 0 && nlines == 0,
		  "prov-absent", "rc %d, kernel %s, %d lines", rc,
		  p.kernel ? p.kernel : "(none)", nlines);
	rc = lk_kit_inflate(&host, &kit, "t.kit", out, sizeof(out));
	tap_check(rc == LK_OK && !memcmp(out, payload, sizeof(out)),
		  "prov-absent-inflates", "rc %d", rc);
	free(k);
}

static void test_open(int seg)
{
	size_t rl, kn;
	unsigned char *rec = make_rec("GENERIC.MP", &rl);
	unsigned char *k = make_kit(rec, rl, seg, &kn);
	struct lk_kit kit;
	struct lk_prov p;
	struct lk_prov_file f;
	char out[sizeof(payload)];
	int rc = open_prov(k, kn, &kit, &p), ok;

	ok = rc == LK_OK && p.kernel && !strcmp(p.kernel, "GENERIC.MP") &&
	     p.count == NFILES && kit.prov_size == rl;
	for (lk_u32 i = 0; ok && i < p.count; i++) {
		lk_prov_file(&p, i, &f);
		ok = !strcmp(f.name, dir[i].name) && f.size == dir[i].size;
	}
	tap_check(ok, seg ? "prov-open-segments" : "prov-open",
		  "rc %d, kernel %s, count %u: %s", rc,
		  p.kernel ? p.kernel : "(none)", p.count, last);
	if (seg) {
		rc = kit.nseg != 2 ||
		     lk_kit_inflate_segment(&kit, 0, out, sizeof(out)) ||
		     lk_kit_inflate_segment(&kit, 1, out, sizeof(out)) ||
		     lk_kit_check_sum(&host, &kit, "t.kit", out);
	} else {
		rc = lk_kit_inflate(&host, &kit, "t.kit", out, sizeof(out));
	}
	tap_check(rc == LK_OK && !memcmp(out, payload, sizeof(out)),
		  seg ? "prov-inflate-segments" : "prov-inflate",
		  "the stream does not inflate past the record (%d)", rc);
	free(rec);
	free(k);
}

/* The check against `dir` as it is now, with the kit made earlier. */
static int check(const struct lk_prov *p, struct lk_prov_stats *st, int *reads)
{
	reset_log();
	*reads = 0;
	return lk_kit_prov_check(&host, p, "t.kit", dir_read, reads, st);
}

static void test_check(void)
{
	size_t rl, kn, total = 0;
	unsigned char *rec, *k;
	struct lk_kit kit;
	struct lk_prov p;
	struct lk_prov_stats st;
	char *old;
	int rc, reads;

	dir_init();
	rec = make_rec("GENERIC.MP", &rl);
	k = make_kit(rec, rl, 0, &kn);
	open_prov(k, kn, &kit, &p);
	for (int i = 0; i < NFILES; i++)
		total += dir[i].size;
	rc = check(&p, &st, &reads);
	tap_check(rc == LK_OK && nlines == 0 && st.bytes == total &&
			  st.files == NFILES && reads == NFILES,
		  "prov-check-fresh", "rc %d, %llu bytes, %u files: %s", rc,
		  (unsigned long long)st.bytes, st.files, last);

	dir[1].gone = 1;
	rc = check(&p, &st, &reads);
	tap_check(rc == LK_ERR_HASH && nlines == 1 &&
			  !strcmp(last, "t.kit: stale: made from GENERIC.MP whose "
					"vers.o is gone (not found)") &&
			  reads == 2,
		  "prov-check-missing", "rc %d, %d lines, %d reads: %s", rc,
		  nlines, reads, last);
	dir[1].gone = 0;

	dir[1].data[dir[1].size / 2] ^= 1;
	rc = check(&p, &st, &reads);
	tap_check(rc == LK_ERR_HASH && nlines == 1 &&
			  !strcmp(last, "t.kit: stale: made from GENERIC.MP whose "
					"vers.o has changed since (sha256 "
					"differs, same size)"),
		  "prov-check-same-size", "rc %d, %d lines: %s", rc, nlines,
		  last);
	dir[1].data[dir[1].size / 2] ^= 1;

	dir[0].size--;
	rc = check(&p, &st, &reads);
	tap_check(rc == LK_ERR_HASH && nlines == 1 && strstr(last, "locore0.o") &&
			  strstr(last, "(size 999, was 1000)") && reads == 1,
		  "prov-check-size", "rc %d, %d lines: %s", rc, nlines, last);
	dir[0].size++;

	/* A syspatch that adds an object edits the Makefile's OBJS. */
	old = dir[3].data;
	dir[3].data = strdup("OBJS=\tvers.o new.o\n");
	dir[3].size = strlen(dir[3].data);
	rc = check(&p, &st, &reads);
	tap_check(rc == LK_ERR_HASH && nlines == 1 && strstr(last, "whose Makefile "
								   "has changed"),
		  "prov-check-makefile-list", "rc %d, %d lines: %s", rc, nlines,
		  last);
	free(dir[3].data);
	dir[3].data = old;
	dir[3].size = strlen(old);

	dir[2].broken = 1;
	rc = check(&p, &st, &reads);
	tap_check(rc == LK_ERR_RANGE && nlines == 1 && strstr(last, "unreadable") &&
			  strstr(last, "/usr/share/relink/kernel/GENERIC.MP/"
				       "ld.script"),
		  "prov-check-unreadable", "rc %d, %d lines: %s", rc, nlines, last);
	dir[2].broken = 0;

	rc = check(&p, &st, &reads);
	tap_check(rc == LK_OK && nlines == 0, "prov-check-fresh-again",
		  "rc %d: %s", rc, last);
	free(rec);
	free(k);
}

/* Bytes in pieces of random sizes give the same verdict as whole files. */
static void test_stream(void)
{
	size_t rl, kn;
	unsigned char *rec = make_rec("GENERIC", &rl);
	unsigned char *k = make_kit(rec, rl, 0, &kn);
	struct lk_kit kit;
	struct lk_prov p;
	struct lk_prov_hash c;
	char want[96];
	int bad = 0, rc;

	open_prov(k, kn, &kit, &p);
	for (lk_u32 i = 0; i < p.count; i++) {
		size_t at = 0;

		lk_prov_hash_begin(&c);
		while (at < dir[i].size) {
			size_t n = 1 + tap_below(300);

			if (n > dir[i].size - at)
				n = dir[i].size - at;
			lk_prov_hash_update(&c, dir[i].data + at, n);
			at += n;
		}
		bad |= lk_prov_hash_end(&host, &p, "t.kit", i, &c) != LK_OK;
	}
	tap_check(!bad && nlines == 0, "prov-stream-fresh", "%s", last);
	lk_prov_hash_begin(&c);
	lk_prov_hash_update(&c, dir[1].data, dir[1].size - 1);
	lk_prov_hash_update(&c, "x", 1);
	rc = lk_prov_hash_end(&host, &p, "t.kit", 1, &c);
	tap_check(rc == LK_ERR_HASH && nlines == 1 && strstr(last, "sha256 differs"),
		  "prov-stream-stale", "rc %d: %s", rc, last);
	/* The stage checks an inode's size before it reads a byte. */
	nlines = 0;
	rc = lk_prov_size_check(&host, &p, "t.kit", 1, dir[1].size);
	tap_check(rc == LK_OK && nlines == 0, "prov-size-same", "rc %d: %s", rc, last);
	rc = lk_prov_size_check(&host, &p, "t.kit", 1, 1ull << 47);
	snprintf(want, sizeof(want), "(size %llu, was %llu)", 1ull << 47,
		 (unsigned long long)dir[1].size);
	tap_check(rc == LK_ERR_HASH && nlines == 1 && strstr(last, want) &&
			  strstr(last, "t.kit: stale: made from GENERIC whose "),
		  "prov-size-differs", "rc %d: %s", rc, last);
	free(rec);
	free(k);
}

/* The record rewritten by `edit`, the kit rehashed: one line, refused. */
static void malformed(const char *name, void (*edit)(unsigned char *, size_t *))
{
	size_t rl, kn;
	unsigned char *rec = make_rec("GENERIC.MP", &rl), *big, *k;
	struct lk_kit kit;
	struct lk_prov p;
	int rc;

	big = calloc(1, rl + 64);
	memcpy(big, rec, rl);
	edit(big, &rl);
	k = make_kit(big, rl, 0, &kn);
	rc = open_prov(k, kn, &kit, &p);
	tap_check(rc == LK_ERR_FORMAT && nlines == 1 && strstr(last, "t.kit: ") &&
			  strstr(last, "provenance record"),
		  name, "rc %d, %d lines: %s", rc, nlines, last);
	free(rec);
	free(big);
	free(k);
}

#define TAIL(r, n) ((r) + *(n) - sizeof(struct lk_kit_provtail))
static void ed_magic(unsigned char *r, size_t *n) { TAIL(r, n)[16] ^= 1; }
static void ed_version(unsigned char *r, size_t *n) { TAIL(r, n)[12] = 2; }
static void ed_reserved(unsigned char *r, size_t *n) { TAIL(r, n)[14] = 1; }
static void ed_count(unsigned char *r, size_t *n) { TAIL(r, n)[0] = 200; }
static void ed_count_huge(unsigned char *r, size_t *n) { TAIL(r, n)[3] = 0x7f; }
static void ed_names_size(unsigned char *r, size_t *n) { TAIL(r, n)[4] -= 1; }
static void ed_names_zero(unsigned char *r, size_t *n)
{
	memset(TAIL(r, n) + 4, 0, 4);
}
static void ed_kernel_off(unsigned char *r, size_t *n) { TAIL(r, n)[8] = 250; }
static void ed_kernel_slash(unsigned char *r, size_t *n)
{
	(void)n;
	r[NFILES * 48 + 3] = '/';
}
static void ed_entry_off(unsigned char *r, size_t *n)
{
	(void)n;
	r[48 * 2 + 8] = 0xff;
	r[48 * 2 + 9] = 0xff;
}
static void ed_entry_reserved(unsigned char *r, size_t *n)
{
	(void)n;
	r[48 + 12] = 1;
}
static void ed_entry_empty(unsigned char *r, size_t *n)
{
	/* Entry 0's name is the kernel's terminator: "". */
	(void)n;
	r[8] = (unsigned char)strlen("GENERIC.MP");
}
static void ed_entry_dotdot(unsigned char *r, size_t *n)
{
	size_t at = NFILES * 48 + strlen("GENERIC.MP") + 1; /* "locore0.o" */

	(void)n;
	memcpy(r + at, "..\0", 3);
}
static void ed_entry_ctrl(unsigned char *r, size_t *n)
{
	size_t at = NFILES * 48 + strlen("GENERIC.MP") + 1;

	(void)n;
	r[at + 1] = '\n';
}
static void ed_unterminated(unsigned char *r, size_t *n)
{
	TAIL(r, n)[-1] = 'x';
}
static void ed_whole_kit(unsigned char *r, size_t *n)
{
	/* Claims 63 more entries than the kit has bytes for. */
	TAIL(r, n)[0] = NFILES + 63;
}

static void test_malformed(void)
{
	malformed("prov-bad-magic", ed_magic);
	malformed("prov-bad-version", ed_version);
	malformed("prov-bad-reserved", ed_reserved);
	malformed("prov-bad-count", ed_count);
	malformed("prov-bad-count-huge", ed_count_huge);
	malformed("prov-bad-names-size", ed_names_size);
	malformed("prov-bad-names-zero", ed_names_zero);
	malformed("prov-bad-kernel-offset", ed_kernel_off);
	malformed("prov-bad-kernel-slash", ed_kernel_slash);
	malformed("prov-bad-entry-offset", ed_entry_off);
	malformed("prov-bad-entry-reserved", ed_entry_reserved);
	malformed("prov-bad-entry-empty", ed_entry_empty);
	malformed("prov-bad-entry-dotdot", ed_entry_dotdot);
	malformed("prov-bad-entry-control", ed_entry_ctrl);
	malformed("prov-bad-unterminated", ed_unterminated);
	malformed("prov-bad-too-long", ed_whole_kit);
}

/* Random bytes over the record (kit rehashed): refused with one line or
 * accepted with every name inside the names, never read out of bounds
 * (ASan). */
static void test_random(void)
{
	size_t rl, kn;
	unsigned char *rec = make_rec("GENERIC.MP", &rl), *k;
	struct lk_kit kit;
	struct lk_prov p;
	struct lk_prov_file f;
	int bad = 0, refused = 0;

	for (int t = 0; t < 2000; t++) {
		unsigned char *r = malloc(rl);
		int rc;

		memcpy(r, rec, rl);
		for (int j = 1 + tap_below(3); j-- > 0;)
			r[tap_below((uint32_t)rl)] = (unsigned char)tap_rand();
		k = make_kit(r, rl, t & 1, &kn);
		rc = open_prov(k, kn, &kit, &p);
		if (rc) {
			refused++;
			bad |= nlines != 1;
		} else {
			for (lk_u32 i = 0; i < p.count; i++) {
				lk_prov_file(&p, i, &f);
				bad |= f.name < p.names ||
				       f.name + strlen(f.name) >= p.names + p.names_size;
			}
		}
		free(r);
		free(k);
	}
	tap_check(!bad && refused > 0, "prov-random", "%d refused of 2000", refused);
	free(rec);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	tap_seed();
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = "relink kernel "[i % 14];
	dir_init();
	test_absent();
	test_open(0);
	test_open(1);
	test_check();
	test_stream();
	test_malformed();
	test_random();
	for (int i = 0; i < NFILES; i++)
		free(dir[i].data);
	return tap_failed;
}
