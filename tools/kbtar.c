/*
 * `linkkit create --openbsd kernel.tgz[:NAME]`: OpenBSD ships the link
 * directories as /usr/share/relink/kernel.tgz, a gzipped ustar archive
 * holding one directory per kernel (GENERIC/, GENERIC.MP/), which
 * reorder_kernel unpacks before relinking. This reads such an archive (or
 * one made of a single link directory) and extracts the chosen directory's
 * plain files into a fresh temporary directory, so `--openbsd` then reads
 * it as it reads an unpacked directory. The archive is input from another
 * machine: names are checked (no "..", no deeper paths), sizes bounded.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "kb.h"

#define TAR_BLOCK 512
#define TAR_MAX_FILE (256u << 20) /* no kernel object is near this */

int kb_is_tarball(const char *path)
{
	const char *c = strrchr(path, ':');
	size_t n =
		c && strchr(c, '/') == NULL ? (size_t)(c - path) : strlen(path);

	return (n > 4 && !strncmp(path + n - 4, ".tgz", 4)) ||
	       (n > 7 && !strncmp(path + n - 7, ".tar.gz", 7));
}

/* An octal field, NUL/space terminated; -1 when malformed. */
static long long tar_octal(const unsigned char *p, size_t n)
{
	long long v = 0;
	size_t i = 0;

	while (i < n && p[i] == ' ')
		i++;
	for (; i < n && p[i] >= '0' && p[i] <= '7'; i++) {
		if (v > (1ll << 40))
			return -1;
		v = v * 8 + (p[i] - '0');
	}
	return i < n && p[i] != 0 && p[i] != ' ' ? -1 : v;
}

/* The member's path: ustar prefix "/" name. */
static void tar_path(const unsigned char *h, char *out, size_t cap)
{
	char name[101], prefix[156];

	memcpy(name, h, 100);
	name[100] = 0;
	memcpy(prefix, h + 345, 155);
	prefix[155] = 0;
	if (!memcmp(h + 257, "ustar", 5) && prefix[0])
		snprintf(out, cap, "%s/%s", prefix, name);
	else
		snprintf(out, cap, "%s", name);
}

/* "./GENERIC.MP/x.o" -> dir "GENERIC.MP", file "x.o"; "x.o" -> "", "x.o". */
static int tar_split(char *path, char **dir, char **file)
{
	char *p = path, *slash;

	while (!strncmp(p, "./", 2))
		p += 2;
	slash = strchr(p, '/');
	if (!slash) {
		*dir = p + strlen(p); /* "" */
		*file = p;
	} else {
		*slash = 0;
		*dir = p;
		*file = slash + 1;
		if (strchr(*file, '/'))
			return -1; /* deeper than one directory */
	}
	return strcmp(*file, "..") && strcmp(*dir, "..") ? 0 : -1;
}

struct tar_state {
	const char *archive, *want, *tmp;
	char first_dir[256];
	int dirs_seen, several, extracted;
};

static int tar_save(struct tar_state *t, gzFile gz, const char *file,
		    long long size)
{
	char path[4096];
	unsigned char buf[TAR_BLOCK];
	long long left = size;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", t->tmp, file);
	f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "linkkit: %s: cannot write %s: %s\n",
			t->archive, path, strerror(errno));
		return -1;
	}
	for (; left > 0; left -= TAR_BLOCK) {
		size_t n = left < TAR_BLOCK ? (size_t)left : TAR_BLOCK;

		if (gzread(gz, buf, TAR_BLOCK) != TAR_BLOCK ||
		    fwrite(buf, 1, n, f) != n) {
			fprintf(stderr, "linkkit: %s: %s: truncated member\n",
				t->archive, file);
			fclose(f);
			return -1;
		}
	}
	t->extracted++;
	return fclose(f) ? -1 : 0;
}

static int tar_skip(gzFile gz, long long size)
{
	unsigned char buf[TAR_BLOCK];

	for (; size > 0; size -= TAR_BLOCK)
		if (gzread(gz, buf, TAR_BLOCK) != TAR_BLOCK)
			return -1;
	return 0;
}

/* One member; 1 at the end of the archive, -1 on error. */
static int tar_member(struct tar_state *t, gzFile gz)
{
	unsigned char h[TAR_BLOCK];
	char path[512], *dir, *file;
	long long size;
	int n = gzread(gz, h, TAR_BLOCK);

	if (n == TAR_BLOCK && !h[0])
		return 1; /* the end-of-archive zero block */
	if (n != TAR_BLOCK) {
		/* Every tar ends with zero blocks: EOF before them, or a
		 * gzip stream that ends early, is a cut-off download. */
		fprintf(stderr, "linkkit: %s: truncated archive\n",
			t->archive);
		return -1;
	}
	size = tar_octal(h + 124, 12);
	tar_path(h, path, sizeof(path));
	if (size < 0 || size > TAR_MAX_FILE) {
		fprintf(stderr, "linkkit: %s: %s: bad member size\n",
			t->archive, path);
		return -1;
	}
	if ((h[156] != '0' && h[156] != 0) || tar_split(path, &dir, &file) ||
	    !*file)
		return tar_skip(gz, size) ? -1 : 0; /* dirs, links, deeper */
	if (strlen(dir) >= sizeof(t->first_dir))
		return tar_skip(gz, size) ? -1 : 0;
	if (!t->dirs_seen++)
		snprintf(t->first_dir, sizeof(t->first_dir), "%s", dir);
	else if (strcmp(dir, t->first_dir))
		t->several = 1;
	if (t->want ? strcmp(dir, t->want) : strcmp(dir, t->first_dir))
		return tar_skip(gz, size) ? -1 : 0;
	return tar_save(t, gz, file, size);
}

/*
 * Extracts ARCHIVE[:NAME] into a new temporary directory, returned in
 * *out (free with kb_tarball_cleanup). Without NAME the archive must hold
 * one directory (or plain files only).
 */
static char kb_tar_kernel[256];

const char *kb_tarball_kernel(void)
{
	return kb_tar_kernel;
}

int kb_tarball_extract(const char *arg, char **out)
{
	struct tar_state t = { 0 };
	char *archive = kb_xstrdup(arg), *colon = strrchr(archive, ':');
	char tmpl[] = "/tmp/linkkit-openbsd.XXXXXX";
	gzFile gz;
	int rc;

	if (colon && !strchr(colon, '/')) {
		*colon = 0;
		t.want = colon + 1;
	}
	t.archive = archive;
	gz = gzopen(archive, "rb");
	if (!gz || !mkdtemp(tmpl)) {
		fprintf(stderr, "linkkit: %s: cannot read: %s\n", archive,
			strerror(errno));
		if (gz)
			gzclose(gz);
		free(archive);
		return -1;
	}
	t.tmp = tmpl;
	while (!(rc = tar_member(&t, gz)))
		;
	gzclose(gz);
	if (rc == 1 && !t.want && t.several) {
		fprintf(stderr,
			"linkkit: %s: holds several kernels: name one, as in "
			"%s:GENERIC.MP\n",
			archive, archive);
		rc = -1;
	} else if (rc == 1 && !t.extracted) {
		fprintf(stderr, "linkkit: %s: no files%s%s in the archive\n",
			archive, t.want ? " under " : "", t.want ? t.want : "");
		rc = -1;
	}
	*out = kb_xstrdup(tmpl);
	snprintf(kb_tar_kernel, sizeof(kb_tar_kernel), "%s",
		 t.want ? t.want : t.first_dir);
	free(archive);
	if (rc != 1) {
		kb_tarball_cleanup(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/* Removes the extracted files (all plain, one level) and the directory. */
void kb_tarball_cleanup(char *dir)
{
	DIR *d;
	struct dirent *e;
	char path[4200];

	if (!dir)
		return;
	if ((d = opendir(dir))) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				snprintf(path, sizeof(path), "%s/%s", dir,
					 e->d_name);
				unlink(path);
			}
		closedir(d);
	}
	if (rmdir(dir))
		fprintf(stderr, "linkkit: warning: cannot remove %s\n", dir);
	free(dir);
}
