/*
 * libFuzzer target: the BIOS stage's disk input up to the kit, built for
 * the host: the GPT/MBR search (stand/fat.c fat_find_esp), the FAT boot
 * sector, directories and cluster chains, whole-file reads (stand/files.c)
 * and the file names the config supplies, in the order stand/boot.c uses
 * them: RELINK.CFG, the kit, the fallback, its .SIG, the seed file; and
 * the OpenBSD disklabel search both stages run on the same disk for the
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

/* Reads one file and checks the size the reader reported. */
static void read_one(struct stand *s, const char *path,
		     void (*use)(struct stand *, const void *, lk_u32))
{
	lk_u32 size = 0xdeadbeef;
	void *buf;

	if (!path[0])
		return;
	buf = stand_read_file(s, path, &size);
	if (!buf)
		return;
	if (size > FAT_ALLOC_MAX)
		abort(); /* more than the allocator could have given */
	if (use)
		use(s, buf, size);
	stand_free_file(s, buf, size);
}

static void use_config(struct stand *s, const void *text, lk_u32 size)
{
	lk_config_parse(&s->host, "\\EFI\\BOOT\\RELINK.CFG", text, size,
			&s->cfg);
}

static void use_fallback(struct stand *s, const void *elf, lk_u32 size)
{
	char path[LK_CFG_PATH_MAX];
	lk_u32 ssize = 0;
	void *sig;

	if (!s->have_key || lk_sig_path(s->cfg.fallback, path, sizeof(path)))
		return;
	sig = stand_read_file(s, path, &ssize);
	if (!sig)
		return;
	lk_sig_check(&s->host, &s->key, s->cfg.fallback, elf, size, sig, ssize);
	stand_free_file(s, sig, ssize);
}

/* Every refusal must come with a reason for the stage's info line. */
static void find_label(struct disk *d, lk_u64 sectors)
{
	struct lk_dl_disk dd = { d, disk_read, sectors };
	struct lk_dl_label l;
	const char *why = NULL;

	if (lk_dl_find(&dd, &l, &why) && (!why || !*why))
		abort();
}

static void run(struct disk *d, lk_u64 sectors)
{
	static struct stand s;
	struct fat_dev dev = { d, disk_read, sectors };
	lk_u64 lba, count;

	find_label(d, sectors);
	memset(&s, 0, sizeof(s));
	s.host = fz_host;
	s.host.alloc = fat_alloc;
	if (fat_find_esp(&s.host, &dev, &lba, &count) ||
	    fat_mount(&s.host, &dev, lba, count, &s.fs))
		return;
	lk_config_defaults(&s.cfg);
	read_one(&s, "\\EFI\\BOOT\\RELINK.CFG", use_config);
	s.have_key = lk_config_pubkey(&s.cfg, LK_NULL, &s.key) > 0;
	read_one(&s, s.cfg.kit, LK_NULL);
	read_one(&s, s.cfg.fallback, use_fallback);
	read_one(&s, s.cfg.seed_file, LK_NULL);
	/* Names the config cannot produce: dot entries, odd separators. */
	read_one(&s, "/RELINK/./../RELINK/KERNEL.KIT", LK_NULL);
	read_one(&s, "\\\\EFI//BOOT\\", LK_NULL);
	fat_unmount(&s.fs);
	lk_config_wipe(&s.cfg);
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
