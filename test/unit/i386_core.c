/*
 * Runs the i386 freestanding objects (exactly what the BIOS stage links)
 * on this machine in 32-bit mode, against vectors the 64-bit host build
 * wrote (gen_i386_vectors.c), and checks 64-bit formatting and division,
 * the paths where i386 code differs most.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linkkit.h"

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
	int rc;

	if (!take(r, &n, 4) || (must_fail && !take(r, &cut, 4)) ||
	    !take(r, &zn, 4))
		return 0;
	z = r->p;
	if (!take(r, NULL, zn) || (!must_fail && !take(r, want, 32)))
		return 0;
	out = malloc(n ? n : 1);
	rc = lk_inflate_zlib(z, must_fail ? cut : zn, out, n, &got);
	lk_sha256(out, got, md);
	free(out);
	if (must_fail)
		return rc != LK_OK;
	return rc == LK_OK && got == n && !memcmp(md, want, 32);
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

int main(void)
{
	size_t n = 0;
	unsigned char *data = slurp(VECTORS, &n);
	struct rd r = { data, data + n };
	int streams = 0, truncs = 0, rngs = 0, bad = 0;

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
		else
			break;
	}
	printf("%s i386-64bit-fmt-div\n", check_64bit() ? "ok" : "not ok");
	printf("# %d streams, %d truncated, %d rng records, %d bad\n", streams,
	       truncs, rngs, bad);
	if (bad || !streams || !truncs || !rngs)
		printf("not ok i386-vectors: %d of %d records wrong\n", bad,
		       streams + truncs + rngs);
	else
		printf("ok i386-vectors\n");
	return 0;
}
