/* Small hosted helpers for the kit builder: checked allocation, buffers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../linkkit/linkkit.h"
#include "kb.h"

static void die_oom(void)
{
	fputs("linkkit: out of memory\n", stderr);
	exit(1);
}

void *kb_xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p)
		die_oom();
	return p;
}

void *kb_xrealloc(void *p, size_t n, size_t sz)
{
	if (sz && n > SIZE_MAX / sz)
		die_oom();
	p = realloc(p, n && sz ? n * sz : 1);
	if (!p)
		die_oom();
	return p;
}

/* Room for element n of an array grown only through this function: the
 * capacity doubles whenever n reaches a power of two, so appends stay
 * amortised O(1). */
void *kb_xgrow(void *p, size_t n, size_t sz)
{
	if (n == 0 || (n & (n - 1)) == 0)
		p = kb_xrealloc(p, n ? 2 * n : 1, sz);
	return p;
}

char *kb_xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		die_oom();
	return d;
}

static void kb_buf_reserve(struct kb_buf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return;
	while (b->len + n > b->cap)
		b->cap = b->cap ? b->cap * 2 : 4096;
	b->p = kb_xrealloc(b->p, b->cap, 1);
}

/* Appends n bytes (zeros when src is NULL); returns their offset. */
size_t kb_buf_add(struct kb_buf *b, const void *src, size_t n)
{
	size_t off = b->len;

	if (n == 0)
		return off;
	kb_buf_reserve(b, n);
	if (src)
		memcpy(b->p + off, src, n);
	else
		memset(b->p + off, 0, n);
	b->len += n;
	return off;
}

size_t kb_buf_align(struct kb_buf *b, size_t a)
{
	size_t pad = (a - b->len % a) % a;

	kb_buf_add(b, NULL, pad);
	return b->len;
}

char *kb_join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = kb_xcalloc(n, 1);

	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

int kb_is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* A whole file, NUL-terminated, of at most max bytes; NULL if not. */
uint8_t *kb_slurp(const char *path, size_t *len, size_t max)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || (size_t)n > max ||
	    fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return NULL;
	}
	p = kb_xcalloc((size_t)n + 1, 1);
	if (fread(p, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(p);
		return NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return p;
}

void *kb_core_alloc(void *ctx, lk_size size)
{
	(void)ctx;
	return calloc(1, size ? size : 1);
}

void kb_core_free(void *ctx, void *p, lk_size size)
{
	(void)ctx;
	(void)size;
	free(p);
}

static void kb_core_log(void *ctx, int level, const char *msg)
{
	(void)ctx;
	if (level <= LK_LOG_WARN)
		fprintf(stderr, "linkkit: %s\n", msg);
}

const struct lk_host kb_core_host = {
	.alloc = kb_core_alloc,
	.free = kb_core_free,
	.log = kb_core_log,
	.log_level = LK_LOG_WARN,
};

int kb_canonical_link(uint8_t *pl, size_t len, struct lk_link **L)
{
	static const uint8_t zero_seed[32];
	struct lk_rng rng;
	int rc;

	if (lk_link_open(&kb_core_host, pl, len, "kit", L))
		return -1;
	lk_link_set_canonical(*L);
	lk_rng_init(&rng, zero_seed, sizeof(zero_seed));
	rc = lk_link_layout(*L, &rng);
	lk_rng_wipe(&rng);
	if (rc) {
		lk_link_close(*L);
		*L = NULL;
	}
	return rc ? -1 : 0;
}
