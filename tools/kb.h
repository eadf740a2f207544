/*
 * Host-side kit builder (`linkkit create`): reads ELF64 x86-64 relocatable
 * objects with libelf, resolves symbols, classifies relocations, compiles
 * the linker script against the input sections and serializes the payload
 * described in linkkit/kit_format.h. Hosted C (libc, libelf, zlib).
 */
#ifndef KB_H
#define KB_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "../linkkit/kit_format.h"
#include "../linkkit/lk_host.h"
#include "ldscript.h"

/* ---- policy.c ---- */
struct kb_gap {
	char *section;
	uint64_t max;
	uint64_t step;
	int fill; /* -1: NOBITS */
	char *sym; /* defined at the start of this gap (OpenBSD's endboot), or NULL */
};
struct kb_policy {
	uint32_t protocol; /* enum lk_protocol */
	int per_section;   /* granularity section */
	char **pins;
	size_t npins;
	struct kb_gap *gaps;
	size_t ngaps;
	char **keep;
	size_t nkeep;
	char **rfill;
	size_t nrfill;
	int lld; /* `linker lld`: segments as ld.lld makes them */
	int sort_linux; /* `sort-tables linux`: LK_PAYLOAD_F_LINUX_SORT */
	int build_id;   /* `build-id`: a .note.gnu.build-id as ld --build-id */
	/* `random-base STEP LIMIT SYMBOL`: the script's first top-level
	 * `. =` moves up by a random multiple of STEP, as far as SYMBOL
	 * stays <= LIMIT in every order (kbbase.c); step 0: none. */
	uint64_t base_step, base_limit;
	char *base_sym;
};
/* Returns 0, or -1 after printing every error as "path:line: msg". */
int kb_policy_parse(const char *path, const char *text, struct kb_policy *p);
void kb_policy_free(struct kb_policy *p);

/* ---- growable byte buffer ---- */
struct kb_buf {
	uint8_t *p;
	size_t len, cap;
};
size_t kb_buf_add(struct kb_buf *b, const void *src, size_t n);
size_t kb_buf_align(struct kb_buf *b, size_t a);
void *kb_xcalloc(size_t n, size_t sz);
void *kb_xrealloc(void *p, size_t n, size_t sz);
void *kb_xgrow(void *p, size_t n, size_t sz);
char *kb_xstrdup(const char *s);
/* dir/name, allocated; whether path is a regular file. */
char *kb_join(const char *dir, const char *name);
int kb_is_file(const char *path);
uint8_t *kb_slurp(const char *path, size_t *len, size_t max);
/* The core's host for the tools' own links (kbksyms.c, kbbase.c):
 * calloc/free, warnings and errors on stderr; the CLI adds to it. */
void *kb_core_alloc(void *ctx, lk_size size);
void kb_core_free(void *ctx, void *p, lk_size size);
extern const struct lk_host kb_core_host;
/* The payload linked in canonical order (no shuffle, gaps or shift): the
 * build's own layout, which kbbase.c and kbksyms.c measure. *L is NULL
 * on failure (one line on stderr), else the caller closes it. */
struct lk_link;
int kb_canonical_link(uint8_t *pl, size_t len, struct lk_link **L);

/* ---- kitbuild.c ---- */
struct kb_options {
	const char *script_path;
	const char *policy_path; /* NULL: policy_text, named "(built-in policy)" */
	const char *policy_text;
	const char **objs;
	size_t nobjs;
	const char **names; /* the objects' names in the kit; NULL: basenames */
	/* create --linux with kallsyms: the build's System.map and the kit
	 * name of the kallsyms object (kbksyms.c); NULL: none. */
	const char *ksyms_map;
	const char *ksyms_obj;
};
/* Builds the (uncompressed) payload. Every problem is printed to stderr as
 * one line naming the object/section/offset/symbol; returns 0 or -1. */
int kb_build_payload(const struct kb_options *o, uint8_t **payload,
		     size_t *size);

/* ---- kbobsd.c: `create --openbsd DIR` ---- */
int kb_obsd_inputs(const char *dir, struct kb_options *o);
void kb_obsd_free(struct kb_options *o);
const char *kb_obsd_default_policy(void);

/* ---- kblinux.c: `create --linux DIR` ---- */
int kb_linux_inputs(const char *dir, struct kb_options *o);
void kb_linux_free(struct kb_options *o);
/* The members of a GNU thin archive, in order (allocated strings). */
int kb_thin_members(const char *path, char ***out, size_t *nout);

/* ---- kbksyms.c: the ksyms table, appended to a serialized payload ---- */
int kb_ksyms_attach(struct kb_buf *buf, struct lk_payload_header *h, const char *map_path,
		    const char *obj);

/* ---- kbserial.c ---- */
/* Drops the strings no table names any more from a serialized payload's
 * strtab (renumbering every name) and moves the tables after it up. */
int kb_strtab_compact(struct kb_buf *buf, struct lk_payload_header *h);

/* ---- kbtar.c: `create --openbsd kernel.tgz[:NAME]` ---- */
int kb_is_tarball(const char *path);
int kb_tarball_extract(const char *arg, char **dir);
/* The kernel's name (its directory in the archive) after an extract. */
const char *kb_tarball_kernel(void);
void kb_tarball_cleanup(char *dir);

/* ---- kitwrite.c ---- */
/* Compresses the payload (zlib level 9) and wraps it in the kit header;
 * prov (prov_len bytes, or NULL) is the LK_KIT_F_PROV record. */
int kb_wrap_kit(const uint8_t *payload, size_t size, const uint8_t *prov,
		size_t prov_len, uint8_t **kit, size_t *kit_size);

#endif
