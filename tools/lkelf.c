/*
 * `linkkit verify-elf`: checks a prelinked fallback kernel with the code a
 * stage runs before it loads one (lk_elf_check, and lk_sig_check for its
 * detached signature), so relinkboot-install can refuse what the stage
 * would refuse instead of finding out at the next boot.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lkcli.h"

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
