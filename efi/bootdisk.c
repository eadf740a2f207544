/*
 * The boot disk for the OpenBSD hand-over: the whole disk under the
 * partition this application was loaded from, its OpenBSD disklabel
 * (linkkit/disklabel.c) read through EFI_BLOCK_IO_PROTOCOL, read only.
 * efiboot lists the boot disk first, so it is unit 0 of its driver.
 */
#include "efiboot.h"
#include "../linkkit/disklabel.h"
#include "../linkkit/obsd_boot.h"

#define EB_DP_MAX 4096u /* no sane device path is longer */

struct eb_bio_ctx {
	EFI_BLOCK_IO *bio;
	lk_u8 *page; /* page-aligned: satisfies any IoAlign we accept */
};

/* Byte length of a device path up to (not including) its end node, or 0
 * when it is malformed. */
static UINTN eb_dp_len(const EFI_DEVICE_PATH *dp)
{
	const lk_u8 *p = (const lk_u8 *)dp;
	UINTN off = 0;

	while (off + 4 <= EB_DP_MAX) {
		UINTN n = p[off + 2] | (UINTN)p[off + 3] << 8;

		if ((p[off] & 0x7f) == END_DEVICE_PATH_TYPE)
			return off;
		if (n < 4)
			return 0;
		off += n;
	}
	return 0;
}

#define EB_BIO_BOUNCE (128u * 512) /* the root reader's buffer */

/* Through the page-aligned buffer (any IoAlign up to 4 KiB), in pieces of
 * at most `sectors` sectors. */
static int eb_bio_read_in(struct eb_bio_ctx *c, lk_u32 sectors, lk_u64 lba,
			  lk_u32 count, lk_u8 *buf)
{
	while (count) {
		lk_u32 n = count < sectors ? count : sectors;
		EFI_STATUS st = c->bio->ReadBlocks(c->bio, c->bio->Media->MediaId,
						   lba, n * 512u, c->page);

		if (st != EFI_SUCCESS)
			return -1;
		lk_memcpy(buf, c->page, n * 512u);
		buf += n * 512u;
		lba += n;
		count -= n;
	}
	return 0;
}

static int eb_bio_read(void *ctx, lk_u64 lba, lk_u32 count, void *buf)
{
	if (count == 0 || count > 8)
		return -1;
	return eb_bio_read_in(ctx, 8, lba, count, buf);
}

static int eb_bio_read_big(void *ctx, lk_u64 lba, lk_u32 count, void *buf)
{
	return eb_bio_read_in(ctx, EB_BIO_BOUNCE / 512, lba, count, buf);
}

/* The BlockIo handle whose device path is the longest proper prefix of
 * the partition's and which is not itself a partition: its disk. */
static EFI_BLOCK_IO *eb_parent_disk(struct eb_state *s,
				    const EFI_DEVICE_PATH *part)
{
	EFI_GUID bg = BLOCK_IO_PROTOCOL, dg = DEVICE_PATH_PROTOCOL;
	EFI_BOOT_SERVICES *bs = s->st->BootServices;
	EFI_HANDLE *h = LK_NULL;
	EFI_BLOCK_IO *best = LK_NULL;
	UINTN n = 0, plen = eb_dp_len(part), blen = 0;

	if (!plen || bs->LocateHandleBuffer(ByProtocol, &bg, LK_NULL, &n, &h) !=
			     EFI_SUCCESS)
		return LK_NULL;
	for (UINTN i = 0; i < n; i++) {
		EFI_BLOCK_IO *bio;
		EFI_DEVICE_PATH *dp;
		UINTN len;

		if (bs->HandleProtocol(h[i], &bg, (void **)&bio) !=
			    EFI_SUCCESS ||
		    bs->HandleProtocol(h[i], &dg, (void **)&dp) !=
			    EFI_SUCCESS ||
		    bio->Media->LogicalPartition)
			continue;
		len = eb_dp_len(dp);
		if (len && len < plen && len > blen &&
		    !lk_memcmp(dp, part, len)) {
			best = bio;
			blen = len;
		}
	}
	bs->FreePool(h);
	return best;
}

/* The boot disk's BlockIo (the loaded image's device, or the disk under
 * it when that is a partition), or LK_NULL with *why set. */
static EFI_BLOCK_IO *eb_boot_bio(struct eb_state *s, const char **why)
{
	EFI_GUID lip = LOADED_IMAGE_PROTOCOL, bg = BLOCK_IO_PROTOCOL;
	EFI_GUID dg = DEVICE_PATH_PROTOCOL;
	EFI_BOOT_SERVICES *bs = s->st->BootServices;
	EFI_LOADED_IMAGE *li;
	EFI_BLOCK_IO *bio;
	EFI_DEVICE_PATH *dp;

	if (bs->HandleProtocol(s->image, &lip, (void **)&li) != EFI_SUCCESS ||
	    bs->HandleProtocol(li->DeviceHandle, &bg, (void **)&bio) !=
		    EFI_SUCCESS) {
		*why = "the boot device has no block I/O";
		return LK_NULL;
	}
	if (!bio->Media->LogicalPartition)
		return bio;
	if (bs->HandleProtocol(li->DeviceHandle, &dg, (void **)&dp) !=
		    EFI_SUCCESS ||
	    !(bio = eb_parent_disk(s, dp))) {
		*why = "cannot find the disk under the boot partition";
		return LK_NULL;
	}
	return bio;
}

static int eb_read_label(struct eb_state *s, EFI_BLOCK_IO *bio,
			 struct lk_dl_label *l, const char **why)
{
	EFI_BOOT_SERVICES *bs = s->st->BootServices;
	EFI_PHYSICAL_ADDRESS page = 0;
	struct eb_bio_ctx c = { bio, LK_NULL };
	struct lk_blockdev d = { &c, eb_bio_read, bio->Media->LastBlock + 1 };
	int rc;

	if (bio->Media->BlockSize != 512 || bio->Media->IoAlign > 4096 ||
	    !bio->Media->MediaPresent) {
		*why = "the boot disk's sectors are not 512 bytes";
		return -1;
	}
	if (bs->AllocatePages(AllocateAnyPages, EfiLoaderData, 1, &page) !=
	    EFI_SUCCESS) {
		*why = "no memory for a sector buffer";
		return -1;
	}
	c.page = (lk_u8 *)(lk_uptr)page;
	rc = lk_dl_find(&d, l, why);
	lk_memset(c.page, 0, 4096);
	bs->FreePages(page, 1);
	return rc;
}

void eb_boot_disk(struct eb_state *s, lk_u32 *bootdev, lk_u8 *duid, int *have)
{
	struct lk_dl_label l;
	const char *why = "";
	EFI_BLOCK_IO *bio = eb_boot_bio(s, &why);

	*have = bio && eb_read_label(s, bio, &l, &why) == 0;
	*bootdev = lk_obsd_bootdev_disk(
		*have ? lk_obsd_dev_type(l.d_type) : LK_OBSD_DEV_WD, 0);
	if (*have)
		lk_memcpy(duid, l.duid, 8);
	else
		eb_print(s, "boot disk: no BOOTDUID: %s", why);
}

/* The boot_disk hook: the whole boot disk for the root file system. Its
 * bounce buffer is a secret region (it passes seeds and boot.conf). */
int eb_boot_blockdev(struct lk_boot *b, struct lk_blockdev *dev)
{
	static struct eb_bio_ctx c;
	struct eb_state *s = eb_of(b);
	const char *why = "";
	EFI_BLOCK_IO *bio = eb_boot_bio(s, &why);

	if (!bio || bio->Media->BlockSize != 512 ||
	    bio->Media->IoAlign > 4096 || !bio->Media->MediaPresent)
		return -1;
	c.bio = bio;
	if (!c.page)
		c.page = eb_pages(s, EB_BIO_BOUNCE, 0, 1);
	if (!c.page)
		return -1;
	dev->ctx = &c;
	dev->read = eb_bio_read_big;
	dev->sectors = bio->Media->LastBlock + 1;
	return 0;
}
