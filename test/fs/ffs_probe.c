/*
 * Host driver for the FFS reader tests (test/fs/test-ffs.sh): mounts an
 * image file through lk_fs_ffs and prints what the reader sees, so the
 * script can compare it with the tree makefs was given.
 *
 * usage: ffs_probe [-l LBA] [-c COUNT] IMAGE stat PATH...
 *        ffs_probe [-l LBA] [-c COUNT] IMAGE read PATH OFF LEN
 *        ffs_probe [-l LBA] [-c COUNT] IMAGE mount
 * stat: one line per path, "PATH size=N mode=OCT uid=N gid=N ino=N
 *       sha256=HEX" (the file read whole and again in odd-sized chunks;
 *       a difference prints "PATH chunks differ") or "PATH failed".
 * read: "sha256=HEX" of LEN bytes at OFF (read in 1 MiB pieces).
 * Every log line of the reader is printed as "error: LINE" (errors) or
 * "log: LINE". The allocator aborts when memory comes back unwiped.
 * Exit status 0 when every path was read, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#include "linkkit.h"
#include "fs/fs.h"

static int img_fd;

static int img_read(void *ctx, lk_u64 lba, lk_u32 count, void *buf)
{
	size_t n = (size_t)count * 512;

	(void)ctx;
	return pread(img_fd, buf, n, (off_t)(lba * 512)) == (ssize_t)n ? 0 : -1;
}

static void *t_alloc(void *ctx, lk_size size)
{
	(void)ctx;
	return calloc(1, size);
}

/* The reader's buffers may hold secret file contents (random.seed). */
static void t_free(void *ctx, void *p, lk_size size)
{
	const unsigned char *b = p;

	(void)ctx;
	for (lk_size i = 0; i < size; i++) {
		if (b[i]) {
			printf("error: freed memory not wiped (byte %zu)\n", i);
			abort();
		}
	}
	free(p);
}

static void t_log(void *ctx, int level, const char *line)
{
	(void)ctx;
	printf("%s: %s\n", level == LK_LOG_ERROR ? "error" : "log", line);
}

static const struct lk_host host = {
	.alloc = t_alloc,
	.free = t_free,
	.log = t_log,
	.log_level = LK_LOG_DEBUG,
};

static void hex(const lk_u8 *h, char *out)
{
	for (int i = 0; i < 32; i++)
		sprintf(out + 2 * i, "%02x", h[i]);
}

/* Reads [off, off + len) in pieces of the given sizes (cycled). */
static int read_hash(struct lk_fs *fs, const char *path,
		     const struct lk_file *f, lk_u64 off, lk_u64 len,
		     const lk_u64 *sizes, int nsizes, lk_u8 out[32])
{
	static lk_u8 buf[1 << 20];
	struct lk_sha256 c;
	int k = 0;

	lk_sha256_init(&c);
	while (len) {
		lk_u64 n = sizes[k++ % nsizes];

		if (n > len)
			n = len;
		memset(buf, 0xa5, n);
		if (fs->ops->read(fs, path, f, off, buf, n))
			return -1;
		lk_sha256_update(&c, buf, n);
		off += n;
		len -= n;
	}
	lk_sha256_final(&c, out);
	return 0;
}

static int do_stat(struct lk_fs *fs, char **paths, int n)
{
	static const lk_u64 whole[] = { 1 << 20 };
	/* Odd sizes cross sector, fragment and block edges. */
	static const lk_u64 odd[] = { 1, 511, 513, 4097, 700000, 3, 16384 };
	int bad = 0;

	for (int i = 0; i < n; i++) {
		struct lk_file f;
		lk_u8 h1[32], h2[32];
		char hx[65];

		if (fs->ops->lookup(fs, paths[i], &f) ||
		    read_hash(fs, paths[i], &f, 0, f.size, whole, 1, h1) ||
		    read_hash(fs, paths[i], &f, 0, f.size, odd, 7, h2)) {
			printf("%s failed\n", paths[i]);
			bad = 1;
			continue;
		}
		if (memcmp(h1, h2, 32)) {
			printf("%s chunks differ\n", paths[i]);
			bad = 1;
			continue;
		}
		hex(h1, hx);
		printf("%s size=%llu mode=%o uid=%u gid=%u ino=%llu sha256=%s\n",
		       paths[i], f.size, f.mode, f.uid, f.gid, f.ino, hx);
	}
	return bad;
}

static int do_read(struct lk_fs *fs, const char *path, lk_u64 off,
		   lk_u64 len)
{
	static const lk_u64 piece[] = { 1 << 20 };
	struct lk_file f;
	lk_u8 h[32];
	char hx[65];

	if (fs->ops->lookup(fs, path, &f) ||
	    read_hash(fs, path, &f, off, len, piece, 1, h)) {
		printf("%s failed\n", path);
		return 1;
	}
	hex(h, hx);
	printf("sha256=%s\n", hx);
	return 0;
}

int main(int argc, char **argv)
{
	struct lk_blockdev dev = { NULL, img_read, 0 };
	struct lk_fs fs;
	lk_u64 lba = 0, count = 0;
	int opt, rc;
	off_t end;

	while ((opt = getopt(argc, argv, "l:c:")) != -1) {
		if (opt == 'l')
			lba = strtoull(optarg, NULL, 0);
		else if (opt == 'c')
			count = strtoull(optarg, NULL, 0);
		else
			return 2;
	}
	if (argc - optind < 2)
		return 2;
	img_fd = open(argv[optind], O_RDONLY);
	if (img_fd < 0 || (end = lseek(img_fd, 0, SEEK_END)) < 0) {
		perror(argv[optind]);
		return 2;
	}
	dev.sectors = (lk_u64)end / 512;
	if (!count)
		count = dev.sectors - lba;
	if (lk_fs_mount(&fs, &lk_fs_ffs, &host, &dev, lba, count))
		return 1;
	if (!strcmp(argv[optind + 1], "stat"))
		rc = do_stat(&fs, argv + optind + 2, argc - optind - 2);
	else if (!strcmp(argv[optind + 1], "read") && argc - optind == 5)
		rc = do_read(&fs, argv[optind + 2],
			     strtoull(argv[optind + 3], NULL, 0),
			     strtoull(argv[optind + 4], NULL, 0));
	else if (!strcmp(argv[optind + 1], "mount"))
		rc = printf("mounted\n") < 0;
	else
		rc = 2;
	lk_fs_unmount(&fs);
	return rc;
}
