/*
 * SHA-256 (FIPS 180 examples, block-boundary lengths against sha256sum,
 * split updates), ChaCha20 (RFC 8439 2.3.2 and 2.4.2), the layout RNG
 * (its stream is the ChaCha20 keystream under SHA-256(seed); mixing;
 * unbiased bounds and shuffles by chi-square) and lk_udivmod64.
 */
#include <string.h>

#include "linkkit.h"
#include "tap.h"

static void hex(const unsigned char *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

static int sha_is(const void *d, size_t n, const char *want)
{
	unsigned char md[32];
	char h[65];

	lk_sha256(d, n, md);
	hex(md, 32, h);
	return !strcmp(h, want);
}

static void test_sha_vectors(void)
{
	char *m = malloc(1000000);
	int ok;

	tap_check(sha_is("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
		  "sha256-empty", "wrong digest");
	tap_check(sha_is("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
		  "sha256-abc", "wrong digest");
	tap_check(sha_is("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
			 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
		  "sha256-448bit", "wrong digest");
	tap_check(sha_is("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
			 "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu", 112,
			 "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
		  "sha256-896bit", "wrong digest");
	memset(m, 'a', 1000000);
	tap_check(sha_is(m, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
		  "sha256-million-a", "wrong digest");
	/* The same million bytes fed in odd pieces. */
	{
		struct lk_sha256 c;
		unsigned char md[32];
		char h[65];
		size_t off = 0;

		lk_sha256_init(&c);
		while (off < 1000000) {
			size_t k = tap_below(200);
			if (k > 1000000 - off)
				k = 1000000 - off;
			lk_sha256_update(&c, m + off, k);
			off += k;
		}
		lk_sha256_final(&c, md);
		hex(md, 32, h);
		ok = !strcmp(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
		tap_check(ok, "sha256-million-a-split", "got %s", h);
	}
	free(m);
}

/* Every length around the padding boundaries, against sha256sum. */
static void test_sha_lengths(void)
{
	static const size_t lens[] = { 1, 54, 55, 56, 57, 63, 64, 65, 119,
				       120, 127, 128, 129, 1000, 4097 };
	int bad = 0, checked = 0;
	char why[200] = "";

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		unsigned char buf[4097], md[32];
		char want[65] = "", got[65], cmd[128];
		char tmp[] = "/tmp/lk-sha-test.XXXXXX";
		int fd = mkstemp(tmp);
		FILE *f = fd < 0 ? NULL : fdopen(fd, "wb");
		struct lk_sha256 c;

		for (size_t k = 0; k < lens[i]; k++)
			buf[k] = (unsigned char)tap_rand();
		if (!f)
			break;
		fwrite(buf, 1, lens[i], f);
		fclose(f);
		snprintf(cmd, sizeof(cmd), "sha256sum %s", tmp);
		f = popen(cmd, "r");
		if (!f || fscanf(f, "%64s", want) != 1) {
			if (f)
				pclose(f);
			remove(tmp);
			break;
		}
		pclose(f);
		remove(tmp);
		checked++;
		/* Split at a random point too. */
		size_t cut = tap_below((uint32_t)lens[i] + 1);
		lk_sha256_init(&c);
		lk_sha256_update(&c, buf, cut);
		lk_sha256_update(&c, buf + cut, lens[i] - cut);
		lk_sha256_final(&c, md);
		hex(md, 32, got);
		if (strcmp(got, want) && !bad++)
			snprintf(why, sizeof(why), "length %zu: %s want %s",
				 lens[i], got, want);
	}
	if (!checked)
		printf("skip sha256-vs-sha256sum: sha256sum not usable\n");
	else
		tap_check(!bad, "sha256-vs-sha256sum", "%s", why);
}

static void key_0_to_31(lk_u32 key[8])
{
	for (int i = 0; i < 8; i++)
		key[i] = (lk_u32)(4 * i) | (lk_u32)(4 * i + 1) << 8 |
			 (lk_u32)(4 * i + 2) << 16 | (lk_u32)(4 * i + 3) << 24;
}

static void test_chacha(void)
{
	static const char blk[] =
		"10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
		"d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e";
	static const char ct[] =
		"6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
		"f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
		"07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
		"5af90bbf74a35be6b40b8eedf2785e42874d";
	static const char pt[] = "Ladies and Gentlemen of the class of '99: If I "
				 "could offer you only one tip for the future, "
				 "sunscreen would be it.";
	lk_u32 key[8], n1[3] = { 0x09000000, 0x4a000000, 0 },
		       n2[3] = { 0, 0x4a000000, 0 };
	unsigned char out[64], enc[sizeof(pt) - 1];
	char h[2 * sizeof(pt)];

	key_0_to_31(key);
	lk_chacha20_block(key, 1, n1, out);
	hex(out, 64, h);
	tap_check(!strcmp(h, blk), "chacha20-block-rfc8439-2.3.2", "got %s", h);
	for (size_t off = 0; off < sizeof(enc); off += 64) {
		lk_chacha20_block(key, (lk_u32)(1 + off / 64), n2, out);
		for (size_t k = 0; k < 64 && off + k < sizeof(enc); k++)
			enc[off + k] = (unsigned char)pt[off + k] ^ out[k];
	}
	hex(enc, sizeof(enc), h);
	tap_check(!strcmp(h, ct), "chacha20-encrypt-rfc8439-2.4.2", "got %s", h);
}

/* The generator's stream must be ChaCha20 under key K, nonce 0, from 0. */
static int stream_is(struct lk_rng *r, const unsigned char k[32], size_t n)
{
	lk_u32 key[8], nonce[3] = { 0, 0, 0 };
	unsigned char *a = malloc(n), blk[64];
	int same = 1;

	for (int i = 0; i < 8; i++)
		key[i] = (lk_u32)k[4 * i] | (lk_u32)k[4 * i + 1] << 8 |
			 (lk_u32)k[4 * i + 2] << 16 | (lk_u32)k[4 * i + 3] << 24;
	lk_rng_bytes(r, a, n);
	for (size_t off = 0; off < n; off += 64) {
		lk_chacha20_block(key, (lk_u32)(off / 64), nonce, blk);
		same &= !memcmp(a + off, blk, n - off < 64 ? n - off : 64);
	}
	free(a);
	return same;
}

static void test_rng_stream(void)
{
	struct lk_rng a, b;
	unsigned char k[32], x[1000], y[1000], cat[32 + 5];
	int same;

	lk_rng_init(&a, "seed", 4);
	lk_sha256("seed", 4, k);
	tap_check(stream_is(&a, k, 1000), "rng-is-chacha20-of-sha256-seed",
		  "stream differs from ChaCha20(SHA-256(seed))");

	lk_rng_init(&a, "seed", 4);
	lk_rng_init(&b, "seed", 4);
	/* Same bytes however the reads are split. */
	lk_rng_bytes(&a, x, sizeof(x));
	for (size_t off = 0; off < sizeof(y);) {
		size_t n = 1 + tap_below(100);
		if (n > sizeof(y) - off)
			n = sizeof(y) - off;
		lk_rng_bytes(&b, y + off, n);
		off += n;
	}
	tap_check(!memcmp(x, y, sizeof(x)), "rng-deterministic", "streams differ");
	lk_rng_init(&b, "seee", 4);
	lk_rng_bytes(&b, y, sizeof(y));
	same = 0;
	for (size_t i = 0; i < sizeof(x); i++)
		same += x[i] == y[i];
	tap_check(same < 20, "rng-seed-sensitive", "%d of 1000 bytes equal", same);

	/* Mixing rekeys with SHA-256(key || data). */
	lk_rng_init(&a, "seed", 4);
	lk_rng_bytes(&a, x, 10);
	lk_rng_mix(&a, "extra", 5);
	memcpy(cat, k, 32);
	memcpy(cat + 32, "extra", 5);
	lk_sha256(cat, sizeof(cat), k);
	tap_check(stream_is(&a, k, 300), "rng-mix-rekeys",
		  "stream after mix is not ChaCha20(SHA-256(key || data))");
	lk_rng_wipe(&a);
	same = 1;
	for (size_t i = 0; i < sizeof(a); i++)
		same &= ((unsigned char *)&a)[i] == 0;
	tap_check(same, "rng-wipe", "state not zeroed");
}

/* Chi-square statistic of counts against equal expected frequencies. */
static double chi2(const unsigned *c, int k, unsigned total)
{
	double e = (double)total / k, s = 0;

	for (int i = 0; i < k; i++)
		s += (c[i] - e) * (c[i] - e) / e;
	return s;
}

static void test_rng_below(void)
{
	static const lk_u64 bounds[] = { 1, 2, 3, 7, 1000, 0xffffffffull,
					 0x100000000ull, 0x100000001ull,
					 0x8000000000000005ull, ~0ull };
	struct lk_rng r;
	unsigned c[10] = { 0 }, t[3] = { 0 };
	int inrange = 1;
	double x;

	lk_rng_init(&r, "below", 5);
	for (size_t b = 0; b < sizeof(bounds) / sizeof(bounds[0]); b++)
		for (int i = 0; i < 2000; i++)
			inrange &= lk_rng_below(&r, bounds[b]) < bounds[b];
	tap_check(inrange, "rng-below-range", "a value reached its bound");
	for (int i = 0; i < 100000; i++)
		c[lk_rng_below(&r, 10)]++;
	x = chi2(c, 10, 100000);
	/* 9 degrees of freedom: 33.7 is the p = 0.0001 critical value. */
	tap_check(x < 33.7, "rng-below-chi2-10", "chi2 %.1f", x);
	/* 3*2^30: taking u32 % bound would make the first third twice as
	 * likely as the others; rejection keeps them equal. */
	for (int i = 0; i < 60000; i++)
		t[lk_rng_below(&r, 3ull << 30) >> 30]++;
	x = chi2(t, 3, 60000);
	tap_check(x < 18.4, "rng-below-chi2-unbiased-large", "chi2 %.1f (%u %u %u)",
		  x, t[0], t[1], t[2]);
	lk_rng_wipe(&r);
}

static void test_shuffle(void)
{
	struct lk_rng r;
	unsigned c[24] = { 0 };
	int perm = 1;
	double x;

	lk_rng_init(&r, "shuffle", 7);
	for (int i = 0; i < 240000; i++) {
		lk_u32 v[4] = { 0, 1, 2, 3 }, seen = 0, code = 0, left = 0xf;
		lk_shuffle_u32(&r, v, 4);
		/* Lehmer code of the permutation: index 0..23. */
		for (int k = 0; k < 4; k++) {
			seen |= 1u << v[k];
			code = code * (lk_u32)(4 - k) +
			       (lk_u32)__builtin_popcount(left & ((1u << v[k]) - 1));
			left &= ~(1u << v[k]);
		}
		perm &= seen == 0xf;
		c[code % 24]++;
	}
	x = chi2(c, 24, 240000);
	tap_check(perm, "shuffle-is-permutation", "value lost or duplicated");
	/* 23 degrees of freedom: 55.0 is the p = 0.0002 critical value. */
	tap_check(x < 55.0, "shuffle-uniform-24", "chi2 %.1f", x);
	lk_rng_wipe(&r);
}

static void test_udivmod(void)
{
	int bad = 0;
	char why[160] = "";

	for (int i = 0; i < 200000; i++) {
		lk_u64 n = tap_rand() >> tap_below(64), d = tap_rand() >> tap_below(64);
		lk_u64 q, r;
		if (i % 1000 == 0)
			d = ~0ull - tap_below(3);
		if (d == 0)
			d = 1 + (i & 7);
		q = lk_udivmod64(n, d, &r);
		if ((q != n / d || r != n % d) && !bad++)
			snprintf(why, sizeof(why), "%llu / %llu", n, d);
	}
	{
		lk_u64 r;
		bad += lk_udivmod64(5, 0, &r) != 0 || r != 5;
	}
	tap_check(!bad, "udivmod64", "%d wrong, first %s", bad, why);
}

int main(void)
{
	tap_seed();
	test_sha_vectors();
	test_sha_lengths();
	test_chacha();
	test_rng_stream();
	test_rng_below();
	test_shuffle();
	test_udivmod();
	return tap_failed;
}
