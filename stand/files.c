/* Whole-file reads from the ESP into the heap. */
#include "stand.h"

void *stand_read_file(struct stand *s, const char *path, lk_u32 *size)
{
	struct fat_file f;
	void *buf;

	if (fat_open(&s->fs, path, &f))
		return LK_NULL;
	buf = s->host.alloc(s->host.ctx, f.size ? f.size : 1);
	if (!buf) {
		lk_log(&s->host, LK_LOG_ERROR, "%s: no memory for %u bytes", path,
		       f.size);
		return LK_NULL;
	}
	if (fat_read(&s->fs, path, &f, buf)) {
		stand_free_file(s, buf, f.size);
		return LK_NULL;
	}
	*size = f.size;
	return buf;
}

void stand_free_file(struct stand *s, void *buf, lk_u32 size)
{
	/* Kits, seeds and configs are secrets or shape the layout. */
	lk_wipe(buf, size ? size : 1);
	s->host.free(s->host.ctx, buf, size ? size : 1);
}
