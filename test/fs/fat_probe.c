/*
 * Host driver for the FAT reader (linkkit/fs/fat.c, test only): opens a
 * disk image, finds the ESP the way the BIOS stage does, mounts it
 * through lk_fs_fat and copies one file out, or prints what the test
 * needs to corrupt the image on purpose.
 *   fat_probe IMG PATH OUT           read PATH into OUT
 *   fat_probe IMG PATH OUT OFF LEN   read LEN bytes at OFF into OUT
 *   fat_probe IMG PATH --info        print "cluster C size S type T fat F
 *                                    data D spc N lba L" (byte offsets
 *                                    in the image)
 * Errors: the reader's log lines on stderr, exit status 1 (3 when the
 * reader did not log exactly one error line).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linkkit.h"
#include "fs/fat.h"

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

static void print_info(const struct lk_fs *fs, const struct lk_file *f)
{
	struct lk_fat_geom g;

	if (lk_fat_geometry(fs, &g))
		return;
	printf("cluster %llu size %llu type %u fat %llu data %llu spc %u lba %llu\n",
	       (unsigned long long)f->ino, (unsigned long long)f->size, g.type,
	       (unsigned long long)(g.fat_lba * 512),
	       (unsigned long long)(g.data_lba * 512), g.spc,
	       (unsigned long long)fs->lba);
}

int main(int argc, char **argv)
{
	struct lk_host h = { 0, h_alloc, h_free, h_log, 0, LK_LOG_DEBUG };
	struct lk_blockdev d;
	struct lk_fs fs;
	struct lk_file f;
	lk_u64 lba, count, off = 0, len;
	FILE *img, *out;
	void *buf;

	if ((argc != 4 && argc != 6) || !(img = fopen(argv[1], "rb")))
		return 2;
	fseeko(img, 0, SEEK_END);
	d = (struct lk_blockdev){ img, img_read, (lk_u64)ftello(img) / 512 };
	if (lk_fat_find_esp(&h, &d, &lba, &count))
		return fail("no ESP");
	if (lk_fs_mount(&fs, &lk_fs_fat, &h, &d, lba, count))
		return fail("mount");
	if (fs.ops->lookup(&fs, argv[2], &f))
		return fail("lookup");
	if (!strcmp(argv[3], "--info")) {
		print_info(&fs, &f);
		lk_fs_unmount(&fs);
		fclose(img);
		return 0;
	}
	len = f.size;
	if (argc == 6) {
		off = strtoull(argv[4], NULL, 0);
		len = strtoull(argv[5], NULL, 0);
	}
	buf = malloc(len ? len : 1);
	if (!buf)
		return 2;
	if (fs.ops->read(&fs, argv[2], &f, off, buf, len))
		return fail("read");
	out = fopen(argv[3], "wb");
	if (!out || fwrite(buf, 1, len, out) != len || fclose(out))
		return 2;
	free(buf);
	lk_fs_unmount(&fs);
	fclose(img);
	return nerrors ? 1 : 0;
}
