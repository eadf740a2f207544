/* Read-only FAT12/16/32; see fat.h for the contract. */
#include "fat.h"
#include "part.h"
#include "../linkkit.h"

#define FAT_NO_SECTOR 0xffffffffu
#define DIRENT 32u
#define FAT_ATTR_DIR 0x10u
#define FAT_MODE_FILE (LK_S_IFREG | 0444u)
#define FAT_MODE_DIR (LK_S_IFDIR | 0555u)

/* The mounted volume: fs->priv, one allocation with its two buffers. */
struct fat {
	lk_u32 type;	  /* 12, 16 or 32 */
	lk_u32 bps;	  /* bytes per FAT sector: 512..4096 */
	lk_u32 bps_shift; /* log2(bps / 512) */
	lk_u32 spc;	  /* FAT sectors per cluster */
	lk_u32 cluster_bytes;
	lk_u32 fat_start;  /* FAT sector of the FAT in use */
	lk_u32 fat_bytes;  /* bytes of one FAT */
	lk_u32 root_start; /* FAT12/16 fixed root directory */
	lk_u32 root_sectors;
	lk_u32 root_cluster; /* FAT32 */
	lk_u32 data_start;
	lk_u32 nclusters; /* valid clusters are 2 .. nclusters+1 */
	lk_u32 cached;	  /* FAT sector in secbuf, or FAT_NO_SECTOR */
	lk_u8 *secbuf;	  /* one FAT sector (FAT cache) */
	lk_u8 *clbuf;	  /* one cluster */
	lk_size alloc_size;
};

/* A directory entry: the handle lookup gives out in lk_file. */
struct fat_ent {
	lk_u32 first_cluster;
	lk_u32 size;
	lk_u32 attr;
};

static int is_pow2(lk_u32 v)
{
	return v && !(v & (v - 1));
}

static lk_u32 log2u(lk_u32 v)
{
	lk_u32 n = 0;

	while (v > 1) {
		v >>= 1;
		n++;
	}
	return n;
}

/* ---- finding the ESP ---- */

static const lk_u8 esp_guid[16] = {
	0x28, 0x73, 0x2a, 0xc1, 0x1f, 0xf8, 0xd2, 0x11,
	0xba, 0x4b, 0x00, 0xa0, 0xc9, 0x3e, 0xc9, 0x3b,
};

/* MBR types of a FAT volume, the most specific first. */
static const lk_u8 fat_types[] = { 0xef, 0x01, 0x04, 0x06, 0x0b, 0x0c, 0x0e };

struct esp_search {
	lk_u64 sectors; /* the device's, 0 = unknown */
	int found;
	lk_u32 rank; /* MBR: index in fat_types of what was found */
	struct lk_part p;
};

static int esp_gpt_visit(void *arg, const struct lk_part *p)
{
	struct esp_search *s = arg;

	if (lk_memcmp(p->type_guid, esp_guid, 16) != 0)
		return 0;
	s->p = *p;
	s->found = 1;
	return 1;
}

/* Keeps the first entry of the best-ranked type that fits the disk. */
static int esp_mbr_visit(void *arg, const struct lk_part *p)
{
	struct esp_search *s = arg;

	if (p->lba == 0 || (s->sectors && p->lba + p->count > s->sectors))
		return 0;
	for (lk_u32 r = 0; r < s->rank; r++) {
		if (p->mbr_type != fat_types[r])
			continue;
		s->rank = r;
		s->p = *p;
		s->found = 1;
		break;
	}
	return 0;
}

static int gpt_fault_log(const struct lk_host *h, const struct lk_part_fault *f)
{
	switch (f->code) {
	case LK_PART_GPT_HSIZE:
		lk_log(h, LK_LOG_ERROR, "GPT: bad header (size %u)", f->a);
		break;
	case LK_PART_GPT_HCRC:
		lk_log(h, LK_LOG_ERROR,
		       "GPT: bad header (CRC %08x, expected %08x)", f->a, f->b);
		break;
	case LK_PART_GPT_ARRAY:
		lk_log(h, LK_LOG_ERROR,
		       "GPT: bad header (entries %u x %u at LBA %llu)", f->a,
		       f->b, (unsigned long long)f->lba);
		break;
	case LK_PART_READ_ENTRIES:
		lk_log(h, LK_LOG_ERROR, "GPT: cannot read entries at LBA %llu",
		       (unsigned long long)f->lba);
		break;
	case LK_PART_GPT_ECRC:
		lk_log(h, LK_LOG_ERROR,
		       "GPT: partition entries CRC %08x, expected %08x", f->a,
		       f->b);
		break;
	default:
		lk_log(h, LK_LOG_ERROR, "GPT: %s", f->why);
		break;
	}
	return -1;
}

int lk_fat_find_esp(const struct lk_host *h, const struct lk_blockdev *d,
		    lk_u64 *lba, lk_u64 *count)
{
	struct esp_search s;
	struct lk_part_fault f;
	const struct lk_part *p = &s.p;
	int r;

	lk_memset(&s, 0, sizeof(s));
	s.sectors = d->sectors;
	/* The firmware finds a GPT by its signature, whatever the MBR says. */
	r = lk_part_gpt(d, 0, esp_gpt_visit, &s, &f);
	if (r < 0)
		return gpt_fault_log(h, &f);
	if (r == 1 && s.found) {
		if (p->lba < 2 || p->last < p->lba ||
		    (d->sectors && p->last >= d->sectors)) {
			lk_log(h, LK_LOG_ERROR,
			       "GPT: ESP entry %u has bad range %llu..%llu",
			       p->index, (unsigned long long)p->lba,
			       (unsigned long long)p->last);
			return -1;
		}
		*lba = p->lba;
		*count = p->count;
		return 0;
	}
	/* No GPT or no ESP in it. An MBR that cannot be read or has no
	 * signature just holds no ESP either. */
	s.found = 0;
	s.rank = sizeof(fat_types);
	lk_part_mbr(d, LK_PART_PRIMARY, esp_mbr_visit, &s, &f);
	if (!s.found) {
		lk_log(h, LK_LOG_ERROR,
		       "ESP: no EFI system partition in the GPT or MBR");
		return -1;
	}
	*lba = p->lba;
	*count = p->count;
	return 0;
}

/* ---- boot sector ---- */

struct bpb {
	lk_u32 bps, spc, reserved, nfats, root_ents, total, fatsz, root_cl;
	lk_u32 ext_flags; /* FAT32: bit 7: only FAT (bits 0-3) live */
};

static void bpb_parse(const lk_u8 *s, struct bpb *b)
{
	b->bps = lk_le16(s + 11);
	b->spc = s[13];
	b->reserved = lk_le16(s + 14);
	b->nfats = s[16];
	b->root_ents = lk_le16(s + 17);
	b->total = lk_le16(s + 19) ? lk_le16(s + 19) : lk_le32(s + 32);
	b->fatsz = lk_le16(s + 22) ? lk_le16(s + 22) : lk_le32(s + 36);
	b->root_cl = lk_le32(s + 44);
	b->ext_flags = lk_le16(s + 40);
}

static int bpb_basic_ok(const lk_u8 *s, const struct bpb *b, lk_u64 count)
{
	if (s[510] != 0x55 || s[511] != 0xaa)
		return 0;
	if (b->bps < 512 || b->bps > 4096 || !is_pow2(b->bps))
		return 0;
	if (!is_pow2(b->spc) || b->spc * b->bps > 65536)
		return 0;
	if (b->reserved == 0 || b->nfats == 0 || b->nfats > 4 || b->fatsz == 0)
		return 0;
	/* The volume must fit inside its partition. */
	return ((lk_u64)b->total << log2u(b->bps / 512)) <= count;
}

/* FAT32 only: which FAT is live, and where the root starts. */
static int fat32_layout(struct fat *p, const struct bpb *b)
{
	if (b->root_ents != 0 || b->root_cl < 2 ||
	    b->root_cl >= p->nclusters + 2)
		return -1;
	p->root_cluster = b->root_cl;
	if (b->ext_flags & 0x80) {
		if ((b->ext_flags & 0xf) >= b->nfats)
			return -1;
		p->fat_start += (b->ext_flags & 0xf) * b->fatsz;
	}
	return 0;
}

/* Computes the layout; 0 or -1 when the numbers do not add up. */
static int fat_layout(struct fat *p, const struct bpb *b)
{
	/* u32 on purpose: 64-bit division needs libgcc on i386. */
	lk_u32 root_secs = (b->root_ents * DIRENT + b->bps - 1) / b->bps;
	lk_u64 meta = b->reserved + (lk_u64)b->nfats * b->fatsz + root_secs;
	lk_u32 width_x2;

	if (b->total <= meta)
		return -1;
	p->bps = b->bps;
	p->bps_shift = log2u(b->bps / 512);
	p->spc = b->spc;
	p->cluster_bytes = b->spc * b->bps;
	p->fat_start = b->reserved;
	p->fat_bytes = b->fatsz * b->bps;
	if ((lk_u64)b->fatsz * b->bps > 0xffffffffu)
		return -1;
	p->root_start = (lk_u32)(b->reserved + (lk_u64)b->nfats * b->fatsz);
	p->root_sectors = root_secs;
	p->data_start = (lk_u32)meta;
	p->nclusters = (b->total - (lk_u32)meta) >> log2u(b->spc);
	p->type = p->nclusters < 4085 ? 12 : p->nclusters < 65525 ? 16 : 32;
	if (p->nclusters == 0 || p->nclusters > 0x0ffffff5u)
		return -1;
	if (p->type == 32 ? fat32_layout(p, b) : b->root_ents == 0)
		return -1;
	/* Every cluster must have a FAT entry. */
	width_x2 = p->type == 12 ? 3 : p->type == 16 ? 4 : 8;
	if (((lk_u64)p->nclusters + 2) * width_x2 > (lk_u64)p->fat_bytes * 2)
		return -1;
	return 0;
}

/* priv and its two buffers in one allocation. */
static int fat_alloc(struct lk_fs *fs, const struct fat *tmp)
{
	const struct lk_host *h = fs->h;
	lk_size head = (sizeof(*tmp) + 15) & ~(lk_size)15;
	lk_size size = head + tmp->bps + tmp->cluster_bytes;
	lk_u8 *m = h->alloc(h->ctx, size);
	struct fat *p;

	if (!m) {
		lk_log(h, LK_LOG_ERROR, "ESP: out of memory for FAT buffers");
		return -1;
	}
	p = (struct fat *)m;
	*p = *tmp;
	p->alloc_size = size;
	p->secbuf = m + head;
	p->clbuf = m + head + tmp->bps;
	p->cached = FAT_NO_SECTOR;
	fs->priv = p;
	return 0;
}

static int fat_mount(struct lk_fs *fs)
{
	lk_u8 sec[LK_SECTOR] __attribute__((aligned(16)));
	struct fat tmp;
	struct bpb b;

	lk_memset(&tmp, 0, sizeof(tmp));
	if (lk_bdev_read(&fs->dev, fs->lba, 1, sec)) {
		lk_log(fs->h, LK_LOG_ERROR,
		       "ESP: cannot read the boot sector at LBA %llu",
		       (unsigned long long)fs->lba);
		return -1;
	}
	bpb_parse(sec, &b);
	if (!bpb_basic_ok(sec, &b, fs->count) || fat_layout(&tmp, &b)) {
		lk_log(fs->h, LK_LOG_ERROR,
		       "ESP: bad FAT boot sector at LBA %llu",
		       (unsigned long long)fs->lba);
		return -1;
	}
	return fat_alloc(fs, &tmp);
}

static void fat_unmount(struct lk_fs *fs)
{
	const struct fat *p = fs->priv;

	if (p)
		lk_fs_free_priv(fs, p->alloc_size);
}

int lk_fat_geometry(const struct lk_fs *fs, struct lk_fat_geom *g)
{
	const struct fat *p = fs->priv;

	if (fs->ops != &lk_fs_fat || !p)
		return -1;
	g->type = p->type;
	g->bps = p->bps;
	g->spc = p->spc;
	g->fat_lba = fs->lba + ((lk_u64)p->fat_start << p->bps_shift);
	g->data_lba = fs->lba + ((lk_u64)p->data_start << p->bps_shift);
	return 0;
}

/* ---- sectors, FAT entries, clusters ---- */

static int read_secs(struct lk_fs *fs, lk_u32 sec, lk_u32 n, void *buf)
{
	const struct fat *p = fs->priv;
	lk_u64 lba = fs->lba + ((lk_u64)sec << p->bps_shift);

	return lk_bdev_read(&fs->dev, lba, n << p->bps_shift, buf);
}

static int fat_byte(struct lk_fs *fs, lk_u32 off, lk_u8 *out)
{
	struct fat *p = fs->priv;
	lk_u32 sec = p->fat_start + (off >> (p->bps_shift + 9));

	if (off >= p->fat_bytes)
		return -1;
	if (sec != p->cached) {
		p->cached = FAT_NO_SECTOR;
		if (read_secs(fs, sec, 1, p->secbuf))
			return -1;
		p->cached = sec;
	}
	*out = p->secbuf[off & (p->bps - 1)];
	return 0;
}

static int fat_entry(struct lk_fs *fs, lk_u32 c, lk_u32 *val)
{
	const struct fat *p = fs->priv;
	lk_u32 width = p->type == 12 ? 2 : p->type / 8;
	lk_u32 off = p->type == 12 ? c + c / 2 : c * width;
	lk_u8 b[4] = { 0 };

	for (lk_u32 i = 0; i < width; i++)
		if (fat_byte(fs, off + i, &b[i]))
			return -1;
	*val = lk_le32(b);
	if (p->type == 12)
		*val = (c & 1) ? (*val & 0xffff) >> 4 : *val & 0xfff;
	else if (p->type == 32)
		*val &= 0x0fffffff;
	return 0;
}

static int cluster_ok(const struct fat *p, lk_u32 c)
{
	return c >= 2 && c - 2 < p->nclusters;
}

static int is_eoc(const struct fat *p, lk_u32 v)
{
	lk_u32 eoc = p->type == 12   ? 0xff8
		     : p->type == 16 ? 0xfff8
				     : 0x0ffffff8;

	return v >= eoc;
}

/* Next cluster: 1 with *next set, 0 at end of chain, -1 corrupt. */
static int next_cluster(struct lk_fs *fs, const char *path, lk_u32 c,
			lk_u32 *next)
{
	const struct fat *p = fs->priv;
	lk_u32 v;

	if (fat_entry(fs, c, &v)) {
		lk_log(fs->h, LK_LOG_ERROR,
		       "%s: cannot read the FAT entry of cluster %u", path, c);
		return -1;
	}
	if (is_eoc(p, v))
		return 0;
	if (!cluster_ok(p, v)) {
		lk_log(fs->h, LK_LOG_ERROR,
		       "%s: corrupt FAT: cluster %u links to %u", path, c, v);
		return -1;
	}
	*next = v;
	return 1;
}

static lk_u32 cluster_sector(const struct fat *p, lk_u32 c)
{
	return p->data_start + (c - 2) * p->spc;
}

/* ---- directories ---- */

/* "KERNEL.KIT" -> "KERNEL  KIT"; -1 when not a valid 8.3 name. */
static int to_83(const char *s, lk_size n, lk_u8 out[11])
{
	lk_size i = 0, j = 0;

	lk_memset(out, ' ', 11);
	if (n == 0 || (n <= 2 && s[0] == '.'))
		return -1;
	for (; i < n && s[i] != '.'; i++, j++) {
		if (j >= 8)
			return -1;
		out[j] = (lk_u8)s[i];
	}
	if (i < n) {
		for (i++, j = 8; i < n; i++, j++) {
			if (j >= 11 || s[i] == '.')
				return -1;
			out[j] = (lk_u8)s[i];
		}
	}
	for (j = 0; j < 11; j++) {
		lk_u8 c = out[j];

		if (c >= 'a' && c <= 'z')
			out[j] = (lk_u8)(c - 32);
		else if (c < 0x20 || c == '"' || c == '*' || c == '+' ||
			 c == ',' || c == '/' || c == ':' || c == ';' ||
			 c == '<' || c == '=' || c == '>' || c == '?' ||
			 c == '[' || c == '\\' || c == ']' || c == '|')
			return -1;
	}
	return out[0] == ' ' ? -1 : 0;
}

/* Scans `n` directory entries in buf: 1 found, 0 not here, 2 end mark. */
static int scan_entries(const lk_u8 *buf, lk_u32 n, const lk_u8 name[11],
			struct fat_ent *f, int fat32)
{
	for (lk_u32 i = 0; i < n; i++) {
		const lk_u8 *e = buf + i * DIRENT;

		if (e[0] == 0)
			return 2;
		if (e[0] == 0xe5 || e[11] == 0x0f || (e[11] & 0x08))
			continue;
		if (lk_memcmp(e, name, 11) != 0)
			continue;
		f->attr = e[11];
		f->size = lk_le32(e + 28);
		f->first_cluster = lk_le16(e + 26);
		if (fat32)
			f->first_cluster |= lk_le16(e + 20) << 16;
		return 1;
	}
	return 0;
}

static int lookup_root16(struct lk_fs *fs, const char *path,
			 const lk_u8 name[11], struct fat_ent *f)
{
	const struct fat *p = fs->priv;
	lk_u32 per = p->bps / DIRENT;

	for (lk_u32 s = 0; s < p->root_sectors; s++) {
		int r;

		if (read_secs(fs, p->root_start + s, 1, p->clbuf)) {
			lk_log(fs->h, LK_LOG_ERROR,
			       "%s: cannot read the root directory", path);
			return -1;
		}
		r = scan_entries(p->clbuf, per, name, f, 0);
		if (r)
			return r == 1 ? 1 : 0;
	}
	return 0;
}

/* A directory holds at most 65,536 entries (FAT's own limit): 2 MiB. */
#define FAT_DIR_MAX_BYTES (65536u * DIRENT)

/* 1 found, 0 not found, -1 error. Chains are bounded by the cluster
 * count and by the largest directory FAT allows, so a loop in the FAT
 * ends with an error after at most 2 MiB of reads, not hours of them. */
static int lookup_chain(struct lk_fs *fs, const char *path, lk_u32 c,
			const lk_u8 name[11], struct fat_ent *f)
{
	const struct fat *p = fs->priv;
	lk_u32 per = p->cluster_bytes / DIRENT;
	lk_u32 max = FAT_DIR_MAX_BYTES / p->cluster_bytes + 1;

	for (lk_u32 steps = 0;; steps++) {
		int r;

		if (!cluster_ok(p, c) || steps >= p->nclusters || steps >= max) {
			lk_log(fs->h, LK_LOG_ERROR,
			       "%s: corrupt directory chain at cluster %u",
			       path, c);
			return -1;
		}
		if (read_secs(fs, cluster_sector(p, c), p->spc, p->clbuf)) {
			lk_log(fs->h, LK_LOG_ERROR,
			       "%s: cannot read directory cluster %u", path, c);
			return -1;
		}
		r = scan_entries(p->clbuf, per, name, f, p->type == 32);
		if (r)
			return r == 1 ? 1 : 0;
		r = next_cluster(fs, path, c, &c);
		if (r <= 0)
			return r;
	}
}

/* Looks one component up in dir: 0 with *f, or -1 (one line logged). */
static int lookup_one(struct lk_fs *fs, const char *path, const char *s,
		      lk_size n, const struct fat_ent *dir, struct fat_ent *f)
{
	const struct fat *p = fs->priv;
	lk_u8 name[11];
	int r;

	if (!(dir->attr & FAT_ATTR_DIR)) {
		lk_log(fs->h, LK_LOG_ERROR,
		       "%s: a path component is not a directory", path);
		return -1;
	}
	if (to_83(s, n, name)) {
		lk_log(fs->h, LK_LOG_ERROR, "%s: not a valid 8.3 path", path);
		return -1;
	}
	if (dir->first_cluster == 0 && p->type != 32)
		r = lookup_root16(fs, path, name, f);
	else
		r = lookup_chain(fs, path, dir->first_cluster, name, f);
	if (r == 0)
		lk_log(fs->h, LK_LOG_ERROR, "%s: file not found", path);
	return r == 1 ? 0 : -1;
}

static void fill_file(const struct fat_ent *e, struct lk_file *f)
{
	lk_memset(f, 0, sizeof(*f));
	f->ino = e->first_cluster;
	if (e->attr & FAT_ATTR_DIR) {
		f->mode = FAT_MODE_DIR;
		return;
	}
	f->mode = FAT_MODE_FILE;
	f->size = e->size;
}

static int fat_lookup(struct lk_fs *fs, const char *path, struct lk_file *f)
{
	const struct fat *p = fs->priv;
	struct fat_ent dir = { p->type == 32 ? p->root_cluster : 0, 0,
			       FAT_ATTR_DIR };
	const char *s = path;

	while (*s == '\\' || *s == '/')
		s++;
	while (*s) {
		struct fat_ent next;
		lk_size n = 0;

		while (s[n] && s[n] != '\\' && s[n] != '/')
			n++;
		if (lookup_one(fs, path, s, n, &dir, &next))
			return -1;
		dir = next;
		s += n;
		while (*s == '\\' || *s == '/')
			s++;
	}
	fill_file(&dir, f);
	return 0;
}

/* ---- file contents ---- */

/* Extends the run starting at c over physically consecutive clusters,
 * at most `want` long. Returns the run length; *after gets the cluster
 * after the run (0 at end of chain); -1 on a corrupt chain. */
static lk_i32 cluster_run(struct lk_fs *fs, const char *path, lk_u32 c,
			  lk_u32 want, lk_u32 *after)
{
	lk_u32 len = 1;

	for (;;) {
		lk_u32 nx = 0;
		int r = next_cluster(fs, path, c + len - 1, &nx);

		if (r < 0)
			return -1;
		if (r == 0 || nx != c + len || len >= want) {
			*after = r == 0 ? 0 : nx;
			return (lk_i32)len;
		}
		len++;
	}
}

static int chain_short(struct lk_fs *fs, const char *path, lk_u32 size,
		       lk_u32 c)
{
	lk_log(fs->h, LK_LOG_ERROR,
	       "%s: chain ends before size %u (cluster %u)", path, size, c);
	return -1;
}

/* Follows the chain from *c past `skip` clusters (skip < the file's
 * cluster count, so the walk is bounded by the volume). */
static int skip_clusters(struct lk_fs *fs, const char *path, lk_u32 size,
			 lk_u32 *c, lk_u32 skip)
{
	for (lk_u32 i = 0; i < skip; i++) {
		int r;

		if (!cluster_ok(fs->priv, *c))
			return chain_short(fs, path, size, *c);
		r = next_cluster(fs, path, *c, c);
		if (r < 0)
			return -1;
		if (r == 0)
			*c = 0;
	}
	return 0;
}

/* Copies from the run [c, c + run), starting pos bytes into c, until
 * *left is 0 or the run ends. Whole clusters go straight to *dst; a
 * cluster wanted only in part goes through clbuf. */
static int read_run(struct lk_fs *fs, lk_u32 c, lk_u32 run, lk_u32 pos,
		    lk_u8 **dst, lk_u32 *left)
{
	const struct fat *p = fs->priv;
	lk_u32 cb = p->cluster_bytes;

	while (run && *left) {
		lk_u32 whole = pos ? 0 : *left / cb, n;

		whole = whole < run ? whole : run;
		if (whole) {
			if (read_secs(fs, cluster_sector(p, c), whole * p->spc,
				      *dst))
				return -1;
			n = whole * cb;
		} else {
			if (read_secs(fs, cluster_sector(p, c), p->spc,
				      p->clbuf))
				return -1;
			n = cb - pos < *left ? cb - pos : *left;
			lk_memcpy(*dst, p->clbuf + pos, n);
			whole = 1;
			pos = 0;
		}
		c += whole;
		run -= whole;
		*dst += n;
		*left -= n;
	}
	return 0;
}

/* Checks a read of len bytes at off against the file and the volume. */
static int read_ok(struct lk_fs *fs, const char *path, const struct lk_file *f,
		   lk_u64 off, lk_u64 len)
{
	const struct fat *p = fs->priv;
	lk_u32 cb = p->cluster_bytes, size = (lk_u32)f->size;

	if ((f->mode & LK_S_IFMT) == LK_S_IFDIR) {
		lk_log(fs->h, LK_LOG_ERROR, "%s: is a directory", path);
		return -1;
	}
	if (f->size > 0xffffffffu ||
	    size / cb + (size % cb != 0) > p->nclusters) {
		lk_log(fs->h, LK_LOG_ERROR,
		       "%s: size %llu larger than the volume", path,
		       (unsigned long long)f->size);
		return -1;
	}
	if (off > f->size || len > f->size - off) {
		lk_log(fs->h, LK_LOG_ERROR,
		       "%s: read of %llu bytes at %llu beyond the size %llu",
		       path, (unsigned long long)len, (unsigned long long)off,
		       (unsigned long long)f->size);
		return -1;
	}
	return 0;
}

static int fat_read(struct lk_fs *fs, const char *path, const struct lk_file *f,
		    lk_u64 off, void *buf, lk_u64 len)
{
	const struct fat *p = fs->priv;
	lk_u32 cb = p->cluster_bytes, size = (lk_u32)f->size;
	lk_u32 c = (lk_u32)f->ino, pos, left, need;
	lk_u8 *dst = buf;

	if (read_ok(fs, path, f, off, len))
		return -1;
	if (len == 0)
		return 0;
	/* off + len <= size < 2^32 from here on. */
	if (skip_clusters(fs, path, size, &c, (lk_u32)off / cb))
		return -1;
	pos = (lk_u32)off % cb;
	left = (lk_u32)len;
	need = (pos + left) / cb + ((pos + left) % cb != 0);
	while (left) {
		lk_u32 after = 0;
		lk_i32 run;

		if (!cluster_ok(p, c))
			return chain_short(fs, path, size, c);
		run = cluster_run(fs, path, c, need, &after);
		if (run < 0)
			return -1;
		need -= (lk_u32)run;
		if (read_run(fs, c, (lk_u32)run, pos, &dst, &left)) {
			lk_log(fs->h, LK_LOG_ERROR, "%s: disk read error",
			       path);
			return -1;
		}
		pos = 0;
		c = after;
	}
	/* A chain that goes on past the size is corrupt; a loop always does. */
	if (off + len == size && c != 0) {
		lk_log(fs->h, LK_LOG_ERROR,
		       "%s: corrupt FAT: chain longer than size %u (loop?)",
		       path, size);
		return -1;
	}
	return 0;
}

const struct lk_fs_ops lk_fs_fat = {
	.name = "fat",
	.mount = fat_mount,
	.lookup = fat_lookup,
	.read = fat_read,
	.unmount = fat_unmount,
};
