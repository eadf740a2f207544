/*
 * Runs a libFuzzer harness on given inputs without libFuzzer, for builds
 * libFuzzer has no runtime for (i386, where the BIOS stage's core runs).
 * A harness that finds a fault aborts; otherwise one result line.
 *
 * usage: PROGRAM NAME FILE|DIR...   (a directory: every file in it)
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long fz_runs;

static int fz_replay_file(const char *path, long size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = malloc(size ? (size_t)size : 1);
	size_t n = 0;

	if (f && buf)
		n = fread(buf, 1, (size_t)size, f);
	if (f)
		fclose(f);
	if (!f || !buf || n != (size_t)size) {
		free(buf);
		return 0;
	}
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	fz_runs++;
	return 1;
}

static int fz_replay(const char *path)
{
	struct stat st;
	struct dirent *e;
	char sub[4096];
	DIR *d;
	int ok = 1;

	if (stat(path, &st) != 0)
		return 0;
	if (!S_ISDIR(st.st_mode))
		return fz_replay_file(path, (long)st.st_size);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		ok &= fz_replay(sub);
	}
	closedir(d);
	return ok;
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 3) {
		fprintf(stderr, "usage: %s NAME FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (i = 2; i < argc; i++) {
		if (!fz_replay(argv[i])) {
			printf("not ok %s: cannot read %s\n", argv[1], argv[i]);
			return 1;
		}
	}
	/* No inputs would pass without testing anything. */
	if (fz_runs == 0) {
		printf("not ok %s: no inputs\n", argv[1]);
		return 1;
	}
	printf("ok %s # %lu inputs\n", argv[1], fz_runs);
	return 0;
}
