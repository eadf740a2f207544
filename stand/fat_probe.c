/*
 * Host driver for fat.c (unit test only): opens a disk image, finds the
 * ESP the way the stage does, and copies one file out, or prints what
 * the test needs to corrupt the image on purpose.
 *   fat_probe IMG PATH OUT     read PATH into OUT
 *   fat_probe IMG PATH --info  print "cluster C size S type T fat F data D
 *                              spc N lba L" (byte offsets in the image)
 * Errors: the reader's log lines on stderr, exit status 1 (3 when the
 * reader did not log exactly one error line).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fat.h"

static void *h_alloc(void *ctx, lk_size n)
{
	(void)ctx;
	return calloc(1, n);
}

static void h_free(void *ctx, void *p, lk_size n)
{
	(void)ctx;
	(void)n;
	free(p);
}

static int nerrors;

static void h_log(void *ctx, int level, const char *line)
{
	(void)ctx;
	if (level == LK_LOG_ERROR)
		nerrors++;
	fprintf(stderr, "%s\n", line);
}

static int img_read(void *ctx, lk_u64 lba, lk_u32 count, void *buf)
{
	FILE *f = ctx;

	if (fseeko(f, (off_t)(lba * 512), SEEK_SET))
		return -1;
	return fread(buf, 512, count, f) == count ? 0 : -1;
}

static int fail(const char *why)
{
	if (nerrors != 1)
		fprintf(stderr, "fat_probe: %d error lines (want exactly 1)\n",
			nerrors);
	fprintf(stderr, "fat_probe: %s\n", why);
	return nerrors == 1 ? 1 : 3;
}

int main(int argc, char **argv)
{
	struct lk_host h = {0, h_alloc, h_free, h_log, 0, LK_LOG_DEBUG};
	struct fat_dev d;
	struct fat_fs fs;
	struct fat_file f;
	lk_u64 lba, count;
	FILE *img;
	void *buf;

	if (argc != 4 || !(img = fopen(argv[1], "rb")))
		return 2;
	fseeko(img, 0, SEEK_END);
	d = (struct fat_dev){img, img_read, (lk_u64)ftello(img) / 512};
	if (fat_find_esp(&h, &d, &lba, &count))
		return fail("no ESP");
	if (fat_mount(&h, &d, lba, count, &fs))
		return fail("mount");
	if (fat_open(&fs, argv[2], &f))
		return fail("open");
	if (!strcmp(argv[3], "--info")) {
		printf("cluster %u size %u type %u fat %llu data %llu spc %u lba %llu\n",
		       f.first_cluster, f.size, fs.type,
		       (unsigned long long)(lba * 512 + (lk_u64)fs.fat_start * fs.bps),
		       (unsigned long long)(lba * 512 + (lk_u64)fs.data_start * fs.bps),
		       fs.spc, (unsigned long long)lba);
		fat_unmount(&fs);
		fclose(img);
		return 0;
	}
	buf = malloc(f.size ? f.size : 1);
	if (fat_read(&fs, argv[2], &f, buf))
		return fail("read");
	FILE *out = fopen(argv[3], "wb");
	if (!out || fwrite(buf, 1, f.size, out) != f.size || fclose(out))
		return 2;
	free(buf);
	fat_unmount(&fs);
	fclose(img);
	return nerrors ? 1 : 0;
}
