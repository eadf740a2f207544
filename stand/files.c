/* Whole-file reads from the ESP into the heap, and the big buffers. */
#include "stand.h"

/* The i386 stage addresses 32 bits; nothing it loads comes near 2 GiB. */
#define STAND_BIG_MAX 0x7fffffffu

void *stand_alloc_big(struct lk_boot *b, lk_u64 size, int secret)
{
	(void)secret; /* every heap buffer is wiped when freed */
	if (size > STAND_BIG_MAX)
		return LK_NULL;
	return b->host.alloc(b->host.ctx, size ? (lk_size)size : 1);
}

void stand_free_big(struct lk_boot *b, void *p, lk_u64 size)
{
	lk_size n = size ? (lk_size)size : 1;

	/* Kits, seeds and configs are secrets or shape the layout. */
	lk_wipe(p, n);
	b->host.free(b->host.ctx, p, n);
}

int stand_read_file(struct lk_boot *b, const char *path, int secret,
		    void **data, lk_u64 *size)
{
	struct stand *s = stand_of(b);
	struct lk_file f;
	void *buf;

	if (s->fs.ops->lookup(&s->fs, path, &f))
		return -1;
	buf = stand_alloc_big(b, f.size, secret);
	if (!buf) {
		lk_log(&b->host, LK_LOG_ERROR, "%s: no memory for %llu bytes",
		       path, (unsigned long long)f.size);
		return -1;
	}
	if (s->fs.ops->read(&s->fs, path, &f, 0, buf, f.size)) {
		stand_free_big(b, buf, f.size);
		return -1;
	}
	*data = buf;
	*size = f.size;
	return 0;
}
