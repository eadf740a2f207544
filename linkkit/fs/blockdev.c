/* Bounds-checked sector reads for every reader of the disk layer. */
#include "blockdev.h"

int lk_bdev_read(const struct lk_blockdev *d, lk_u64 lba, lk_u32 count,
		 void *buf)
{
	if (!d || !d->read || count == 0)
		return -1;
	if (d->sectors &&
	    (lba >= d->sectors || (lk_u64)count > d->sectors - lba))
		return -1;
	return d->read(d->ctx, lba, count, buf) ? -1 : 0;
}
