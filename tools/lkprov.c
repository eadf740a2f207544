/*
 * The provenance record (LK_KIT_F_PROV, kit_format.h) on the host: made
 * by `linkkit create --openbsd`, shown by `info`, and checked against a
 * link directory by `verify --against DIR` with the core's own check
 * (linkkit/kit_prov.c), the one the stages run at every boot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "kb.h"
#include "lkcli.h"

/* The files the link depends on, relative to the directory: every object
 * linked (o->objs are DIR/NAME), ld.script, the Makefile when there is
 * one. gap.o is not linked from the kit and makegap.sh remakes it at
 * every relink, so it is never listed. */
static size_t prov_names(const struct kb_options *o, const char *dir,
			 const char ***out)
{
	const char **v = kb_xcalloc(o->nobjs + 2, sizeof(*v));
	size_t n = 0;
	struct stat st;
	char *mk = kb_xcalloc(strlen(dir) + 10, 1);

	for (size_t i = 0; i < o->nobjs; i++) {
		const char *s = strrchr(o->objs[i], '/');

		v[n++] = s ? s + 1 : o->objs[i];
	}
	v[n++] = "ld.script";
	sprintf(mk, "%s/Makefile", dir);
	if (!stat(mk, &st) && S_ISREG(st.st_mode))
		v[n++] = "Makefile";
	free(mk);
	*out = v;
	return n;
}

/* The link directory's own name: what the stage looks for under
 * /usr/share/relink/kernel. */
static char *prov_kernel(const char *dir)
{
	size_t n = strlen(dir);
	const char *s;
	char *k;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	for (s = dir + n; s > dir && s[-1] != '/'; s--)
		;
	k = kb_xcalloc(dir + n - s + 1, 1);
	memcpy(k, s, (size_t)(dir + n - s));
	return k;
}

static int prov_add(struct kb_buf *ent, struct kb_buf *names, const char *dir,
		    const char *name)
{
	struct lk_kit_prov_entry e;
	char *path = kb_xcalloc(strlen(dir) + strlen(name) + 2, 1);
	uint8_t *data;
	size_t len;

	sprintf(path, "%s/%s", dir, name);
	if (lkc_read_file(path, &data, &len)) {
		free(path);
		return -1;
	}
	memset(&e, 0, sizeof(e));
	e.size = len;
	e.name = (uint32_t)kb_buf_add(names, name, strlen(name) + 1);
	lk_sha256(data, len, e.sha256);
	kb_buf_add(ent, &e, sizeof(e));
	free(data);
	free(path);
	return 0;
}

int lkc_prov_build(const struct kb_options *o, const char *dir,
		   const char *kernel, uint8_t **rec, size_t *len)
{
	struct kb_buf ent = { 0 }, names = { 0 };
	struct lk_kit_provtail t;
	const char **v;
	char *k = kernel ? kb_xstrdup(kernel) : prov_kernel(dir);
	size_t n = prov_names(o, dir, &v);
	int rc = 0;

	memset(&t, 0, sizeof(t));
	t.kernel = (uint32_t)kb_buf_add(&names, k, strlen(k) + 1);
	for (size_t i = 0; i < n && !rc; i++)
		rc = prov_add(&ent, &names, dir, v[i]);
	t.count = (uint32_t)n;
	t.names_size = (uint32_t)names.len;
	t.version = LK_PROV_VERSION;
	t.magic = LK_PROV_MAGIC;
	if (!rc && (!*k || strchr(k, '/') || n > LK_PROV_MAX_FILES ||
		    names.len > LK_PROV_MAX_NAMES)) {
		fprintf(stderr, "linkkit: %s: cannot record what the kit is made "
				"from (kernel name '%s', %zu files)\n", dir, k, n);
		rc = -1;
	}
	if (!rc) {
		kb_buf_add(&ent, names.p, names.len);
		kb_buf_add(&ent, &t, sizeof(t));
		*rec = ent.p;
		*len = ent.len;
	} else {
		free(ent.p);
	}
	free(names.p);
	free(v);
	free(k);
	return rc;
}

/* read_fn for the core's check: DIR/FILE, whole, from the host's disk. */
struct prov_dir {
	const char *dir;
	uint8_t *buf;
};

static int prov_read(void *ctx, const char *file, const void **data, lk_size *size)
{
	struct prov_dir *d = ctx;
	char *path = kb_xcalloc(strlen(d->dir) + strlen(file) + 2, 1);
	FILE *f;
	struct stat st;
	int rc = LK_OK;

	free(d->buf);
	d->buf = NULL;
	sprintf(path, "%s/%s", d->dir, file);
	f = fopen(path, "rb");
	if (!f) {
		rc = errno == ENOENT ? LK_PROV_MISSING : LK_ERR_RANGE;
	} else if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		rc = LK_ERR_RANGE;
	} else {
		d->buf = kb_xcalloc((size_t)st.st_size + 1, 1);
		if (fread(d->buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
			rc = LK_ERR_RANGE;
		*data = d->buf;
		*size = (lk_size)st.st_size;
	}
	if (f)
		fclose(f);
	free(path);
	return rc;
}

static double prov_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int lkc_prov_against(const char *path, const struct lk_kit *k, const char *dir)
{
	struct prov_dir d = { dir, NULL };
	struct lk_prov p;
	struct lk_prov_stats st;
	double t0;
	int rc;

	if (lk_kit_prov_open(&lkc_host, k, path, &p))
		return -1;
	if (!p.kernel) {
		fprintf(stderr, "linkkit: %s: no record of what it was made from "
				"(made without --openbsd, or by an older linkkit): "
				"cannot tell whether it is stale\n", path);
		return -1;
	}
	t0 = prov_now();
	rc = lk_kit_prov_check(&lkc_host, &p, path, prov_read, &d, &st);
	free(d.buf);
	if (rc)
		return -1;
	printf("%s: fresh: made from %s, %u files as in %s (%llu bytes hashed in "
	       "%.1f ms)\n", path, p.kernel, st.files, dir,
	       (unsigned long long)st.bytes, (prov_now() - t0) * 1e3);
	return 0;
}

/* `info`'s line: what the kit was made from, or that it does not say. */
void lkc_prov_info(const char *path, const struct lk_kit *k)
{
	struct lk_prov p;
	struct lk_prov_file f;
	uint64_t bytes = 0;

	if (lk_kit_prov_open(&lkc_host, k, path, &p) || !p.kernel) {
		printf("made from: unknown (no provenance record)\n");
		return;
	}
	for (uint32_t i = 0; i < p.count; i++) {
		lk_prov_file(&p, i, &f);
		bytes += f.size;
	}
	printf("made from: %s (%u files, %llu bytes, record %llu bytes)\n", p.kernel,
	       p.count, (unsigned long long)bytes, (unsigned long long)k->prov_size);
}
