/*
 * libFuzzer target: the FFS reader (linkkit/fs/ffs.c) as the stages use
 * it on an OpenBSD root: mount (superblock search), then the lookups and
 * reads of issue 25 (/etc/random.seed, /etc/boot.conf, /bsd, the relink
 * directory) and paths through "..", symlinks and odd separators. Beyond
 * "no crash, no hang", it checks the reader's contract: a failed mount,
 * lookup or read logs exactly one error line, a success logs none, and a
 * file read twice (whole, then in odd pieces) reads the same.
 *
 * The disk is sparse, as for fuzz_fat, so a real makefs image fits:
 *   u32 sectors       the partition size in sectors (0: 1 GiB)
 *   u32 bad           0, or 1 + an LBA whose reads fail
 *   { u32 lba; u8 data[512]; }...  the listed sectors (first one wins);
 *                     the others read as zeros
 * fuzz/gen-ffs-seeds.py writes seeds in this form from makefs images.
 */
#include "fz_host.h"
#include "fs/fs.h"

#define SEC 512u
#define REC (4u + SEC)
/* Bytes of each file read: enough for several indirect blocks. */
#define FFS_READ_MAX (256u << 10)

struct sector {
	uint32_t lba;
	const uint8_t *data;
};

struct disk {
	struct sector *s;
	size_t n;
	uint32_t bad; /* 1 + failing LBA, or 0 */
};

static int errors;

static void count_log(void *ctx, int level, const char *line)
{
	fz_log(ctx, level, line);
	if (level == LK_LOG_ERROR)
		errors++;
}

static int by_lba(const void *a, const void *b)
{
	const struct sector *x = a, *y = b;

	if (x->lba != y->lba)
		return x->lba < y->lba ? -1 : 1;
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

/* One error line for a failure, none for a success. */
static void contract(int rc)
{
	if (rc ? errors != 1 : errors != 0)
		abort();
	errors = 0;
}

static void read_file(struct lk_fs *fs, const char *path,
		      const struct lk_file *f)
{
	static uint8_t a[FFS_READ_MAX], b[FFS_READ_MAX];
	lk_u64 len = f->size < FFS_READ_MAX ? f->size : FFS_READ_MAX;
	lk_u64 off = f->size - len, pos, n;
	int rc;

	/* The tail: the fragment and indirect cases live there. */
	rc = fs->ops->read(fs, path, f, off, a, len);
	contract(rc);
	if (rc)
		return;
	for (pos = 0, n = 1; pos < len; pos += n, n = n * 3 + 7) {
		if (n > len - pos)
			n = len - pos;
		rc = fs->ops->read(fs, path, f, off + pos, b + pos, n);
		contract(rc);
		if (rc)
			return;
	}
	if (memcmp(a, b, len))
		abort(); /* the same bytes must read the same */
	/* Past the end is refused with its one line. */
	if (!fs->ops->read(fs, path, f, f->size, a, 1))
		abort();
	contract(-1);
}

static const char *const paths[] = {
	"/",
	"/etc/boot.conf",
	"/etc/random.seed",
	"/bsd",
	"/bsd.rd",
	"/bsd.upgrade",
	"/usr/share/relink/kernel/GENERIC.MP/f1.o",
	"/etc/fast",
	"/etc/slow",
	"/etc/loop",
	"/a/b/../b/./c//d",
	"\\etc\\boot.conf",
	"/etc/boot.conf/x",
};

static void run(struct disk *d, lk_u64 sectors)
{
	struct lk_host h = fz_host;
	struct lk_blockdev dev = { d, disk_read, sectors };
	struct lk_fs fs;
	struct lk_file f;
	int rc;

	h.log = count_log;
	errors = 0;
	rc = lk_fs_mount(&fs, &lk_fs_ffs, &h, &dev, 0,
			 sectors ? sectors : (1u << 21));
	contract(rc);
	if (rc)
		return;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		rc = fs.ops->lookup(&fs, paths[i], &f);
		contract(rc);
		if (!rc)
			read_file(&fs, paths[i], &f);
	}
	lk_fs_unmount(&fs);
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
