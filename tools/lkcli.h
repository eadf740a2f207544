/* Shared by the `linkkit` subcommands (tools/linkkit.c, tools/lkcmd*.c). */
#ifndef LKCLI_H
#define LKCLI_H

#include <stddef.h>
#include <stdint.h>

#include "../linkkit/linkkit.h"

extern struct lk_host lkc_host;

/* Collects LK_LOG_DEBUG lines (the layout dump) instead of printing them. */
struct lkc_capture {
	char **lines;
	size_t n;
};
void lkc_capture_begin(struct lkc_capture *c);
void lkc_capture_end(struct lkc_capture *c);
void lkc_capture_free(struct lkc_capture *c);

int lkc_read_file(const char *path, uint8_t **out, size_t *len);
int lkc_write_file(const char *path, const void *p, size_t n);
int lkc_unpack(const char *name, const uint8_t *kit, size_t n, uint8_t **payload,
	       size_t *psize, struct lk_kit *k);
int lkc_trial_link(const char *name, const uint8_t *payload, size_t n, uint32_t seed);

/* lksign.c: signify signatures over the kit header (the trailer). */
int lkc_sign(const char *key, uint8_t **kit, size_t *ksize);
int lkc_check_sig(const char *pub, const char *name, const uint8_t *kit, size_t ksize,
		  const struct lk_kit *k);
/* A signify signature file (text) for msg, made with our Ed25519. */
int lkc_sign_buf(const char *key, const void *msg, size_t len, char **out, size_t *olen);
int lkc_load_pubkey(const char *pub, struct lk_pubkey *pk);
/* `linkkit sign` and `linkkit verify -x`: detached signatures of any file. */
int lkc_sign_file(int argc, char **argv);
int lkc_verify_detached(const char *pub, const char *sigpath, const char *path);

/* lkprov.c: what a kit was made from (LK_KIT_F_PROV). */
struct kb_options;
int lkc_prov_build(const struct kb_options *o, const char *dir, const char *kernel,
		   uint8_t **rec, size_t *len);
int lkc_prov_against(const char *path, const struct lk_kit *k, const char *dir);
void lkc_prov_info(const char *path, const struct lk_kit *k);

int lkc_create(int argc, char **argv);
int lkc_info(int argc, char **argv);
int lkc_verify(int argc, char **argv);
int lkc_link(int argc, char **argv);
/* lkelf.c: `linkkit verify-elf`, the stages' checks of a fallback kernel. */
int lkc_verify_elf(int argc, char **argv);

#endif
