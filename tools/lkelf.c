/*
 * `linkkit verify-elf`: checks a prelinked fallback kernel with the code a
 * stage runs before it loads one (lk_elf_check, and lk_sig_check for its
 * detached signature), so relinkboot-install can refuse what the stage
 * would refuse instead of finding out at the next boot.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "lkcli.h"
#include "../linkkit/proto/linux.h"

static const char *mb2_note(const struct lk_elf_image *img)
{
	return img->protocol == LK_PROTO_MULTIBOOT2 ? "Multiboot2 header"
						    : "no Multiboot2 header";
}

/* The signature file defaults to the one the stage would look for: the
 * ELF's name with its extension replaced by .SIG. */
static int check_sig(const char *pub, const char *sig, const char *path,
		     const uint8_t *elf, size_t n)
{
	struct lk_pubkey pk;
	char def[4096];
	uint8_t *s;
	size_t slen;
	int rc;

	if (!sig && lk_sig_path(path, def, sizeof(def))) {
		fprintf(stderr, "linkkit: %s: path too long\n", path);
		return -1;
	}
	if (lkc_load_pubkey(pub, &pk) || lkc_read_file(sig ? sig : def, &s, &slen))
		return -1;
	rc = lk_sig_check(&lkc_host, &pk, path, elf, n, s, slen);
	free(s);
	return rc;
}

/* The stage inflates a gzip'd fallback (a bsd.rd, a vmlinux.gz) before
 * it checks anything, signature included: so does this. */
static int gunzip_file(const char *path, uint8_t **data, size_t *n)
{
	size_t cap = 1 << 20, used = 0;
	uint8_t *buf = malloc(cap), *p;
	gzFile gz = gzopen(path, "rb");
	int got = 1, end = Z_OK;

	while (buf && gz && got > 0) {
		if (used == cap) {
			p = cap < (1u << 30) ? realloc(buf, cap * 2) : NULL;
			if (!p)
				break;
			buf = p;
			cap *= 2;
		}
		got = gzread(gz, buf + used, (unsigned)(cap - used));
		used += got > 0 ? (size_t)got : 0;
	}
	/* gzclose tells a stream cut short (Z_BUF_ERROR) from a whole one. */
	if (gz)
		end = gzclose(gz);
	if (!buf || !gz || got != 0 || end != Z_OK) {
		fprintf(stderr, "linkkit: %s: %s\n", path,
			buf ? "bad or too large gzip data" : "out of memory");
		free(buf);
		return -1;
	}
	free(*data);
	*data = buf;
	*n = used;
	return 0;
}

/* A Linux fallback (bzImage or vmlinux): the stage picks it by content,
 * so the check is the stage's own lk_linux_check. */
static int check_linux(const char *path, const uint8_t *data, size_t n,
		       const char *pub)
{
	struct lk_linux_image img;

	if (lk_linux_check(&lkc_host, data, n, path, &img))
		return -1;
	printf("%s: ok (fallback kernel: Linux %s, %s at 0x%llx, %llu bytes "
	       "in memory%s)\n",
	       path, img.kind == LK_LINUX_BZIMAGE ? "bzImage" : "vmlinux",
	       img.relocatable ? "relocatable, preferred" : "fixed",
	       (unsigned long long)img.pref, (unsigned long long)img.mem,
	       pub ? ", signature verified" : "");
	return 0;
}

int lkc_verify_elf(int argc, char **argv)
{
	const char *pub = NULL, *sig = NULL, *path = NULL;
	struct lk_elf_image img;
	uint8_t *elf;
	size_t n;
	int rc, bad = 0;

	for (int i = 1; i < argc && !bad; i++) {
		if (!strcmp(argv[i], "-p") && i + 1 < argc)
			pub = argv[++i];
		else if (!strcmp(argv[i], "-x") && i + 1 < argc)
			sig = argv[++i];
		else if (argv[i][0] != '-' && !path)
			path = argv[i];
		else
			bad = 1;
	}
	if (bad || !path || (sig && !pub)) {
		fprintf(stderr, "linkkit: verify-elf: usage: linkkit verify-elf "
				"[-p KEY.pub [-x FILE.sig]] ELF\n");
		return 1;
	}
	if (lkc_read_file(path, &elf, &n))
		return 1;
	if (n >= 2 && elf[0] == 0x1f && elf[1] == 0x8b &&
	    gunzip_file(path, &elf, &n))
		return 1;
	if (lk_linux_sniff(elf, n) != LK_LINUX_NONE) {
		rc = (pub && check_sig(pub, sig, path, elf, n)) ||
		     check_linux(path, elf, n, pub);
		free(elf);
		return rc ? 1 : 0;
	}
	rc = lk_elf_check(&lkc_host, elf, n, path, &img) ||
	     (pub && check_sig(pub, sig, path, elf, n));
	free(elf);
	if (rc)
		return 1;
	printf("%s: ok (fallback kernel: %s, entry 0x%llx, load 0x%llx-0x%llx%s)\n", path,
	       mb2_note(&img), (unsigned long long)img.entry_lma,
	       (unsigned long long)img.load_lo, (unsigned long long)img.load_hi,
	       pub ? ", signature verified" : "");
	return 0;
}
