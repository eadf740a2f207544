/*
 * Kit signatures with signify(1) (Debian: signify-openbsd). The signed
 * message is the 64-byte kit header: it holds the SHA-256 of the zlib
 * stream, so it covers the whole payload. The trailer after the stream is
 * the signify signature file, verbatim.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kb.h"
#include "lkcli.h"

#define SIGNIFY "signify-openbsd"

/* Runs argv without a shell; 0 when it exits with status 0. */
static int run(char *const argv[])
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "linkkit: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int temp_file(char *path, const void *p, size_t n)
{
	int fd = mkstemp(path);
	int rc;

	if (fd < 0)
		return -1;
	rc = write(fd, p, n) == (ssize_t)n ? 0 : -1;
	return close(fd) || rc ? -1 : 0;
}

/* Sets LK_KIT_F_SIGNED, signs the header and appends the signature. */
int lkc_sign(const char *key, uint8_t **kit, size_t *ksize)
{
	char hdr[] = "/tmp/linkkit-hdr-XXXXXX", sig[64];
	struct lk_kit_header h;
	uint8_t *s = NULL;
	size_t slen;
	int rc = -1;

	memcpy(&h, *kit, sizeof(h));
	h.flags |= LK_KIT_F_SIGNED;
	memcpy(*kit, &h, sizeof(h));
	if (temp_file(hdr, &h, sizeof(h)))
		return -1;
	snprintf(sig, sizeof(sig), "%s.sig", hdr);
	{
		char *argv[] = { SIGNIFY, "-S", "-s", (char *)key, "-m", hdr, "-x", sig, NULL };

		if (run(argv) == 0 && lkc_read_file(sig, &s, &slen) == 0) {
			*kit = kb_xrealloc(*kit, *ksize + slen, 1);
			memcpy(*kit + *ksize, s, slen);
			*ksize += slen;
			rc = 0;
		}
	}
	if (rc)
		fprintf(stderr, "linkkit: cannot sign with %s\n", key);
	free(s);
	remove(hdr);
	remove(sig);
	return rc;
}

/* Checks the trailer of a signed kit against a signify public key. */
int lkc_check_sig(const char *pub, const char *name, const uint8_t *kit, size_t ksize,
		  const struct lk_kit *k)
{
	char hdr[] = "/tmp/linkkit-hdr-XXXXXX", sig[] = "/tmp/linkkit-sig-XXXXXX";
	size_t end = sizeof(struct lk_kit_header) + (size_t)k->zsize;
	char *argv[] = { SIGNIFY, "-V", "-q", "-p", (char *)pub, "-m", hdr, "-x", sig, NULL };
	int rc = -1;

	if (!(k->flags & LK_KIT_F_SIGNED) || end >= ksize) {
		fprintf(stderr, "linkkit: %s: not signed\n", name);
		return -1;
	}
	if (temp_file(hdr, kit, sizeof(struct lk_kit_header)) == 0 &&
	    temp_file(sig, kit + end, ksize - end) == 0)
		rc = run(argv);
	if (rc)
		fprintf(stderr, "linkkit: %s: bad signature for %s\n", name, pub);
	remove(hdr);
	remove(sig);
	return rc;
}
