/* Read-only FAT12/16/32 reader; see fat.h for the contract. */
#include "fat.h"
#include "../linkkit/linkkit.h"
#include "../linkkit/disklabel.h"

#define FAT_NO_SECTOR 0xffffffffu
#define DIRENT 32u
#define MAX_GPT_ENTRIES 1024u

static lk_u16 rd16(const lk_u8 *p)
{
	return (lk_u16)(p[0] | p[1] << 8);
}

static lk_u32 rd32(const lk_u8 *p)
{
	return p[0] | p[1] << 8 | (lk_u32)p[2] << 16 | (lk_u32)p[3] << 24;
}

static lk_u64 rd64(const lk_u8 *p)
{
	return rd32(p) | (lk_u64)rd32(p + 4) << 32;
}

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

static int dev_read(const struct fat_dev *d, lk_u64 lba, lk_u32 n, void *buf)
{
	if (d->sectors && (lba >= d->sectors || n > d->sectors - lba))
		return -1;
	return d->read(d->ctx, lba, n, buf);
}

/* ---- partition tables ---- */

static const lk_u8 esp_guid[16] = {
	0x28, 0x73, 0x2a, 0xc1, 0x1f, 0xf8, 0xd2, 0x11,
	0xba, 0x4b, 0x00, 0xa0, 0xc9, 0x3e, 0xc9, 0x3b,
};

static int gpt_header_ok(const struct lk_host *h, lk_u8 *sec)
{
	lk_u32 hsize = rd32(sec + 12), want = rd32(sec + 16);
	lk_u32 got;

	if (hsize < 92 || hsize > 512) {
		lk_log(h, LK_LOG_ERROR, "GPT: bad header (size %u)", hsize);
		return 0;
	}
	lk_memset(sec + 16, 0, 4);
	got = lk_dl_crc32(0, sec, hsize);
	if (got != want) {
		lk_log(h, LK_LOG_ERROR, "GPT: bad header (CRC %08x, expected %08x)",
		       got, want);
		return 0;
	}
	return 1;
}

/* Returns 1 found, 0 no GPT/no ESP, -1 corrupt GPT. Reads every entry:
 * the array's CRC must match before any of them is believed. */
static int gpt_find(const struct lk_host *h, const struct fat_dev *d,
		    lk_u8 *sec, lk_u64 *lba, lk_u64 *count)
{
	lk_u64 tab, first = 0, last = 0;
	lk_u32 n, esz, want, crc = 0, found = 0xffffffffu, per;

	if (dev_read(d, 1, 1, sec) || lk_memcmp(sec, "EFI PART", 8) != 0)
		return 0;
	if (!gpt_header_ok(h, sec))
		return -1;
	tab = rd64(sec + 72);
	n = rd32(sec + 80);
	esz = rd32(sec + 84);
	want = rd32(sec + 88);
	/* Entries must tile a 512-byte sector so none straddles two. */
	if (esz < 128 || esz > 512 || !is_pow2(esz) || n > MAX_GPT_ENTRIES ||
	    tab < 2) {
		lk_log(h, LK_LOG_ERROR, "GPT: bad header (entries %u x %u at LBA %llu)",
		       n, esz, (unsigned long long)tab);
		return -1;
	}
	per = 512 / esz;
	for (lk_u32 i = 0; i < n; i++) {
		const lk_u8 *e;

		if (i % per == 0 && dev_read(d, tab + i / per, 1, sec)) {
			lk_log(h, LK_LOG_ERROR, "GPT: cannot read entries at LBA %llu",
			       (unsigned long long)(tab + i / per));
			return -1;
		}
		e = sec + (i % per) * esz;
		crc = lk_dl_crc32(crc, e, esz);
		if (found != 0xffffffffu || lk_memcmp(e, esp_guid, 16) != 0)
			continue;
		found = i;
		first = rd64(e + 32);
		last = rd64(e + 40);
	}
	if (crc != want) {
		lk_log(h, LK_LOG_ERROR, "GPT: partition entries CRC %08x, expected %08x",
		       crc, want);
		return -1;
	}
	if (found == 0xffffffffu)
		return 0;
	if (first < 2 || last < first || (d->sectors && last >= d->sectors)) {
		lk_log(h, LK_LOG_ERROR, "GPT: ESP entry %u has bad range %llu..%llu",
		       found, (unsigned long long)first, (unsigned long long)last);
		return -1;
	}
	*lba = first;
	*count = last - first + 1;
	return 1;
}

static int mbr_find(const struct fat_dev *d, lk_u8 *sec, lk_u64 *lba,
		    lk_u64 *count)
{
	static const lk_u8 fat_types[] = {0xef, 0x01, 0x04, 0x06, 0x0b, 0x0c, 0x0e};

	if (dev_read(d, 0, 1, sec) || sec[510] != 0x55 || sec[511] != 0xaa)
		return 0;
	for (lk_u32 t = 0; t < sizeof(fat_types); t++) {
		for (lk_u32 i = 0; i < 4; i++) {
			const lk_u8 *e = sec + 0x1be + 16 * i;
			lk_u32 start = rd32(e + 8), n = rd32(e + 12);

			if (e[4] != fat_types[t] || start == 0 || n == 0)
				continue;
			if (d->sectors && ((lk_u64)start + n > d->sectors))
				continue;
			*lba = start;
			*count = n;
			return 1;
		}
	}
	return 0;
}

int fat_find_esp(const struct lk_host *h, const struct fat_dev *d,
		 lk_u64 *lba, lk_u64 *count)
{
	lk_u8 sec[512];
	int r = gpt_find(h, d, sec, lba, count);

	if (r == 0)
		r = mbr_find(d, sec, lba, count);
	if (r == 0)
		lk_log(h, LK_LOG_ERROR, "ESP: no EFI system partition in the GPT or MBR");
	lk_wipe(sec, sizeof(sec));
	return r == 1 ? 0 : -1;
}

/* ---- boot sector ---- */

struct bpb {
	lk_u32 bps, spc, reserved, nfats, root_ents, total, fatsz, root_cl;
	lk_u32 ext_flags; /* FAT32: bit 7 = only FAT number (bits 0-3) is live */
};

static void bpb_parse(const lk_u8 *s, struct bpb *b)
{
	b->bps = rd16(s + 11);
	b->spc = s[13];
	b->reserved = rd16(s + 14);
	b->nfats = s[16];
	b->root_ents = rd16(s + 17);
	b->total = rd16(s + 19) ? rd16(s + 19) : rd32(s + 32);
	b->fatsz = rd16(s + 22) ? rd16(s + 22) : rd32(s + 36);
	b->root_cl = rd32(s + 44);
	b->ext_flags = rd16(s + 40);
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

/* Computes the layout; 0 or -1 when the numbers do not add up. */
static int fat_layout(struct fat_fs *fs, const struct bpb *b)
{
	/* u32 on purpose: 64-bit division needs libgcc on i386. */
	lk_u32 root_secs = (b->root_ents * DIRENT + b->bps - 1) / b->bps;
	lk_u64 meta = b->reserved + (lk_u64)b->nfats * b->fatsz + root_secs;
	lk_u32 width_x2;

	if (b->total <= meta)
		return -1;
	fs->bps = b->bps;
	fs->bps_shift = log2u(b->bps / 512);
	fs->spc = b->spc;
	fs->cluster_bytes = b->spc * b->bps;
	fs->fat_start = b->reserved;
	fs->fat_bytes = b->fatsz * b->bps;
	if ((lk_u64)b->fatsz * b->bps > 0xffffffffu)
		return -1;
	fs->root_start = (lk_u32)(b->reserved + (lk_u64)b->nfats * b->fatsz);
	fs->root_sectors = (lk_u32)root_secs;
	fs->data_start = (lk_u32)meta;
	fs->nclusters = (b->total - (lk_u32)meta) >> log2u(b->spc);
	fs->type = fs->nclusters < 4085 ? 12 : fs->nclusters < 65525 ? 16 : 32;
	if (fs->nclusters == 0 || fs->nclusters > 0x0ffffff5u)
		return -1;
	if (fs->type == 32) {
		if (b->root_ents != 0 || b->root_cl < 2 ||
		    b->root_cl >= fs->nclusters + 2)
			return -1;
		fs->root_cluster = b->root_cl;
		if (b->ext_flags & 0x80) {
			if ((b->ext_flags & 0xf) >= b->nfats)
				return -1;
			fs->fat_start += (b->ext_flags & 0xf) * b->fatsz;
		}
	} else if (b->root_ents == 0) {
		return -1;
	}
	/* Every cluster must have a FAT entry. */
	width_x2 = fs->type == 12 ? 3 : fs->type == 16 ? 4 : 8;
	if (((lk_u64)fs->nclusters + 2) * width_x2 > (lk_u64)fs->fat_bytes * 2)
		return -1;
	return 0;
}

int fat_mount(const struct lk_host *h, const struct fat_dev *d, lk_u64 lba,
	      lk_u64 count, struct fat_fs *fs)
{
	lk_u8 sec[512];
	struct bpb b;

	lk_memset(fs, 0, sizeof(*fs));
	fs->h = h;
	fs->dev = *d;
	fs->part_lba = lba;
	fs->cached = FAT_NO_SECTOR;
	if (dev_read(d, lba, 1, sec)) {
		lk_log(h, LK_LOG_ERROR, "ESP: cannot read the boot sector at LBA %llu",
		       (unsigned long long)lba);
		return -1;
	}
	bpb_parse(sec, &b);
	if (!bpb_basic_ok(sec, &b, count) || fat_layout(fs, &b)) {
		lk_log(h, LK_LOG_ERROR, "ESP: bad FAT boot sector at LBA %llu",
		       (unsigned long long)lba);
		return -1;
	}
	fs->secbuf = h->alloc(h->ctx, fs->bps);
	fs->clbuf = h->alloc(h->ctx, fs->cluster_bytes);
	if (!fs->secbuf || !fs->clbuf) {
		lk_log(h, LK_LOG_ERROR, "ESP: out of memory for FAT buffers");
		fat_unmount(fs);
		return -1;
	}
	return 0;
}

void fat_unmount(struct fat_fs *fs)
{
	const struct lk_host *h = fs->h;

	/* The buffers held file data (config, seed): wipe before freeing. */
	if (fs->secbuf) {
		lk_wipe(fs->secbuf, fs->bps);
		h->free(h->ctx, fs->secbuf, fs->bps);
	}
	if (fs->clbuf) {
		lk_wipe(fs->clbuf, fs->cluster_bytes);
		h->free(h->ctx, fs->clbuf, fs->cluster_bytes);
	}
	fs->secbuf = fs->clbuf = LK_NULL;
}

/* ---- sectors, FAT entries, clusters ---- */

static int read_secs(struct fat_fs *fs, lk_u32 sec, lk_u32 n, void *buf)
{
	lk_u64 lba = fs->part_lba + ((lk_u64)sec << fs->bps_shift);

	return dev_read(&fs->dev, lba, n << fs->bps_shift, buf);
}

static int fat_byte(struct fat_fs *fs, lk_u32 off, lk_u8 *out)
{
	lk_u32 sec = fs->fat_start + (off >> (fs->bps_shift + 9));

	if (off >= fs->fat_bytes)
		return -1;
	if (sec != fs->cached) {
		fs->cached = FAT_NO_SECTOR;
		if (read_secs(fs, sec, 1, fs->secbuf))
			return -1;
		fs->cached = sec;
	}
	*out = fs->secbuf[off & (fs->bps - 1)];
	return 0;
}

static int fat_entry(struct fat_fs *fs, lk_u32 c, lk_u32 *val)
{
	lk_u32 width = fs->type == 12 ? 2 : fs->type / 8;
	lk_u32 off = fs->type == 12 ? c + c / 2 : c * width;
	lk_u8 b[4] = {0};

	for (lk_u32 i = 0; i < width; i++)
		if (fat_byte(fs, off + i, &b[i]))
			return -1;
	*val = rd32(b);
	if (fs->type == 12)
		*val = (c & 1) ? (*val & 0xffff) >> 4 : *val & 0xfff;
	else if (fs->type == 32)
		*val &= 0x0fffffff;
	return 0;
}

static int cluster_ok(const struct fat_fs *fs, lk_u32 c)
{
	return c >= 2 && c - 2 < fs->nclusters;
}

static int is_eoc(const struct fat_fs *fs, lk_u32 v)
{
	lk_u32 eoc = fs->type == 12 ? 0xff8 : fs->type == 16 ? 0xfff8 : 0x0ffffff8;

	return v >= eoc;
}

/* Next cluster: 1 with *next set, 0 at end of chain, -1 corrupt. */
static int next_cluster(struct fat_fs *fs, const char *path, lk_u32 c,
			lk_u32 *next)
{
	lk_u32 v;

	if (fat_entry(fs, c, &v)) {
		lk_log(fs->h, LK_LOG_ERROR, "%s: cannot read the FAT entry of cluster %u",
		       path, c);
		return -1;
	}
	if (is_eoc(fs, v))
		return 0;
	if (!cluster_ok(fs, v)) {
		lk_log(fs->h, LK_LOG_ERROR, "%s: corrupt FAT: cluster %u links to %u",
		       path, c, v);
		return -1;
	}
	*next = v;
	return 1;
}

static lk_u32 cluster_sector(const struct fat_fs *fs, lk_u32 c)
{
	return fs->data_start + (c - 2) * fs->spc;
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
			struct fat_file *f, int fat32)
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
		f->size = rd32(e + 28);
		f->first_cluster = rd16(e + 26);
		if (fat32)
			f->first_cluster |= (lk_u32)rd16(e + 20) << 16;
		return 1;
	}
	return 0;
}

static int lookup_root16(struct fat_fs *fs, const char *path,
			 const lk_u8 name[11], struct fat_file *f)
{
	lk_u32 per = fs->bps / DIRENT;

	for (lk_u32 s = 0; s < fs->root_sectors; s++) {
		int r;

		if (read_secs(fs, fs->root_start + s, 1, fs->clbuf)) {
			lk_log(fs->h, LK_LOG_ERROR, "%s: cannot read the root directory",
			       path);
			return -1;
		}
		r = scan_entries(fs->clbuf, per, name, f, 0);
		if (r)
			return r == 1 ? 1 : 0;
	}
	return 0;
}

/* 1 found, 0 not found, -1 error. Chains are bounded by the cluster
 * count, so a FAT loop ends with an error instead of a hang. */
static int lookup_chain(struct fat_fs *fs, const char *path, lk_u32 c,
			const lk_u8 name[11], struct fat_file *f)
{
	lk_u32 per = fs->cluster_bytes / DIRENT;

	for (lk_u32 steps = 0;; steps++) {
		int r;

		if (!cluster_ok(fs, c) || steps >= fs->nclusters) {
			lk_log(fs->h, LK_LOG_ERROR, "%s: corrupt directory chain at cluster %u",
			       path, c);
			return -1;
		}
		if (read_secs(fs, cluster_sector(fs, c), fs->spc, fs->clbuf)) {
			lk_log(fs->h, LK_LOG_ERROR, "%s: cannot read directory cluster %u",
			       path, c);
			return -1;
		}
		r = scan_entries(fs->clbuf, per, name, f, fs->type == 32);
		if (r)
			return r == 1 ? 1 : 0;
		r = next_cluster(fs, path, c, &c);
		if (r <= 0)
			return r;
	}
}

int fat_open(struct fat_fs *fs, const char *path, struct fat_file *f)
{
	const char *p = path;
	struct fat_file dir = {fs->type == 32 ? fs->root_cluster : 0, 0,
			       FAT_ATTR_DIR};

	while (*p == '\\' || *p == '/')
		p++;
	while (*p) {
		lk_size n = 0;
		lk_u8 name[11];
		int r;

		while (p[n] && p[n] != '\\' && p[n] != '/')
			n++;
		if (!(dir.attr & FAT_ATTR_DIR)) {
			lk_log(fs->h, LK_LOG_ERROR, "%s: a path component is not a directory", path);
			return -1;
		}
		if (to_83(p, n, name)) {
			lk_log(fs->h, LK_LOG_ERROR, "%s: not a valid 8.3 path", path);
			return -1;
		}
		if (dir.first_cluster == 0 && fs->type != 32)
			r = lookup_root16(fs, path, name, f);
		else
			r = lookup_chain(fs, path, dir.first_cluster, name, f);
		if (r < 0)
			return -1;
		if (r == 0) {
			lk_log(fs->h, LK_LOG_ERROR, "%s: file not found", path);
			return -1;
		}
		dir = *f;
		p += n;
		while (*p == '\\' || *p == '/')
			p++;
	}
	if (p == path || dir.attr & FAT_ATTR_DIR) {
		lk_log(fs->h, LK_LOG_ERROR, "%s: is a directory", path);
		return -1;
	}
	return 0;
}

/* ---- file contents ---- */

/* Extends the run starting at c over physically consecutive clusters,
 * at most `want` long. Returns the run length; *after gets the cluster
 * after the run (0 at end of chain); -1 on a corrupt chain. */
static lk_i32 cluster_run(struct fat_fs *fs, const char *path, lk_u32 c,
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

int fat_read(struct fat_fs *fs, const char *path, const struct fat_file *f,
	     void *buf)
{
	lk_u8 *dst = buf;
	lk_u32 left = f->size, c = f->first_cluster;
	lk_u32 cb = fs->cluster_bytes;
	lk_u32 need = f->size / cb + (f->size % cb != 0);

	if (need > fs->nclusters) {
		lk_log(fs->h, LK_LOG_ERROR, "%s: size %u larger than the volume",
		       path, f->size);
		return -1;
	}
	while (left) {
		lk_u32 after = 0, whole;
		lk_i32 run;

		if (!cluster_ok(fs, c)) {
			lk_log(fs->h, LK_LOG_ERROR, "%s: chain ends before size %u (cluster %u)",
			       path, f->size, c);
			return -1;
		}
		run = cluster_run(fs, path, c, need, &after);
		if (run < 0)
			return -1;
		need -= (lk_u32)run;
		whole = left / cb < (lk_u32)run ? left / cb : (lk_u32)run;
		if (whole && read_secs(fs, cluster_sector(fs, c), whole * fs->spc, dst))
			goto io_error;
		dst += whole * cb;
		left -= whole * cb;
		if (left && whole < (lk_u32)run) {
			/* The tail shorter than a cluster goes through clbuf. */
			if (read_secs(fs, cluster_sector(fs, c + whole), fs->spc,
				      fs->clbuf))
				goto io_error;
			lk_memcpy(dst, fs->clbuf, left);
			left = 0;
		}
		c = after;
	}
	/* A chain that goes on past the size is corrupt; a loop always does. */
	if (f->size && c != 0) {
		lk_log(fs->h, LK_LOG_ERROR,
		       "%s: corrupt FAT: chain longer than size %u (loop?)", path,
		       f->size);
		return -1;
	}
	return 0;
io_error:
	lk_log(fs->h, LK_LOG_ERROR, "%s: disk read error", path);
	return -1;
}
