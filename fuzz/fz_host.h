/*
 * Shared host for the libFuzzer targets: malloc-backed allocator with a
 * cap (a hostile size must fail cleanly, not exhaust the fuzzer's RSS
 * limit), a silent logger that still checks every line is one line, and
 * a deterministic entropy source so crashes reproduce.
 */
#ifndef FZ_HOST_H
#define FZ_HOST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linkkit.h"

/* Large enough for the demo kit's image, small enough for ASan. */
#define FZ_ALLOC_MAX (64u << 20)

static void *fz_alloc(void *ctx, lk_size size)
{
	(void)ctx;
	if (size == 0 || size > FZ_ALLOC_MAX)
		return NULL;
	return calloc(1, size);
}

static void fz_free(void *ctx, void *p, lk_size size)
{
	(void)ctx;
	(void)size;
	free(p);
}

/* A log line with an embedded newline would break the stages' one-line
 * contract; abort so the fuzzer reports it. */
static void fz_log(void *ctx, int level, const char *line)
{
	(void)ctx;
	(void)level;
	if (strchr(line, '\n') || strchr(line, '\r'))
		abort();
	if (getenv("FZ_VERBOSE"))
		fprintf(stderr, "log%d: %s\n", level, line);
}

static lk_size fz_entropy(void *ctx, void *buf, lk_size len)
{
	(void)ctx;
	memset(buf, 0x5a, len);
	return 0;
}

static const struct lk_host fz_host = {
	.ctx = NULL,
	.alloc = fz_alloc,
	.free = fz_free,
	.log = fz_log,
	.entropy = fz_entropy,
	.log_level = LK_LOG_DEBUG,
};

/* Reads a whole file (the base payload of the plan target). */
static inline uint8_t *fz_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n)) &&
	    fread(buf, 1, (size_t)n, f) == (size_t)n) {
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/*
 * Runs an inflated payload through the whole boot-side link: open, layout
 * with a seed taken from the input (so the fuzzer explores layouts too),
 * write into an image buffer, then the ELF view and program headers.
 * The payload is copied to an 8-byte aligned buffer as the stages do.
 */
static inline void fz_link_payload(const uint8_t *data, size_t size,
				   uint32_t seed)
{
	struct lk_link *L = NULL;
	struct lk_rng rng;
	struct lk_image_info info;
	struct lk_elf_view view;
	uint64_t *buf;
	uint8_t *img, phdrs[56 * 16];
	lk_u32 nph;

	buf = malloc(size + 8);
	if (!buf)
		return;
	memcpy(buf, data, size);
	lk_rng_init(&rng, &seed, sizeof(seed));
	if (lk_link_open(&fz_host, buf, size, "fuzz.kit", &L) != LK_OK)
		goto out;
	if (lk_link_layout(L, &rng) != LK_OK)
		goto close;
	lk_link_info(L, &info);
	if (info.load_hi < info.load_lo)
		abort(); /* the layout promised an ordered range */
	if (info.load_hi - info.load_lo <= FZ_ALLOC_MAX) {
		img = malloc(info.load_hi - info.load_lo + 1);
		if (img) {
			lk_link_write(L, img, &rng);
			free(img);
		}
	}
	if (lk_link_elf_size(L, &view) == LK_OK && view.size <= FZ_ALLOC_MAX) {
		uint8_t *eb = malloc(view.size + 1);
		if (eb) {
			lk_link_elf_emit(L, eb, view.size, 0x100000, &view);
			free(eb);
		}
	}
	lk_link_phdrs(L, phdrs, sizeof(phdrs), &nph);
close:
	lk_link_close(L);
out:
	free(buf);
}

#endif
