/*
 * Runs the i386 freestanding objects (exactly what the BIOS stage links)
 * on this machine in 32-bit mode, against vectors the 64-bit host build
 * wrote (gen_i386_vectors.c), and checks 64-bit formatting and division,
 * the paths where i386 code differs most. The BIOS stage verifies kit and
 * fallback signatures with this build of Ed25519/SHA-512 (64-bit limb
 * arithmetic done with 32-bit registers), so RFC 8032's vectors and the
 * host's signatures of random messages are checked here too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "linkkit.h"
#include "sha256_impl.h"

static unsigned char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p;
	long sz;

	if (!f || fseek(f, 0, SEEK_END) || (sz = ftell(f)) < 0)
		return NULL;
	rewind(f);
	p = malloc((size_t)sz + 1);
	*n = fread(p, 1, (size_t)sz, f);
	fclose(f);
	return p;
}

static int rng_count;

struct rd {
	const unsigned char *p, *end;
};

static int take(struct rd *r, void *dst, size_t n)
{
	if ((size_t)(r->end - r->p) < n)
		return 0;
	if (dst)
		memcpy(dst, r->p, n);
	r->p += n;
	return 1;
}

static int check_stream(struct rd *r, int must_fail)
{
	uint32_t n, cut = 0, zn;
	const unsigned char *z;
	unsigned char *out, md[32], want[32];
	size_t got = 0;
	int rc, ok = 1;

	if (!take(r, &n, 4) || (must_fail && !take(r, &cut, 4)) ||
	    !take(r, &zn, 4))
		return 0;
	z = r->p;
	if (!take(r, NULL, zn) || (!must_fail && !take(r, want, 32)))
		return 0;
	out = malloc(n ? n : 1);
	/* Both builds of the decoding loop (the BMI2 one where the CPU has
	 * it, as the BIOS stage picks it). */
	for (int loop = LK_INFLATE_PORTABLE; loop <= LK_INFLATE_BMI2; loop++) {
		if (loop == LK_INFLATE_BMI2 && !(lk_cpu_probe() & LK_CPU_BMI2))
			break;
		lk_inflate_loop(loop);
		got = 0;
		rc = lk_inflate_zlib(z, must_fail ? cut : zn, out, n, &got);
		lk_sha256(out, got, md);
		if (must_fail ? rc == LK_OK
			      : rc != LK_OK || got != n || memcmp(md, want, 32))
			ok = 0;
	}
	lk_inflate_loop(LK_INFLATE_AUTO);
	free(out);
	return ok;
}

static int check_rng(struct rd *r)
{
	uint32_t slen, n, shuf[16], want_shuf[16];
	unsigned char seed[64], want[32], md[32], *buf;
	struct lk_rng g;
	int ok;

	if (!take(r, &slen, 4) || slen > sizeof(seed) || !take(r, seed, slen) ||
	    !take(r, &n, 4) || !take(r, want, 32))
		return 0;
	buf = malloc(n);
	lk_rng_init(&g, seed, slen);
	if (rng_count++ % 2)
		lk_rng_mix(&g, seed, slen / 2);
	lk_rng_bytes(&g, buf, n);
	lk_sha256(buf, n, md);
	free(buf);
	ok = !memcmp(md, want, 32);
	for (int k = 0; k < 16; k++) {
		uint64_t bound, v;
		if (!take(r, &bound, 8) || !take(r, &v, 8))
			return 0;
		ok &= lk_rng_below(&g, bound) == v;
	}
	for (int k = 0; k < 16; k++)
		shuf[k] = (uint32_t)k;
	lk_shuffle_u32(&g, shuf, 16);
	ok &= take(r, want_shuf, sizeof(want_shuf)) &&
	      !memcmp(shuf, want_shuf, sizeof(shuf));
	lk_rng_wipe(&g);
	return ok;
}

static int log_lines;

static void h_log(void *ctx, int level, const char *line)
{
	(void)ctx;
	(void)level;
	(void)line;
	log_lines++;
}

static const struct lk_host host = { .log = h_log, .log_level = LK_LOG_DEBUG };

/* SHA-512, key derivation, signing and verification of one host-made
 * record, plus the signify text through lk_sig_check as the stage does. */
static int check_ed25519(struct rd *r)
{
	uint32_t n, tlen;
	const unsigned char *seed, *msg, *md, *pk, *sig, *text;
	unsigned char sk[64], got[64], bad[64], *m2;
	struct lk_pubkey key;
	int ok, before;

	if (!take(r, &n, 4) || !(seed = r->p, take(r, NULL, 32)) ||
	    !(msg = r->p, take(r, NULL, n)) ||
	    !(md = r->p, take(r, NULL, 64)) ||
	    !(pk = r->p, take(r, NULL, 32)) ||
	    !(sig = r->p, take(r, NULL, 64)) || !take(r, &tlen, 4) ||
	    !(text = r->p, take(r, NULL, tlen)))
		return 0;
	lk_sha512(msg, n, got);
	ok = !memcmp(got, md, 64);
	memcpy(sk, seed, 32);
	lk_ed25519_pubkey(sk + 32, sk);
	ok &= !memcmp(sk + 32, pk, 32);
	lk_ed25519_sign(got, msg, n, sk);
	ok &= !memcmp(got, sig, 64);
	ok &= lk_ed25519_verify(sig, msg, n, pk) == 0;
	memcpy(bad, sig, 64);
	bad[n % 64] ^= (unsigned char)(1u << (n % 8));
	ok &= lk_ed25519_verify(bad, msg, n, pk) != 0;
	memcpy(key.keynum, "i386test", 8);
	memcpy(key.key, pk, 32);
	before = log_lines;
	ok &= lk_sig_check(&host, &key, "MSG", msg, n, text, tlen) == 0;
	ok &= log_lines == before;
	m2 = malloc(n + 1);
	memcpy(m2, msg, n);
	m2[n] = 1;
	/* One more byte: refused with exactly one line. */
	ok &= lk_sig_check(&host, &key, "MSG", m2, n + 1, text, tlen) != 0;
	ok &= log_lines == before + 1;
	free(m2);
	return ok;
}

static void unhex(const char *h, unsigned char *out)
{
	for (size_t i = 0; h[2 * i]; i++)
		sscanf(h + 2 * i, "%2hhx", &out[i]);
}

/* RFC 8032 section 7.1, tests 1-3 (as in test_ed25519.c). */
static int check_rfc8032(void)
{
	static const char *v[][4] = {
		{ "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae"
		  "7f60",
		  "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707"
		  "511a",
		  "",
		  "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e0652249"
		  "0155"
		  "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a"
		  "100b" },
		{ "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8"
		  "a6fb",
		  "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4"
		  "660c",
		  "72",
		  "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb"
		  "69da"
		  "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb"
		  "0c00" },
		{ "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b44"
		  "58f7",
		  "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb91154890"
		  "8025",
		  "af82",
		  "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5a"
		  "c3ac"
		  "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1e"
		  "c40a" },
	};
	int ok = 1;

	for (int i = 0; i < 3; i++) {
		unsigned char sk[64], pk[32], msg[4], want[64], sig[64];
		size_t n = strlen(v[i][2]) / 2;

		unhex(v[i][0], sk);
		unhex(v[i][1], pk);
		unhex(v[i][2], msg);
		unhex(v[i][3], want);
		lk_ed25519_pubkey(sk + 32, sk);
		lk_ed25519_sign(sig, msg, n, sk);
		ok &= !memcmp(sk + 32, pk, 32) && !memcmp(sig, want, 64) &&
		      lk_ed25519_verify(want, msg, n, pk) == 0;
		want[63] ^= 0x10; /* S no longer canonical or wrong */
		ok &= lk_ed25519_verify(want, msg, n, pk) != 0;
	}
	return ok;
}

/* 64-bit printing and division: native (libgcc) is the oracle here. */
static int check_64bit(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int bad = 0;

	for (int i = 0; i < 200000; i++) {
		char a[64], b[64];
		uint64_t n, d, q, rem;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		n = x >> (x & 63);
		d = (x * 0x2545f4914f6cdd1dull) >> ((x >> 8) & 63);
		if (!d)
			d = 3;
		q = lk_udivmod64(n, d, &rem);
		bad += q != n / d || rem != n % d;
		lk_snprintf(a, sizeof(a), "%llu %lld %llx %016llX %u %d %zu",
			    (unsigned long long)n, (long long)n,
			    (unsigned long long)d, (unsigned long long)d,
			    (unsigned)n, (int)d, (size_t)n);
		snprintf(b, sizeof(b), "%llu %lld %llx %016llX %u %d %zu",
			 (unsigned long long)n, (long long)n,
			 (unsigned long long)d, (unsigned long long)d,
			 (unsigned)n, (int)d, (size_t)n);
		bad += strcmp(a, b) != 0;
	}
	return !bad;
}

/* The BIOS stage hashes kits with SHA-NI when CPUID has it (SSE on:
 * stand/start.S): the i386 build of sha256_ni.c against the portable
 * code, on random lengths and alignments, through lk_sha256. */
static void check_sha256_ni(void)
{
	static unsigned char buf[70000];
	unsigned char a[32], b[32];
	uint32_t x = 12345;
	int bad = 0;

	if (!(lk_cpu_probe() & LK_CPU_SHA)) {
		printf("ok i386-sha256-ni # SKIP this CPU has no SHA extensions\n");
		return;
	}
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)((x = x * 1103515245u + 12345u) >> 24);
	for (int k = 0; k < 64; k++) {
		size_t off = (x = x * 1103515245u + 12345u) % 61;
		size_t len = (x = x * 1103515245u + 12345u) % (sizeof(buf) - 64);

		lk_sha256_select(LK_SHA256_NI);
		lk_sha256(buf + off, len, a);
		lk_sha256_select(LK_SHA256_PORTABLE);
		lk_sha256(buf + off, len, b);
		bad += memcmp(a, b, 32) != 0;
	}
	lk_sha256_select(LK_SHA256_AUTO);
	printf("%s i386-sha256-ni # 64 messages, %d differ\n", bad ? "not ok" : "ok",
	       bad);
}

/* The BIOS stage's BLAKE3 (kits from `linkkit create`): each i386 build
 * of the chunk loop this CPU can run against the host's digest. */
static int check_blake3(struct rd *r, int *paths)
{
	static const struct {
		int path;
		lk_u32 need;
	} b[] = { { LK_BLAKE3_PORTABLE, 0 },
		  { LK_BLAKE3_SSSE3, LK_CPU_SSSE3 },
		  { LK_BLAKE3_AVX2, LK_CPU_AVX2 } };
	uint32_t n;
	const unsigned char *p;
	unsigned char want[32], md[32];
	int ok = 1;

	if (!take(r, &n, 4) || (p = r->p, !take(r, NULL, n)) || !take(r, want, 32))
		return 0;
	*paths = 0;
	for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
		if ((lk_cpu_probe() & b[i].need) != b[i].need)
			continue;
		lk_blake3_path(b[i].path);
		lk_blake3(p, n, md);
		ok &= !memcmp(md, want, 32);
		++*paths;
	}
	lk_blake3_path(LK_BLAKE3_AUTO);
	return ok;
}

int main(void)
{
	size_t n = 0;
	unsigned char *data = slurp(VECTORS, &n);
	struct rd r = { data, data + n };
	int streams = 0, truncs = 0, rngs = 0, bad = 0, eds = 0, edbad = 0;
	int b3 = 0, b3bad = 0, b3paths = 0;

	if (!data) {
		printf("not ok i386-vectors: cannot read %s\n", VECTORS);
		return 1;
	}
	while (r.p < r.end) {
		int kind = *r.p++;
		if (kind == 'Z')
			bad += !check_stream(&r, 0), streams++;
		else if (kind == 'T')
			bad += !check_stream(&r, 1), truncs++;
		else if (kind == 'R')
			bad += !check_rng(&r), rngs++;
		else if (kind == 'E')
			edbad += !check_ed25519(&r), eds++;
		else if (kind == 'B')
			b3bad += !check_blake3(&r, &b3paths), b3++;
		else
			break;
	}
	printf("%s i386-64bit-fmt-div\n", check_64bit() ? "ok" : "not ok");
	if (b3bad || b3 < 24)
		printf("not ok i386-blake3: %d of %d records wrong\n", b3bad, b3);
	else
		printf("ok i386-blake3 # %d messages, %d builds each\n", b3, b3paths);
	check_sha256_ni();
	printf("%s i386-ed25519-rfc8032\n", check_rfc8032() ? "ok" : "not ok");
	if (edbad || eds < 40)
		printf("not ok i386-ed25519-vectors: %d of %d records wrong\n",
		       edbad, eds);
	else
		printf("ok i386-ed25519-vectors # %d signatures\n", eds);
	printf("# %d streams, %d truncated (each with the portable and, where "
	       "the CPU has it, the BMI2 loop: %s), %d rng records, %d bad\n",
	       streams, truncs, lk_cpu_probe() & LK_CPU_BMI2 ? "both" : "portable",
	       rngs, bad);
	if (bad || !streams || !truncs || !rngs)
		printf("not ok i386-vectors: %d of %d records wrong\n", bad,
		       streams + truncs + rngs);
	else
		printf("ok i386-vectors\n");
	return 0;
}
