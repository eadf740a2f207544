/*
 * SHA-256 on SHA-NI against the portable code: the FIPS 180 examples
 * through lk_sha256 in both modes, the two compression functions on
 * random blocks at every alignment, and random lengths and split
 * updates through the public API in both modes. Skipped when this CPU
 * has no SHA extensions (the portable path is then what runs everywhere
 * and test_crypto covers it). This test runs under ASAN, where
 * lk_cpu_features() reports nothing and AUTO is portable: SHA-NI is forced
 * with LK_SHA256_NI after lk_cpu_probe() saw the extensions.
 */
#include <string.h>

#include "cpu.h"
#include "sha256_impl.h"
#include "tap.h"

static const struct {
	const char *msg, *md;
} vectors[] = {
	{ "",
	  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
	{ "abc",
	  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
	{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
	  "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
	  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
};

static void hex(const unsigned char *p, char *out)
{
	for (int i = 0; i < 32; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

/* Every FIPS example in the given mode; also one million 'a'. */
static void test_vectors(int mode, const char *name)
{
	char got[65], why[200] = "";
	unsigned char md[32];
	int bad = 0;
	size_t i;
	char *m = malloc(1000000);

	lk_sha256_select(mode);
	for (i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		lk_sha256(vectors[i].msg, strlen(vectors[i].msg), md);
		hex(md, got);
		if (strcmp(got, vectors[i].md) && !bad++)
			snprintf(why, sizeof(why), "'%.10s...': %s",
				 vectors[i].msg, got);
	}
	memset(m, 'a', 1000000);
	lk_sha256(m, 1000000, md);
	hex(md, got);
	if (strcmp(got, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e04"
			"6d39ccc7112cd0") &&
	    !bad++)
		snprintf(why, sizeof(why), "million a: %s", got);
	free(m);
	tap_check(!bad, name, "%s", why);
}

/* The two compression functions on the same random state and blocks,
 * the blocks at every offset from 0 to 15 (kit data is unaligned). */
static void test_blocks(void)
{
	static unsigned char buf[64 * 40 + 16];
	lk_u32 a[8], b[8];
	int bad = 0, trial;

	for (trial = 0; trial < 400 && !bad; trial++) {
		size_t n = 1 + tap_below(40), off = trial % 16;

		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (unsigned char)tap_rand();
		for (int i = 0; i < 8; i++)
			a[i] = b[i] = (lk_u32)tap_rand();
		lk_sha256_blocks_portable(a, buf + off, n);
		lk_sha256_blocks_ni(b, buf + off, n);
		bad = memcmp(a, b, sizeof(a)) != 0;
	}
	tap_check(!bad, "sha256-ni-blocks-vs-portable",
		  "trial %d: states differ", trial - 1);
}

/* lk_sha256 and split updates over random lengths, NI vs portable. */
static void test_lengths(void)
{
	static unsigned char buf[5000];
	unsigned char x[32], y[32];
	char why[120] = "";
	int bad = 0;

	for (int trial = 0; trial < 500 && !bad; trial++) {
		size_t n = tap_below(sizeof(buf) + 1), cut = tap_below(n + 1);
		struct lk_sha256 c;

		for (size_t i = 0; i < n; i++)
			buf[i] = (unsigned char)tap_rand();
		lk_sha256_select(LK_SHA256_PORTABLE);
		lk_sha256(buf, n, x);
		lk_sha256_select(LK_SHA256_NI);
		lk_sha256_init(&c);
		lk_sha256_update(&c, buf, cut);
		lk_sha256_update(&c, buf + cut, n - cut);
		lk_sha256_final(&c, y);
		if (memcmp(x, y, 32)) {
			bad = 1;
			snprintf(why, sizeof(why), "length %zu split at %zu", n,
				 cut);
		}
	}
	tap_check(!bad, "sha256-ni-lengths-vs-portable", "%s", why);
}

int main(void)
{
	tap_seed();
	if (!(lk_cpu_probe() & LK_CPU_SHA)) {
		printf("skip sha256-ni: this CPU has no SHA extensions\n");
		return 0;
	}
	tap_check(lk_sha256_select(LK_SHA256_AUTO) ==
			  !!(lk_cpu_features() & LK_CPU_SHA),
		  "sha256-auto-selected",
		  "AUTO does not follow lk_cpu_features()");
	tap_check(lk_sha256_select(LK_SHA256_NI) == 1, "sha256-ni-selected",
		  "NI did not pick SHA-NI");
	tap_check(lk_sha256_select(LK_SHA256_PORTABLE) == 0,
		  "sha256-portable-selected", "PORTABLE still uses SHA-NI");
	test_vectors(LK_SHA256_NI, "sha256-ni-fips-vectors");
	test_vectors(LK_SHA256_PORTABLE, "sha256-portable-fips-vectors");
	test_blocks();
	test_lengths();
	lk_sha256_select(LK_SHA256_AUTO);
	return tap_failed;
}
