/* Mounting through the operations table (fs.h). */
#include "fs.h"
#include "../linkkit.h"

int lk_fs_mount(struct lk_fs *fs, const struct lk_fs_ops *ops,
		const struct lk_host *h, const struct lk_blockdev *d,
		lk_u64 lba, lk_u64 count)
{
	lk_memset(fs, 0, sizeof(*fs));
	fs->ops = ops;
	fs->h = h;
	fs->dev = *d;
	fs->lba = lba;
	fs->count = count;
	if (ops->mount(fs)) {
		fs->ops = LK_NULL;
		return -1;
	}
	return 0;
}

void lk_fs_unmount(struct lk_fs *fs)
{
	if (fs->ops && fs->priv)
		fs->ops->unmount(fs);
	fs->ops = LK_NULL;
	fs->priv = LK_NULL;
}

void lk_fs_free_priv(struct lk_fs *fs, lk_size size)
{
	if (!fs->priv)
		return;
	/* Reader buffers held file data (config, seed): wiped first. */
	lk_wipe(fs->priv, size);
	fs->h->free(fs->h->ctx, fs->priv, size);
	fs->priv = LK_NULL;
}
