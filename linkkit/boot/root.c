/*
 * The OpenBSD root file system, read only: the boot disk's disklabel
 * (linkkit/disklabel.c), its partition a when that is an FFS, mounted
 * through the file-system table (linkkit/fs/). It holds what boot(8)
 * reads (/bsd, /etc/random.seed, /etc/boot.conf) and the link directory
 * a kit must match (/usr/share/relink/kernel/NAME).
 */
#include "boot.h"

#define LK_ROOT_FILE_MAX 0x40000000u /* 1 GiB: no kernel or seed is near */

static int lk_root_fail(struct lk_boot *b, const char *why)
{
	lk_snprintf(b->root.why, sizeof(b->root.why), "%s", why);
	return -1;
}

/* Mount errors go into root.why, not the reason or the console. */
static int lk_root_mount(struct lk_boot *b, const struct lk_dl_part *a)
{
	char saved[LK_BOOT_REASON_MAX];
	int capture = b->capture, rc;

	lk_memcpy(saved, b->reason, sizeof(saved));
	b->reason[0] = 0;
	b->capture = 1;
	rc = lk_fs_mount(&b->root.fs, &lk_fs_ffs, &b->host, &b->root.dev,
			 a->offset, a->size);
	b->capture = capture;
	if (rc)
		lk_root_fail(b, b->reason[0] ? b->reason : "no FFS in partition a");
	lk_memcpy(b->reason, saved, sizeof(saved));
	return rc;
}

int lk_boot_root_open(struct lk_boot *b)
{
	struct lk_boot_root *r = &b->root;
	const char *why = "";

	if (r->tried)
		return r->ok ? 0 : -1;
	r->tried = 1;
	if (!b->ops->boot_disk || b->ops->boot_disk(b, &r->dev))
		return lk_root_fail(b, "the boot disk cannot be read");
	if (lk_dl_find(&r->dev, &r->label, &why))
		return lk_root_fail(b, why);
	if (r->label.npart < 1 || r->label.part[0].size == 0 ||
	    r->label.part[0].fstype != LK_DL_FS_BSDFFS)
		return lk_root_fail(b, "partition a is not an FFS");
	if (lk_root_mount(b, &r->label.part[0]))
		return -1;
	r->ok = 1;
	return 0;
}

void lk_boot_root_close(struct lk_boot *b)
{
	if (b->root.ok)
		lk_fs_unmount(&b->root.fs);
	b->root.ok = 0;
	b->root.tried = 0; /* a later attempt may open it again */
}

static int lk_root_read(struct lk_boot *b, const char *path, int secret,
			void **data, lk_u64 *size)
{
	struct lk_fs *fs = &b->root.fs;
	struct lk_file f;
	void *buf;

	if (lk_boot_root_open(b)) {
		lk_log(&b->host, LK_LOG_ERROR, "%s: no OpenBSD root: %s", path,
		       b->root.why);
		return -1;
	}
	if (fs->ops->lookup(fs, path, &f))
		return -1;
	if ((f.mode & LK_S_IFMT) != LK_S_IFREG || f.size > LK_ROOT_FILE_MAX) {
		lk_log(&b->host, LK_LOG_ERROR, "%s: not a regular file of "
		       "at most 1 GiB", path);
		return -1;
	}
	buf = b->ops->alloc_big(b, f.size, secret);
	if (!buf) {
		lk_log(&b->host, LK_LOG_ERROR, "%s: no memory for %llu bytes",
		       path, f.size);
		return -1;
	}
	if (f.size && fs->ops->read(fs, path, &f, 0, buf, f.size)) {
		b->ops->free_big(b, buf, f.size);
		return -1;
	}
	*data = buf;
	*size = f.size;
	return 0;
}

int lk_boot_read(struct lk_boot *b, const char *path, int secret, void **data,
		 lk_u64 *size)
{
	if (path[0] == '/')
		return lk_root_read(b, path, secret, data, size);
	return b->ops->read_file(b, path, secret, data, size);
}

int lk_boot_root_stat(struct lk_boot *b, const char *path, struct lk_file *f)
{
	char saved[LK_BOOT_REASON_MAX];
	int rc, capture = b->capture;

	if (lk_boot_root_open(b))
		return -1;
	lk_memcpy(saved, b->reason, sizeof(saved));
	b->capture = 1;
	rc = b->root.fs.ops->lookup(&b->root.fs, path, f);
	b->capture = capture;
	lk_memcpy(b->reason, saved, sizeof(saved));
	return rc;
}
