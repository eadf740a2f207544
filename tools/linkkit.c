/*
 * The `linkkit` command (docs/linkkit.1): create, info, verify, verify-elf,
 * link, sign.
 * The host side of the core: it feeds kits to the same liblinkkit the boot
 * stages use, so `create` refuses kits the boot side could not link.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "../linkkit/linkkit.h"
#include "kb.h"
#include "lkcli.h"
#include "version.h"

/* ---- the host table ---- */

static struct lkc_capture *capture;

static void h_log(void *ctx, int level, const char *line)
{
	(void)ctx;
	if (capture && level == LK_LOG_DEBUG) {
		capture->lines = kb_xgrow(capture->lines, capture->n, sizeof(char *));
		capture->lines[capture->n++] = kb_xstrdup(line);
		return;
	}
	fprintf(stderr, "linkkit: %s%s\n", level == LK_LOG_WARN ? "warning: " : "", line);
}

static lk_size h_entropy(void *ctx, void *buf, lk_size len)
{
	lk_size got = 0;

	(void)ctx;
	while (got < len) {
		ssize_t r = getrandom((char *)buf + got, len - got, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (lk_size)r;
	}
	return got;
}

struct lk_host lkc_host = {
	.alloc = kb_core_alloc,
	.free = kb_core_free,
	.log = h_log,
	.entropy = h_entropy,
	.log_level = LK_LOG_INFO,
};

void lkc_capture_begin(struct lkc_capture *c)
{
	memset(c, 0, sizeof(*c));
	capture = c;
	lkc_host.log_level = LK_LOG_DEBUG;
}

void lkc_capture_end(struct lkc_capture *c)
{
	(void)c;
	capture = NULL;
	lkc_host.log_level = LK_LOG_INFO;
}

void lkc_capture_free(struct lkc_capture *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->lines[i]);
	free(c->lines);
}

/* ---- files ---- */

int lkc_read_file(const char *path, uint8_t **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;

	*out = NULL;
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "linkkit: %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	*out = kb_xcalloc((size_t)n + 1, 1);
	*len = (size_t)n;
	if (fread(*out, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "linkkit: %s: read error\n", path);
		fclose(f);
		free(*out);
		*out = NULL;
		return -1;
	}
	fclose(f);
	return 0;
}

/* Writes via a temporary file so a failed run leaves no partial output. */
int lkc_write_file(const char *path, const void *p, size_t n)
{
	size_t tl = strlen(path) + 8;
	char *tmp = kb_xcalloc(tl, 1);
	FILE *f;
	int rc = -1;

	snprintf(tmp, tl, "%s.tmp", path);
	f = fopen(tmp, "wb");
	if (f && fwrite(p, 1, n, f) == n && fclose(f) == 0) {
		f = NULL;
		rc = rename(tmp, path);
	}
	if (f)
		fclose(f);
	if (rc) {
		fprintf(stderr, "linkkit: %s: cannot write: %s\n", path, strerror(errno));
		remove(tmp);
	}
	free(tmp);
	return rc;
}

/* Opens, hash-checks and inflates a kit held in memory. */
int lkc_unpack(const char *name, const uint8_t *kit, size_t n, uint8_t **payload,
	       size_t *psize, struct lk_kit *k)
{
	if (lk_kit_open(&lkc_host, kit, n, name, k))
		return -1;
	if (k->payload_size > (1ull << 32)) {
		fprintf(stderr, "linkkit: %s: payload size %llu is too large\n", name,
			(unsigned long long)k->payload_size);
		return -1;
	}
	*psize = (size_t)k->payload_size;
	*payload = kb_xcalloc(*psize ? *psize : 1, 1);
	if (lk_kit_inflate(&lkc_host, k, name, *payload, *psize) ||
	    lk_kit_check_sum(&lkc_host, k, name, *payload)) {
		free(*payload);
		*payload = NULL;
		return -1;
	}
	return 0;
}

/* A complete trial link with a fixed seed, as the boot side would do it. */
int lkc_trial_link(const char *name, const uint8_t *payload, size_t n, uint32_t seed)
{
	struct lk_link *L;
	struct lk_rng rng;
	struct lk_image_info info;
	void *img;
	int rc;

	if (lk_link_open(&lkc_host, payload, n, name, &L))
		return -1;
	lk_rng_init(&rng, &seed, sizeof(seed));
	rc = lk_link_layout(L, &rng);
	if (!rc) {
		lk_link_info(L, &info);
		img = calloc(1, info.load_hi - info.load_lo + 1);
		rc = !img || lk_link_write(L, img, &rng);
		free(img);
	}
	lk_link_close(L);
	lk_rng_wipe(&rng);
	return rc ? -1 : 0;
}

/* Every form, so `linkkit --help` is the whole synopsis of docs/linkkit.1. */
static void usage(FILE *f)
{
	fputs("usage: linkkit create -o OUT.kit -T SCRIPT.ld -P POLICY [--sign KEY] OBJ.o...\n"
	      "       linkkit create -o OUT.kit --openbsd DIR|KERNEL.TGZ[:NAME] [-P POLICY]\n"
	      "                      [--sign KEY]\n"
	      "       linkkit create -o OUT.kit --linux BUILD_DIR [-P POLICY] [--sign KEY]\n"
	      "       linkkit info KIT\n"
	      "       linkkit verify [-p PUBKEY] [--against DIR] KIT\n"
	      "       linkkit verify -p KEY.pub -x FILE.sig FILE\n"
	      "       linkkit verify-elf [-p KEY.pub [-x FILE.sig]] ELF\n"
	      "       linkkit sign -s KEY.sec [-o FILE.sig] FILE\n"
	      "       linkkit link [--seed HEX | --random] [--map FILE] [--print-layout]\n"
	      "                    [--write-parts N] -o OUT.elf KIT\n"
	      "       linkkit --help | -h | --version\n",
	      f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("linkkit (relinkboot) %s\n", RELINKBOOT_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "create"))
		return lkc_create(argc - 1, argv + 1);
	if (!strcmp(argv[1], "info"))
		return lkc_info(argc - 1, argv + 1);
	if (!strcmp(argv[1], "verify"))
		return lkc_verify(argc - 1, argv + 1);
	if (!strcmp(argv[1], "verify-elf"))
		return lkc_verify_elf(argc - 1, argv + 1);
	if (!strcmp(argv[1], "link"))
		return lkc_link(argc - 1, argv + 1);
	if (!strcmp(argv[1], "sign"))
		return lkc_sign_file(argc - 1, argv + 1);
	fprintf(stderr, "linkkit: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
