/*
 * SHA-512 (FIPS 180 examples, block-boundary lengths against a second
 * split-update computation) and Ed25519 (RFC 8032 7.1 tests 1-3: public key
 * from seed, byte-exact signature, verification; tampered message, R, S,
 * key; non-canonical S; random keys round trip).
 */
#include <string.h>

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

int main(void)
{
	tap_seed();
	test_sha512();
	test_sha512_split();
	for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
		test_vector(&vecs[i]);
	test_noncanonical_s();
	test_random_keys();
	return tap_failed;
}
