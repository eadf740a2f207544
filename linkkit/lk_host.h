/*
 * The one interface between the freestanding core and whatever hosts it
 * (UEFI stage, BIOS stage, host tools, tests). The core never calls anything
 * outside linkkit/ except through this table.
 */
#ifndef LK_HOST_H
#define LK_HOST_H

#include "lk_types.h"

enum lk_log_level {
	LK_LOG_ERROR = 0, /* one line naming the file/object/section/symbol */
	LK_LOG_WARN = 1,
	LK_LOG_INFO = 2,
	LK_LOG_DEBUG = 3, /* may reveal the layout: only when the user asked */
};

struct lk_host {
	void *ctx;
	/* Zero-filled memory aligned to at least 16 bytes, or LK_NULL. */
	void *(*alloc)(void *ctx, lk_size size);
	/* Frees memory from alloc; the core wipes secrets before freeing. */
	void (*free)(void *ctx, void *ptr, lk_size size);
	/* One complete line, without the trailing newline. */
	void (*log)(void *ctx, int level, const char *line);
	/* Fills buf with len bytes of entropy; returns the number of bytes
	 * it believes are truly random (may be less than len). */
	lk_size (*entropy)(void *ctx, void *buf, lk_size len);
	int log_level; /* messages above this level are dropped */
};

#endif
