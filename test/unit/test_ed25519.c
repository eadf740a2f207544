/*
 * SHA-512 (FIPS 180 examples, block-boundary lengths against a second
 * split-update computation) and Ed25519 (RFC 8032 7.1 tests 1-3: public key
 * from seed, byte-exact signature, verification; tampered message, R, S,
 * key; non-canonical S; random keys round trip), and kitsig.c / the
 * config's pubkey key on malformed and hostile input: one error line,
 * never a crash.
 */
#include <string.h>

#include "config.h"
#include "linkkit.h"
#include "tap.h"

static void unhex(const char *h, unsigned char *out)
{
	for (size_t i = 0; h[2 * i]; i++)
		sscanf(h + 2 * i, "%2hhx", &out[i]);
}

static int sha_is(const void *d, size_t n, const char *want)
{
	unsigned char md[64], w[64];

	lk_sha512(d, n, md);
	unhex(want, w);
	return !memcmp(md, w, 64);
}

static void test_sha512(void)
{
	tap_check(sha_is("", 0, "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
			 "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"),
		  "sha512-empty", "wrong digest");
	tap_check(sha_is("abc", 3, "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
			 "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
		  "sha512-abc", "wrong digest");
	tap_check(sha_is("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
			 "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu", 112,
			 "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
			 "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"),
		  "sha512-896bit", "wrong digest");
}

/* Split updates at every offset give the one-shot digest. */
static void test_sha512_split(void)
{
	unsigned char m[300], a[64], b[64];
	int bad = 0;

	for (size_t i = 0; i < sizeof(m); i++)
		m[i] = (unsigned char)(i * 7 + 1);
	for (size_t n = 100; n <= 260; n += 1) {
		lk_sha512(m, n, a);
		for (size_t cut = 0; cut <= n; cut += 13) {
			struct lk_sha512 c;

			lk_sha512_init(&c);
			lk_sha512_update(&c, m, cut);
			lk_sha512_update(&c, m + cut, n - cut);
			lk_sha512_final(&c, b);
			bad |= memcmp(a, b, 64) != 0;
		}
	}
	tap_check(!bad, "sha512-split", "split update differs");
}

struct vec {
	const char *name, *seed, *pub, *msg, *sig;
};

static const struct vec vecs[] = {
	{ "ed25519-rfc8032-1",
	  "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
	  "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
	  "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
	  "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b" },
	{ "ed25519-rfc8032-2",
	  "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
	  "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
	  "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
	  "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00" },
	{ "ed25519-rfc8032-3",
	  "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
	  "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
	  "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
	  "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a" },
};

static void test_vector(const struct vec *v)
{
	unsigned char sk[64], pk[32], want[64], sig[64], msg[8], bad[64];
	size_t n = strlen(v->msg) / 2;
	char name[80];

	unhex(v->seed, sk);
	unhex(v->pub, sk + 32);
	unhex(v->sig, want);
	unhex(v->msg, msg);
	lk_ed25519_pubkey(pk, sk);
	snprintf(name, sizeof(name), "%s-pubkey", v->name);
	tap_check(!memcmp(pk, sk + 32, 32), name, "wrong public key");
	lk_ed25519_sign(sig, msg, n, sk);
	snprintf(name, sizeof(name), "%s-sign", v->name);
	tap_check(!memcmp(sig, want, 64), name, "wrong signature");
	snprintf(name, sizeof(name), "%s-verify", v->name);
	tap_check(lk_ed25519_verify(want, msg, n, pk) == 0, name, "refused");
	memcpy(bad, want, 64);
	bad[3] ^= 1;
	snprintf(name, sizeof(name), "%s-bad-r", v->name);
	tap_check(lk_ed25519_verify(bad, msg, n, pk) != 0, name, "accepted");
	memcpy(bad, want, 64);
	bad[40] ^= 0x10;
	snprintf(name, sizeof(name), "%s-bad-s", v->name);
	tap_check(lk_ed25519_verify(bad, msg, n, pk) != 0, name, "accepted");
	msg[n] = 0;
	snprintf(name, sizeof(name), "%s-bad-msg", v->name);
	tap_check(lk_ed25519_verify(want, msg, n + 1, pk) != 0, name, "accepted");
}

/* S + L verifies in the same equation but must be refused (malleability). */
static void test_noncanonical_s(void)
{
	static const unsigned char l[32] = {
		0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7,
		0xa2, 0xde, 0xf9, 0xde, 0x14, [31] = 0x10,
	};
	unsigned char sig[64], pk[32];
	unsigned c = 0;

	unhex(vecs[0].sig, sig);
	unhex(vecs[0].pub, pk);
	for (int i = 0; i < 32; i++) {
		c += sig[32 + i] + l[i];
		sig[32 + i] = (unsigned char)c;
		c >>= 8;
	}
	tap_check(c == 0 && lk_ed25519_verify(sig, "", 0, pk) != 0, "ed25519-s-plus-l",
		  "S + L accepted");
}

static void test_random_keys(void)
{
	unsigned char sk[64], sig[64], other[32], msg[64];
	int bad = 0;

	for (int k = 0; k < 8; k++) {
		for (int i = 0; i < 32; i++)
			sk[i] = (unsigned char)tap_rand();
		for (int i = 0; i < 64; i++)
			msg[i] = (unsigned char)tap_rand();
		lk_ed25519_pubkey(sk + 32, sk);
		lk_ed25519_sign(sig, msg, sizeof(msg), sk);
		bad |= lk_ed25519_verify(sig, msg, sizeof(msg), sk + 32) != 0;
		sk[0] ^= 1;
		lk_ed25519_pubkey(other, sk);
		bad |= lk_ed25519_verify(sig, msg, sizeof(msg), other) == 0;
	}
	tap_check(!bad, "ed25519-random-keys", "round trip failed or wrong key accepted");
}

static char last_line[256];
static int nlines;

static void cap_log(void *ctx, int level, const char *line)
{
	(void)ctx, (void)level;
	snprintf(last_line, sizeof(last_line), "%s", line);
	nlines++;
}

static struct lk_host cap_host = { .log = cap_log, .log_level = LK_LOG_DEBUG };

static void b64(const unsigned char *p, size_t n, char *out)
{
	static const char a[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = p[i] << 16 | (i + 1 < n ? p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);

		*out++ = a[v >> 18];
		*out++ = a[(v >> 12) & 63];
		*out++ = i + 1 < n ? a[(v >> 6) & 63] : '=';
		*out++ = i + 2 < n ? a[v & 63] : '=';
	}
	*out = 0;
}

/* A signify-format key pair and signed kit made with our own code. */
struct fixture {
	unsigned char sk[64];
	char pubfile[200], publine[80];
	unsigned char kit[64 + 16 + 200];
	size_t kitlen;
};

static void make_sigfile(struct fixture *f, const void *msg, size_t n, char *out)
{
	unsigned char raw[74] = { 'E', 'd', 1, 2, 3, 4, 5, 6, 7, 8 };
	char line[120];

	lk_ed25519_sign(raw + 10, msg, n, f->sk);
	b64(raw, sizeof(raw), line);
	sprintf(out, "untrusted comment: verify with test.pub\n%s\n", line);
}

static void make_fixture(struct fixture *f)
{
	unsigned char raw[42] = { 'E', 'd', 1, 2, 3, 4, 5, 6, 7, 8 };
	struct lk_kit_header h;
	char sig[200];

	for (int i = 0; i < 32; i++)
		f->sk[i] = (unsigned char)(i * 3 + 7);
	lk_ed25519_pubkey(f->sk + 32, f->sk);
	memcpy(raw + 10, f->sk + 32, 32);
	b64(raw, sizeof(raw), f->publine);
	sprintf(f->pubfile, "untrusted comment: test key\n%s\n", f->publine);
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, LK_KIT_MAGIC, 8);
	h.flags = LK_KIT_F_SIGNED;
	h.payload_zsize = 16;
	memcpy(f->kit, &h, 64);
	memset(f->kit + 64, 0xab, 16);
	make_sigfile(f, &h, 64, sig);
	memcpy(f->kit + 80, sig, strlen(sig));
	f->kitlen = 80 + strlen(sig);
}

/* rc, line count and the line's text for one kit check. */
static int kit_refused(const struct lk_pubkey *pk, const void *kit, size_t n, const char *want)
{
	int rc;

	nlines = 0;
	last_line[0] = 0;
	rc = lk_kit_check_sig(&cap_host, pk, "K.KIT", kit, n);
	return rc != 0 && nlines == 1 && strstr(last_line, "K.KIT: ") && strstr(last_line, want);
}

static void test_kitsig(void)
{
	static struct fixture f;
	struct lk_pubkey pk, pk2;
	unsigned char kit[sizeof(f.kit)];
	struct lk_kit_header h;
	char sig[200], path[32];

	make_fixture(&f);
	tap_check(lk_pubkey_parse(f.pubfile, strlen(f.pubfile), &pk) == 0 &&
		  lk_pubkey_parse(f.publine, strlen(f.publine), &pk2) == 0 &&
		  !memcmp(&pk, &pk2, sizeof(pk)) && !memcmp(pk.key, f.sk + 32, 32),
		  "kitsig-pubkey-parse", "file and line forms differ or fail");
	tap_check(lk_pubkey_parse("untrusted comment: x", 20, &pk2) != 0 &&
		  lk_pubkey_parse("RWQ=", 4, &pk2) != 0 &&
		  lk_pubkey_parse("RW!!", 4, &pk2) != 0 && lk_pubkey_parse("", 0, &pk2) != 0,
		  "kitsig-pubkey-malformed", "accepted a malformed key");
	nlines = 0;
	tap_check(lk_kit_check_sig(&cap_host, &pk, "K.KIT", f.kit, f.kitlen) == 0 && nlines == 0,
		  "kitsig-kit-ok", "refused: %s", last_line);
	tap_check(kit_refused(&pk, f.kit, 63, "too short"), "kitsig-kit-short", "%s", last_line);
	memcpy(kit, f.kit, f.kitlen);
	kit[40] ^= 1;
	tap_check(kit_refused(&pk, kit, f.kitlen, "bad signature"), "kitsig-kit-header-changed",
		  "%s", last_line);
	memcpy(kit, f.kit, f.kitlen);
	kit[12] = 0;
	tap_check(kit_refused(&pk, kit, f.kitlen, "not signed"), "kitsig-kit-unsigned", "%s",
		  last_line);
	/* stream sizes that run past the end or wrap */
	for (int k = 0; k < 3; k++) {
		static const unsigned long long z[] = { 1000, ~0ull, ~0ull - 63 };

		memcpy(kit, f.kit, f.kitlen);
		memcpy(&h, kit, 64);
		h.payload_zsize = z[k];
		memcpy(kit, &h, 64);
		tap_check(kit_refused(&pk, kit, f.kitlen, "trailer missing"), "kitsig-kit-zsize",
			  "zsize %llx: %s", z[k], last_line);
	}
	tap_check(kit_refused(&pk, f.kit, 80, "trailer missing"), "kitsig-kit-no-trailer", "%s",
		  last_line);
	tap_check(kit_refused(&pk, f.kit, 90, "malformed"), "kitsig-kit-cut-trailer", "%s",
		  last_line);
	memcpy(kit, f.kit, f.kitlen);
	kit[f.kitlen - 60] = '*';
	tap_check(kit_refused(&pk, kit, f.kitlen, "malformed"), "kitsig-kit-bad-base64", "%s",
		  last_line);
	pk2 = pk;
	pk2.keynum[0] ^= 1;
	tap_check(kit_refused(&pk2, f.kit, f.kitlen, "another key"), "kitsig-kit-other-key", "%s",
		  last_line);
	/* detached: the signature covers exactly the file */
	make_sigfile(&f, "fallback", 8, sig);
	nlines = 0;
	tap_check(lk_sig_check(&cap_host, &pk, "F.ELF", "fallback", 8, sig, strlen(sig)) == 0 &&
		  lk_sig_check(&cap_host, &pk, "F.ELF", "fallbacK", 8, sig, strlen(sig)) != 0 &&
		  lk_sig_check(&cap_host, &pk, "F.ELF", "fallback", 7, sig, strlen(sig)) != 0 &&
		  nlines == 2 && strstr(last_line, "F.ELF: bad signature"),
		  "kitsig-detached", "%d lines, last %s", nlines, last_line);
	tap_check(lk_sig_path("\\RELINK\\FALLBACK.ELF", path, sizeof(path)) == 0 &&
		  !strcmp(path, "\\RELINK\\FALLBACK.SIG") &&
		  lk_sig_path("\\A.B\\KERNEL", path, sizeof(path)) == 0 &&
		  !strcmp(path, "\\A.B\\KERNEL.SIG") &&
		  lk_sig_path("\\VERYLONGNAME.ELF", path, 12) != 0,
		  "kitsig-sig-path", "got %s", path);
}

/* `pubkey =` in the config; a key built into the stage wins. */
static void test_config_pubkey(void)
{
	static struct fixture f;
	struct lk_config c;
	struct lk_pubkey pk;
	char text[300];
	int w;

	make_fixture(&f);
	lk_config_defaults(&c);
	tap_check(lk_config_pubkey(&c, NULL, &pk) == 0, "config-pubkey-none", "a key by default");
	snprintf(text, sizeof(text), "pubkey = %s\n", f.publine);
	w = lk_config_parse(&cap_host, "CFG", text, strlen(text), &c);
	tap_check(w == 0 && lk_config_pubkey(&c, NULL, &pk) == 1 && !memcmp(pk.key, f.sk + 32, 32),
		  "config-pubkey-set", "%d warnings", w);
	tap_check(lk_config_pubkey(&c, "RWQ=", &pk) == -1, "config-pubkey-builtin-bad",
		  "malformed built-in key accepted");
	lk_config_defaults(&c);
	nlines = 0;
	w = lk_config_parse(&cap_host, "CFG", "pubkey = RWQxyz\n", 16, &c);
	tap_check(w == 1 && nlines == 1 && strstr(last_line, "pubkey") && !c.pubkey_set,
		  "config-pubkey-malformed", "%d warnings: %s", w, last_line);
}

int main(void)
{
	tap_seed();
	test_sha512();
	test_sha512_split();
	for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
		test_vector(&vecs[i]);
	test_noncanonical_s();
	test_random_keys();
	test_kitsig();
	test_config_pubkey();
	return tap_failed;
}
