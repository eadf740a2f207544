/*
 * What a kit was made from (LK_KIT_F_PROV, kit_format.h): the kernel's
 * link directory and, per file the link depends on, its size and SHA-256.
 * The stage compares that with the directory on the root file system
 * before it links, so a kit made before a syspatch never boots again.
 * The record is inside the hashed (and signed) bytes, but it is still
 * checked here as untrusted input: every offset, size and name.
 */
#include "link_internal.h"

#define LK_PROV_ENTRY sizeof(struct lk_kit_prov_entry)
#define LK_PROV_TAIL sizeof(struct lk_kit_provtail)

/* A single path component the stage may append to the directory: one
 * name cannot reach outside it or forge a console line. */
static int lk_prov_name_ok(const char *names, lk_u32 size, lk_u32 off)
{
	lk_size n, i;

	if (off >= size)
		return 0;
	n = lk_strnlen(names + off, size - off);
	if (n == 0 || n > LK_PROV_NAME_MAX || n == size - off)
		return 0;
	if (names[off] == '.' && (n == 1 || (n == 2 && names[off + 1] == '.')))
		return 0;
	for (i = 0; i < n; i++) {
		lk_u8 c = (lk_u8)names[off + i];

		if (c == '/' || c < 0x20 || c == 0x7f)
			return 0;
	}
	return 1;
}

/* The record ending at z + zsize, inside z[0, zsize): the reason it is malformed, or
 * LK_NULL with *out filled and *rec_size its bytes. */
static const char *lk_prov_parse(const lk_u8 *z, lk_u64 zsize,
				 struct lk_prov *out, lk_u64 *rec_size)
{
	struct lk_kit_provtail t;
	struct lk_kit_prov_entry e;
	lk_u64 size;
	lk_u32 i;

	if (zsize < LK_PROV_TAIL)
		return "provenance record truncated";
	lk_memcpy(&t, z + zsize - LK_PROV_TAIL, LK_PROV_TAIL);
	if (t.magic != LK_PROV_MAGIC || t.version != LK_PROV_VERSION ||
	    t.reserved)
		return "provenance record: bad magic or version";
	if (t.count > LK_PROV_MAX_FILES || t.names_size == 0 ||
	    t.names_size > LK_PROV_MAX_NAMES)
		return "provenance record: bad file count or names size";
	size = (lk_u64)t.count * LK_PROV_ENTRY + t.names_size + LK_PROV_TAIL;
	if (size > zsize)
		return "provenance record truncated";
	out->count = t.count;
	out->names_size = t.names_size;
	out->entries = z + zsize - size;
	out->names = (const char *)out->entries + (lk_u64)t.count * LK_PROV_ENTRY;
	if (out->names[t.names_size - 1] != '\0' ||
	    !lk_prov_name_ok(out->names, t.names_size, t.kernel))
		return "provenance record: bad kernel name";
	for (i = 0; i < t.count; i++) {
		lk_memcpy(&e, out->entries + (lk_u64)i * LK_PROV_ENTRY,
			  LK_PROV_ENTRY);
		if (e.reserved || !lk_prov_name_ok(out->names, t.names_size,
						   e.name))
			return "provenance record: bad file name";
	}
	out->kernel = out->names + t.kernel;
	*rec_size = size;
	return LK_NULL;
}

const char *lk_kit_prov_split(struct lk_kit *kit)
{
	struct lk_prov p;
	lk_u64 size;
	const char *why = lk_prov_parse(kit->zdata, kit->zsize, &p, &size);

	if (why)
		return why;
	/* A zlib stream needs 7 bytes at least: header, a block, Adler-32. */
	if (kit->zsize - size < 7)
		return "provenance record truncated";
	kit->zsize -= size;
	kit->prov = kit->zdata + kit->zsize;
	kit->prov_size = size;
	return LK_NULL;
}

int lk_kit_prov_open(const struct lk_host *h, const struct lk_kit *kit,
		     const char *name, struct lk_prov *out)
{
	lk_u64 size;
	const char *why;

	lk_memset(out, 0, sizeof(*out));
	if (!(kit->flags & LK_KIT_F_PROV) || !kit->prov)
		return LK_OK;
	why = lk_prov_parse(kit->prov, kit->prov_size, out, &size);
	if (!why && size != kit->prov_size)
		why = "provenance record: bad size";
	if (why) {
		lk_memset(out, 0, sizeof(*out));
		lk_log(h, LK_LOG_ERROR, "%s: %s", name, why);
		return LK_ERR_FORMAT;
	}
	return LK_OK;
}

void lk_prov_file(const struct lk_prov *p, lk_u32 i, struct lk_prov_file *out)
{
	const lk_u8 *e = p->entries + (lk_u64)i * LK_PROV_ENTRY;
	lk_u32 name;

	lk_memcpy(&out->size, e, 8);
	lk_memcpy(&name, e + 8, 4);
	out->name = p->names + name;
	out->sha256 = e + 16;
}

void lk_prov_hash_begin(struct lk_prov_hash *c)
{
	lk_sha256_init(&c->sha);
	c->size = 0;
}

void lk_prov_hash_update(struct lk_prov_hash *c, const void *p, lk_size n)
{
	lk_sha256_update(&c->sha, p, n);
	c->size += n;
}

int lk_prov_size_check(const struct lk_host *h, const struct lk_prov *p,
		       const char *name, lk_u32 i, lk_u64 size)
{
	struct lk_prov_file f;

	lk_prov_file(p, i, &f);
	if (size == f.size)
		return LK_OK;
	lk_log(h, LK_LOG_ERROR, "%s: stale: made from %s whose %s has "
	       "changed since (size %llu, was %llu)", name, p->kernel, f.name,
	       size, f.size);
	return LK_ERR_HASH;
}

int lk_prov_hash_end(const struct lk_host *h, const struct lk_prov *p,
		     const char *name, lk_u32 i, struct lk_prov_hash *c)
{
	struct lk_prov_file f;
	lk_u8 sum[32];
	int same;

	lk_prov_file(p, i, &f);
	lk_sha256_final(&c->sha, sum);
	same = lk_memcmp(sum, f.sha256, 32) == 0;
	if (c->size != f.size)
		lk_prov_size_check(h, p, name, i, c->size);
	else if (!same)
		lk_log(h, LK_LOG_ERROR, "%s: stale: made from %s whose %s has "
		       "changed since (sha256 differs, same size)", name,
		       p->kernel, f.name);
	same = same && c->size == f.size;
	lk_wipe(c, sizeof(*c));
	return same ? LK_OK : LK_ERR_HASH;
}

int lk_prov_missing(const struct lk_host *h, const struct lk_prov *p,
		    const char *name, lk_u32 i)
{
	struct lk_prov_file f;

	lk_prov_file(p, i, &f);
	lk_log(h, LK_LOG_ERROR, "%s: stale: made from %s whose %s is gone "
	       "(not found)", name, p->kernel, f.name);
	return LK_ERR_HASH;
}

int lk_kit_prov_check(const struct lk_host *h, const struct lk_prov *p,
		      const char *name, lk_prov_read_fn read, void *ctx,
		      struct lk_prov_stats *st)
{
	struct lk_prov_stats none;
	struct lk_prov_hash c;
	struct lk_prov_file f;
	const void *data;
	lk_size size;
	lk_u32 i;
	int rc = LK_OK;

	if (!st)
		st = &none;
	st->bytes = 0;
	st->files = 0;
	for (i = 0; i < p->count && rc == LK_OK; i++) {
		lk_prov_file(p, i, &f);
		data = LK_NULL;
		size = 0;
		rc = read(ctx, f.name, &data, &size);
		st->files++;
		if (rc == LK_PROV_MISSING)
			return lk_prov_missing(h, p, name, i);
		if (rc != LK_OK || (!data && size)) {
			lk_log(h, LK_LOG_ERROR, "%s: cannot tell whether it "
			       "is stale: %s/%s/%s unreadable", name,
			       LK_PROV_DIR, p->kernel, f.name);
			return rc != LK_OK ? rc : LK_ERR_RANGE;
		}
		lk_prov_hash_begin(&c);
		lk_prov_hash_update(&c, data, size);
		st->bytes += size;
		rc = lk_prov_hash_end(h, p, name, i, &c);
	}
	return rc;
}
