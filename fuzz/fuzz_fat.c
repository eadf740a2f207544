/*
 * libFuzzer target: the BIOS stage's disk input up to the kit, built for
 * the host: the partition walk (linkkit/fs/part.c) behind the ESP search
 * (linkkit/fs/fat.c lk_fat_find_esp), the FAT boot sector, directories
 * and cluster chains, whole-file reads (stand/files.c) and a range of
 * each file read again through lk_fs_fat (it must match), for the file
 * names the config supplies, in the order the boot sequence uses them:
 * RELINK.CFG, the kit, the fallback, its .SIG, the seed file; and the
 * OpenBSD disklabel search both stages run on the same disk for the
 * OpenBSD hand-over (linkkit/disklabel.c lk_dl_find).
 *
 * The disk is sparse so a real 64 MiB image fits in a small input:
 *   u32 sectors       the device size the stage is told (0 = unknown)
 *   u32 bad           0, or 1 + an LBA whose reads fail (a disk error
 *                     at any point of the walk)
 *   { u32 lba; u8 data[512]; }...  the listed sectors (first one wins);
 *                     the others read as zeros
 * fuzz/gen-seeds.py writes seeds in this form from images made by
 * tools/mkimage.sh.
 */
#include "fz_host.h"
#include "disklabel.h"
#include "fs/fat.h"
#include "stand.h"

#define SEC 512u
#define REC (4u + SEC)
/* Files bigger than this are refused by the allocator like a full heap:
 * the reads stay fast and the out-of-memory path is exercised. */
#define FAT_ALLOC_MAX (4u << 20)

struct sector {
	uint32_t lba;
	const uint8_t *data;
};

struct disk {
	struct sector *s;
	size_t n;
	uint32_t bad; /* 1 + failing LBA, or 0 */
};

static int by_lba(const void *a, const void *b)
{
	const struct sector *x = a, *y = b;

	if (x->lba != y->lba)
		return x->lba < y->lba ? -1 : 1;
	/* Stable on equal LBAs so the first record wins. */
	return x->data < y->data ? -1 : x->data > y->data;
}

static const uint8_t *find(const struct disk *d, lk_u64 lba)
{
	size_t lo = 0, hi = d->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->s[mid].lba < lba)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->n && d->s[lo].lba == lba ? d->s[lo].data : NULL;
}

static int disk_read(void *ctx, lk_u64 lba, lk_u32 count, void *buf)
{
	const struct disk *d = ctx;
	uint8_t *out = buf;

	if (d->bad && d->bad - 1 >= lba && d->bad - 1 - lba < count)
		return -1;
	for (lk_u32 i = 0; i < count; i++, out += SEC) {
		const uint8_t *p = find(d, lba + i);

		if (p)
			memcpy(out, p, SEC);
		else
			memset(out, 0, SEC);
	}
	return 0;
}

static void *fat_alloc(void *ctx, lk_size size)
{
	return size > FAT_ALLOC_MAX ? NULL : fz_alloc(ctx, size);
}

/* The middle third of a file read through the table must equal the
 * same bytes of the whole read. */
static void check_range(struct stand *s, const char *path, const lk_u8 *all,
			lk_u64 size)
{
	lk_u64 off = size / 3, len = size / 3;
	struct lk_file f;
	lk_u8 *part;

	if (s->fs.ops->lookup(&s->fs, path, &f) || f.size != size)
		abort(); /* it was just found with this size */
	part = malloc(len ? len : 1);
	if (!part)
		return;
	if (s->fs.ops->read(&s->fs, path, &f, off, part, len) == 0 &&
	    memcmp(part, all + off, len) != 0)
		abort();
	free(part);
}

/* Reads one file and checks the size the reader reported. */
static void read_one(struct stand *s, const char *path,
		     void (*use)(struct stand *, const void *, lk_u64))
{
	lk_u64 size = 0xdeadbeef;
	void *buf;

	if (!path[0] || stand_read_file(&s->boot, path, 1, &buf, &size))
		return;
	if (size > FAT_ALLOC_MAX)
		abort(); /* more than the allocator could have given */
	check_range(s, path, buf, size);
	if (use)
		use(s, buf, size);
	stand_free_big(&s->boot, buf, size);
}

static void use_config(struct stand *s, const void *text, lk_u64 size)
{
	lk_config_parse(&s->boot.host, LK_BOOT_CONFIG_PATH, text, (lk_size)size,
			&s->boot.cfg);
}

static void use_fallback(struct stand *s, const void *elf, lk_u64 size)
{
	struct lk_boot *b = &s->boot;
	char path[LK_CFG_PATH_MAX];
	lk_u64 ssize = 0;
	void *sig;

	if (!b->have_key || lk_sig_path(b->cfg.fallback, path, sizeof(path)))
		return;
	if (stand_read_file(b, path, 0, &sig, &ssize))
		return;
	lk_sig_check(&b->host, &b->key, b->cfg.fallback, elf, (lk_size)size,
		     sig, (lk_size)ssize);
	stand_free_big(b, sig, ssize);
}

/* Every refusal must come with a reason for the stage's info line. */
static void find_label(const struct lk_blockdev *dev)
{
	struct lk_dl_label l;
	const char *why = NULL;

	if (lk_dl_find(dev, &l, &why) && (!why || !*why))
		abort();
}

static void run(struct disk *d, lk_u64 sectors)
{
	static struct stand s;
	struct lk_boot *b = &s.boot;
	struct lk_blockdev dev = { d, disk_read, sectors };
	lk_u64 lba, count;

	find_label(&dev);
	memset(&s, 0, sizeof(s));
	b->stage = &s;
	b->host = fz_host;
	b->host.alloc = fat_alloc;
	if (lk_fat_find_esp(&b->host, &dev, &lba, &count) ||
	    lk_fs_mount(&s.fs, &lk_fs_fat, &b->host, &dev, lba, count))
		return;
	lk_config_defaults(&b->cfg);
	read_one(&s, LK_BOOT_CONFIG_PATH, use_config);
	b->have_key = lk_config_pubkey(&b->cfg, LK_NULL, &b->key) > 0;
	read_one(&s, b->cfg.kit, LK_NULL);
	read_one(&s, b->cfg.fallback, use_fallback);
	read_one(&s, b->cfg.seed_file, LK_NULL);
	/* Names the config cannot produce: dot entries, odd separators. */
	read_one(&s, "/RELINK/./../RELINK/KERNEL.KIT", LK_NULL);
	read_one(&s, "\\\\EFI//BOOT\\", LK_NULL);
	lk_fs_unmount(&s.fs);
	lk_config_wipe(&b->cfg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct disk d = { 0 };
	uint32_t sectors;

	if (size < 8)
		return 0;
	memcpy(&sectors, data, 4);
	memcpy(&d.bad, data + 4, 4);
	d.s = malloc(((size - 8) / REC + 1) * sizeof(*d.s));
	if (!d.s)
		return 0;
	for (size_t off = 8; off + REC <= size; off += REC) {
		memcpy(&d.s[d.n].lba, data + off, 4);
		d.s[d.n++].data = data + off + 4;
	}
	qsort(d.s, d.n, sizeof(*d.s), by_lba);
	run(&d, sectors);
	free(d.s);
	return 0;
}
