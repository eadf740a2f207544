/*
 * A stale kit never boots. After syspatch, OpenBSD replaces objects in
 * /usr/share/relink/kernel/NAME and relinks /bsd; a kit made before
 * still links the old kernel. The kit records, per input file, its size
 * and SHA-256 (linkkit/kit_prov.c); before anything is linked, every
 * file is read from the root and hashed (streamed: no file is held
 * whole). Any difference refuses the kit with one line naming the first
 * file that differs, and the fallback is then the root's /bsd, which
 * reorder_kernel keeps fresh.
 */
#include "boot.h"

#define LK_STALE_CHUNK (256u * 1024)

static int lk_stale_warn(struct lk_boot *b, const char *why)
{
	lk_boot_print(b, "warning: %s: cannot tell whether it is stale: %s",
		      b->cfg.kit, why);
	return 0;
}

/* One recorded file, streamed from the root through the hash. */
static int lk_stale_file(struct lk_boot *b, const struct lk_prov *p,
			 lk_u32 i, char *path, lk_size cap, void *buf,
			 lk_u64 *bytes)
{
	struct lk_fs *fs = &b->root.fs;
	struct lk_prov_file pf;
	struct lk_prov_hash h;
	struct lk_file f;
	lk_u64 off;

	lk_prov_file(p, i, &pf);
	lk_snprintf(path, cap, "%s/%s/%s", LK_PROV_DIR, p->kernel, pf.name);
	if (fs->ops->lookup(fs, path, &f)) {
		/* Gone, or a file system the check cannot trust: both mean
		 * the kit does not match what is there. */
		b->reason[0] = 0;
		return lk_prov_missing(&b->host, p, b->cfg.kit, i);
	}
	/* The inode's size, not the bytes: a file of 2^47 bytes of holes
	 * would be read for a day before its hash could differ. */
	if (lk_prov_size_check(&b->host, p, b->cfg.kit, i, f.size))
		return -1;
	lk_prov_hash_begin(&h);
	for (off = 0; off < f.size; off += LK_STALE_CHUNK) {
		lk_u64 n = f.size - off < LK_STALE_CHUNK ? f.size - off
							 : LK_STALE_CHUNK;
		if (fs->ops->read(fs, path, &f, off, buf, n))
			return -1;
		lk_prov_hash_update(&h, buf, (lk_size)n);
	}
	*bytes += f.size;
	return lk_prov_hash_end(&b->host, p, b->cfg.kit, i, &h);
}

static int lk_stale_check(struct lk_boot *b, const struct lk_prov *p)
{
	char path[LK_CFG_PATH_MAX + 160];
	lk_u64 bytes = 0;
	void *buf = b->ops->alloc_big(b, LK_STALE_CHUNK, 0);
	lk_u32 i;
	int rc = 0;

	if (!buf) {
		lk_boot_fail(b, "%s: no memory to check whether it is stale",
			     b->cfg.kit);
		return -1;
	}
	for (i = 0; i < p->count && rc == 0; i++)
		rc = lk_stale_file(b, p, i, path, sizeof(path), buf, &bytes);
	b->ops->free_big(b, buf, LK_STALE_CHUNK);
	if (b->cfg.verbose >= 1)
		lk_boot_print(b, "stale check: %u files, %llu bytes of %s",
			      i, bytes, p->kernel);
	return rc ? -1 : 0;
}

int lk_boot_kit_fresh(struct lk_boot *b, const struct lk_kit *kit)
{
	struct lk_prov p;

	if (lk_kit_prov_open(&b->host, kit, b->cfg.kit, &p))
		return -1;
	if (!p.kernel)
		return lk_stale_warn(b, "it has no record of what it was made "
					"from");
	if (lk_boot_root_open(b)) {
		char why[LK_BOOT_REASON_MAX + 32];

		lk_snprintf(why, sizeof(why), "no OpenBSD root (%s)",
			    b->root.why);
		return lk_stale_warn(b, why);
	}
	if (lk_stale_check(b, &p)) {
		b->stale = 1;
		return -1;
	}
	lk_boot_phase(b, "stale-check");
	return 0;
}
