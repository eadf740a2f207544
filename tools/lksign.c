/*
 * Kit signatures in signify(1) format (Debian: signify-openbsd), made and
 * checked with linkkit/ed25519.c (no signify binary needed). The signed
 * message is the 64-byte kit header: it holds the hash of the zlib
 * stream, so it covers the whole payload. The trailer after the stream is
 * the signify signature file, verbatim.
 *
 * signify secret key file (decoded base64 line, 104 bytes): "Ed", "BK",
 * kdfrounds (big-endian u32), salt[16], checksum[8], keynum[8],
 * seed||pubkey[64]. With kdfrounds > 0 (signify -G without -n) the seed
 * is XORed with bcrypt_pbkdf(passphrase, salt, rounds); the passphrase is
 * read like signify does: from stdin when it is not a terminal, else from
 * the terminal with echo off.
 *
 * `linkkit sign` / `linkkit verify -x` do the same for any file (the
 * fallback kernel): a detached signature over the whole file, the same
 * bytes `signify -S -s KEY -m FILE -x FILE.sig` writes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "bcrypt_pbkdf.h"
#include "kb.h"
#include "lkcli.h"

#define SECKEY_RAW 104
/* signify makes 42; a hostile key file must not stall us for hours. */
#define MAX_KDF_ROUNDS 1024

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void b64_encode(const uint8_t *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		*out++ = b64[v >> 18];
		*out++ = b64[(v >> 12) & 63];
		*out++ = i + 1 < n ? b64[(v >> 6) & 63] : '=';
		*out++ = i + 2 < n ? b64[v & 63] : '=';
	}
	*out = 0;
}

static int b64_val(int c)
{
	const char *p = c ? strchr(b64, c) : NULL;

	return p ? (int)(p - b64) : -1;
}

/* The second line of a signify file, decoded to exactly `want` bytes. */
static int read_signify(const char *path, uint8_t *raw, size_t want)
{
	uint8_t *t;
	size_t n, i = 0, got = 0;
	uint32_t acc = 0, bits = 0;

	if (lkc_read_file(path, &t, &n))
		return -1;
	while (i < n && t[i] != '\n')
		i++;
	for (i++; i < n && t[i] != '\n' && t[i] != '=' && got < want + 1; i++) {
		int v = b64_val(t[i]);

		if (v < 0)
			break;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (got < want)
				raw[got] = (uint8_t)(acc >> bits);
			got++;
		}
	}
	memset(t, 0, n);
	free(t);
	return got == want && raw[0] == 'E' && raw[1] == 'd' ? 0 : -1;
}

/* One line from f without its newline; the length, or -1 on EOF. */
static int read_line(FILE *f, char *buf, size_t size)
{
	size_t n;

	if (!fgets(buf, (int)size, f))
		return -1;
	n = strcspn(buf, "\r\n");
	buf[n] = 0;
	return (int)n;
}

/* The passphrase: stdin when it is not a terminal (as signify), else the
 * terminal with echo off. */
static int read_pass(char *buf, size_t size)
{
	struct termios old, quiet;
	FILE *tty;
	int n;

	if (!isatty(0))
		return read_line(stdin, buf, size);
	tty = fopen("/dev/tty", "r+");
	if (!tty)
		return -1;
	fputs("passphrase: ", tty);
	fflush(tty);
	tcgetattr(fileno(tty), &old);
	quiet = old;
	quiet.c_lflag &= ~(tcflag_t)ECHO;
	tcsetattr(fileno(tty), TCSAFLUSH, &quiet);
	n = read_line(tty, buf, size);
	tcsetattr(fileno(tty), TCSAFLUSH, &old);
	fputs("\n", tty);
	fclose(tty);
	return n;
}

/* Decrypts the seed of a passphrase-protected key in place. */
static int decrypt_seckey(const char *key, uint8_t sk[SECKEY_RAW])
{
	uint32_t rounds =
		(uint32_t)sk[4] << 24 | sk[5] << 16 | sk[6] << 8 | sk[7];
	uint8_t xk[64];
	char pass[1024];
	int n, rc;

	if (rounds > MAX_KDF_ROUNDS) {
		fprintf(stderr, "linkkit: %s: %u KDF rounds (more than %u)\n",
			key, rounds, MAX_KDF_ROUNDS);
		return -1;
	}
	n = read_pass(pass, sizeof(pass));
	if (n <= 0) {
		fprintf(stderr,
			"linkkit: %s: encrypted key and no passphrase given\n",
			key);
		memset(pass, 0, sizeof(pass));
		return -1;
	}
	rc = bcrypt_pbkdf(pass, (size_t)n, sk + 8, 16, xk, sizeof(xk), rounds);
	memset(pass, 0, sizeof(pass));
	for (int i = 0; i < 64; i++)
		sk[40 + i] ^= xk[i];
	memset(xk, 0, sizeof(xk));
	if (rc)
		fprintf(stderr, "linkkit: %s: key derivation failed\n", key);
	return rc;
}

static int load_seckey(const char *key, uint8_t sk[SECKEY_RAW])
{
	uint8_t sum[64];
	int enc;

	if (read_signify(key, sk, SECKEY_RAW) || sk[2] != 'B' || sk[3] != 'K') {
		fprintf(stderr, "linkkit: %s: not a signify secret key\n", key);
		return -1;
	}
	enc = (sk[4] | sk[5] | sk[6] | sk[7]) != 0;
	if (enc && decrypt_seckey(key, sk))
		return -1;
	lk_sha512(sk + 40, 64, sum);
	if (memcmp(sum, sk + 24, 8)) {
		fprintf(stderr, "linkkit: %s: %s\n", key,
			enc ? "incorrect passphrase"
			    : "corrupt secret key (checksum)");
		return -1;
	}
	return 0;
}

/* A signify signature file for msg; *out is malloc'd text. */
int lkc_sign_buf(const char *key, const void *msg, size_t len, char **out,
		 size_t *olen)
{
	uint8_t sk[SECKEY_RAW], raw[74];
	char line[128], *t;
	const char *base = strrchr(key, '/');
	size_t blen;
	int n;

	if (load_seckey(key, sk)) {
		memset(sk, 0, sizeof(sk));
		return -1;
	}
	raw[0] = 'E', raw[1] = 'd';
	memcpy(raw + 2, sk + 32, 8);
	lk_ed25519_sign(raw + 10, msg, len, sk + 40);
	memset(sk, 0, sizeof(sk));
	b64_encode(raw, sizeof(raw), line);
	base = base ? base + 1 : key;
	blen = strlen(base);
	if (blen > 4 && !strcmp(base + blen - 4, ".sec"))
		blen -= 4;
	t = kb_xrealloc(NULL, blen + sizeof(line) + 64, 1);
	n = sprintf(t, "untrusted comment: verify with %.*s.pub\n%s\n",
		    (int)blen, base, line);
	*out = t;
	*olen = (size_t)n;
	return 0;
}

/* Sets LK_KIT_F_SIGNED, signs the header and appends the signature. */
int lkc_sign(const char *key, uint8_t **kit, size_t *ksize)
{
	struct lk_kit_header h;
	char *s;
	size_t slen;

	memcpy(&h, *kit, sizeof(h));
	h.flags |= LK_KIT_F_SIGNED;
	memcpy(*kit, &h, sizeof(h));
	/* lkc_sign_buf printed the one line naming the key. */
	if (lkc_sign_buf(key, &h, sizeof(h), &s, &slen))
		return -1;
	*kit = kb_xrealloc(*kit, *ksize + slen, 1);
	memcpy(*kit + *ksize, s, slen);
	*ksize += slen;
	free(s);
	return 0;
}

int lkc_load_pubkey(const char *pub, struct lk_pubkey *pk)
{
	uint8_t *t;
	size_t n;
	int rc;

	if (lkc_read_file(pub, &t, &n))
		return -1;
	rc = lk_pubkey_parse(t, n, pk);
	free(t);
	if (rc)
		fprintf(stderr, "linkkit: %s: not a signify public key\n", pub);
	return rc;
}

/* Checks the trailer of a signed kit against a signify public key. */
int lkc_check_sig(const char *pub, const char *name, const uint8_t *kit,
		  size_t ksize, const struct lk_kit *k)
{
	struct lk_pubkey pk;

	(void)k;
	if (lkc_load_pubkey(pub, &pk))
		return -1;
	return lk_kit_check_sig(&lkc_host, &pk, name, kit, ksize);
}

/* `linkkit sign -s KEY.sec [-o FILE.sig] FILE`: a detached signify
 * signature of the whole file (default output FILE.sig, as signify). */
int lkc_sign_file(int argc, char **argv)
{
	const char *key = NULL, *out = NULL, *path = NULL;
	char *sig = NULL, *def = NULL;
	uint8_t *msg;
	size_t n, slen;
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if ((!strcmp(a, "-s") || !strcmp(a, "-o") ||
		     !strcmp(a, "-x")) &&
		    i + 1 < argc) {
			*(a[1] == 's' ? &key : &out) = argv[++i];
		} else if (a[0] == '-' || path) {
			path = NULL;
			break;
		} else {
			path = a;
		}
	}
	if (!key || !path) {
		fprintf(stderr, "linkkit: sign: usage: linkkit sign -s KEY.sec "
				"[-o FILE.sig] FILE\n");
		return 1;
	}
	if (!out) {
		def = kb_xcalloc(strlen(path) + 5, 1);
		sprintf(def, "%s.sig", path);
		out = def;
	}
	if (lkc_read_file(path, &msg, &n)) {
		free(def);
		return 1;
	}
	rc = lkc_sign_buf(key, msg, n, &sig, &slen) ||
	     lkc_write_file(out, sig, slen);
	free(msg);
	free(sig);
	free(def);
	return rc ? 1 : 0;
}

/* `linkkit verify -p KEY.pub -x FILE.sig FILE`: checks a detached
 * signature with the boot stages' code (lk_sig_check). */
int lkc_verify_detached(const char *pub, const char *sigpath, const char *path)
{
	struct lk_pubkey pk;
	uint8_t *msg = NULL, *sig = NULL;
	size_t n, slen;
	int rc = 1;

	if (lkc_load_pubkey(pub, &pk) || lkc_read_file(sigpath, &sig, &slen) ||
	    lkc_read_file(path, &msg, &n))
		goto out;
	if (lk_sig_check(&lkc_host, &pk, path, msg, n, sig, slen))
		goto out;
	printf("%s: signature ok (%s)\n", path, sigpath);
	rc = 0;
out:
	free(msg);
	free(sig);
	return rc;
}
