/*
 * The stale check's cost (lk_kit_prov_check, linkkit/kit_prov.c) on the
 * real OpenBSD GENERIC link directory (unpacked by test/corpora/rules.mk
 * beside this binary's build dir): every object, ld.script and the
 * Makefile, held in memory as a stage holds them once read, hashed with
 * SHA-NI when this CPU has it and with the portable code (the BIOS stage,
 * the fs64 objects, QEMU's TCG). Best of RUNS in thread CPU time. What a
 * stage adds is reading the 40 MB from its disk.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cpu.h"
#include "linkkit.h"
#include "sha256_impl.h"
#include "tap.h"

#define RUNS 5
#define MAXF 4096

struct file {
	char name[256];
	unsigned char *data;
	size_t size;
};
static struct file files[MAXF];
static unsigned nfiles;

static void quiet(void *ctx, int level, const char *line)
{
	(void)ctx;
	(void)level;
	fprintf(stderr, "%s\n", line);
}

static const struct lk_host host = { NULL, NULL, NULL, quiet, NULL, LK_LOG_ERROR };

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int load(const char *dir, const char *name)
{
	char path[4400];
	FILE *f;
	struct file *e = &files[nfiles];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f || nfiles == MAXF)
		return -1;
	fseek(f, 0, SEEK_END);
	e->size = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	e->data = malloc(e->size + 1);
	if (fread(e->data, 1, e->size, f) != e->size) {
		fclose(f);
		return -1;
	}
	fclose(f);
	snprintf(e->name, sizeof(e->name), "%s", name);
	nfiles++;
	return 0;
}

/* What `linkkit create --openbsd` records: the linked objects (gap.o
 * and gapdummy.o are not), ld.script, the Makefile. */
static int load_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) && !rc) {
		size_t n = strlen(e->d_name);

		if (n > 2 && !strcmp(e->d_name + n - 2, ".o") &&
		    strcmp(e->d_name, "gap.o") && strcmp(e->d_name, "gapdummy.o"))
			rc = load(dir, e->d_name);
	}
	closedir(d);
	return rc || load(dir, "ld.script") || load(dir, "Makefile") ? -1 : 0;
}

static unsigned char *make_rec(size_t *len)
{
	size_t names = 8, at;
	unsigned char *r;
	struct lk_kit_provtail t = { 0, 0, 0, LK_PROV_VERSION, 0, LK_PROV_MAGIC };

	for (unsigned i = 0; i < nfiles; i++)
		names += strlen(files[i].name) + 1;
	*len = nfiles * 48 + names + sizeof(t);
	r = calloc(1, *len);
	memcpy(r + nfiles * 48, "GENERIC", 8);
	at = 8;
	for (unsigned i = 0; i < nfiles; i++) {
		struct lk_kit_prov_entry e = { 0 };

		e.size = files[i].size;
		e.name = (lk_u32)at;
		lk_sha256(files[i].data, files[i].size, e.sha256);
		memcpy(r + 48 * i, &e, 48);
		memcpy(r + nfiles * 48 + at, files[i].name, strlen(files[i].name) + 1);
		at += strlen(files[i].name) + 1;
	}
	t.count = nfiles;
	t.names_size = (lk_u32)names;
	memcpy(r + *len - sizeof(t), &t, sizeof(t));
	return r;
}

static int mem_read(void *ctx, const char *file, const void **data, lk_size *size)
{
	unsigned *next = ctx;

	/* In record order, as the stage's reader would be asked. */
	if (*next >= nfiles || strcmp(files[*next].name, file))
		return LK_PROV_MISSING;
	*data = files[*next].data;
	*size = files[(*next)++].size;
	return LK_OK;
}

static double best(const struct lk_prov *p, struct lk_prov_stats *st)
{
	double b = 1e30;

	for (int r = 0; r < RUNS; r++) {
		unsigned next = 0;
		double t0 = cpu_ms(), t;

		if (lk_kit_prov_check(&host, p, "GENERIC.kit", mem_read, &next, st))
			return -1;
		t = cpu_ms() - t0;
		b = t < b ? t : b;
	}
	return b;
}

int main(int argc, char **argv)
{
	char dir[4096];
	const char *s = argc > 0 ? strrchr(argv[0], '/') : NULL;
	struct lk_kit kit = { 0 };
	struct lk_prov p;
	struct lk_prov_stats st;
	size_t len;
	double ms = 0;

	/* BUILD/test/unit/bench_prov -> BUILD/corpora/... */
	snprintf(dir, sizeof(dir), "%.*s/../../corpora/openbsd-7.3-amd64-GENERIC",
		 s ? (int)(s - argv[0]) : 1, s ? argv[0] : ".");
	if (argc > 1)
		snprintf(dir, sizeof(dir), "%s", argv[1]);
	if (load_dir(dir)) {
		printf("skip bench-prov: no OpenBSD corpus at %s\n", dir);
		return 0;
	}
	kit.flags = LK_KIT_F_PROV;
	kit.prov = make_rec(&len);
	kit.prov_size = len;
	if (lk_kit_prov_open(&host, &kit, "GENERIC.kit", &p))
		return 1;
	for (int mode = LK_SHA256_NI; mode >= LK_SHA256_PORTABLE; mode--) {
		if (mode == LK_SHA256_NI && !(lk_cpu_probe() & LK_CPU_SHA))
			continue; /* no SHA-NI here */
		lk_sha256_select(mode);
		ms = best(&p, &st);
		printf("prov-check %s: %u files, %llu bytes hashed, %.1f ms "
		       "(%.0f MB/s), record %zu bytes\n",
		       mode == LK_SHA256_NI ? "sha-ni" : "portable", st.files,
		       (unsigned long long)st.bytes, ms, st.bytes / ms / 1e3, len);
	}
	lk_sha256_select(LK_SHA256_AUTO);
	return ms < 0;
}
