/*
 * Writes the vectors for test_i386 (the core's i386 freestanding objects,
 * as the BIOS stage links them, checked against this host build):
 *   'Z' u32 raw_len u32 zlen zdata[zlen] sha256(raw)   must inflate
 *   'T' u32 raw_len u32 cut u32 zlen zdata[zlen]       first cut bytes must fail
 *   'R' u32 seed_len seed u32 n sha256(rng bytes) u64 below[16] u32 shuf[16]
 */
#include <string.h>
#include <zlib.h>

#include "linkkit.h"
#include "tap.h"

static void put32(FILE *f, uint32_t v)
{
	fwrite(&v, 4, 1, f);
}

static unsigned char *gen(size_t n, int kind)
{
	unsigned char *p = malloc(n ? n : 1);

	for (size_t i = 0; i < n; i++) {
		uint64_t r = tap_rand();
		if (kind == 0)
			p[i] = (unsigned char)r;
		else if (kind == 1 && i > 300 && r % 3)
			p[i] = p[i - 1 - r % 300];
		else
			p[i] = (unsigned char)("relink kernel \n"[r % 15]);
	}
	return p;
}

static void put_stream(FILE *f, int i)
{
	size_t n = tap_below(i % 7 ? 30000 : 150000);
	unsigned char *in = gen(n, i % 3), md[32];
	uLongf zn = compressBound(n);
	unsigned char *z = malloc(zn);

	compress2(z, &zn, in, n, i % 10);
	lk_sha256(in, n, md);
	fputc('Z', f);
	put32(f, (uint32_t)n);
	put32(f, (uint32_t)zn);
	fwrite(z, 1, zn, f);
	fwrite(md, 1, 32, f);
	fputc('T', f);
	put32(f, (uint32_t)n);
	put32(f, (uint32_t)(zn - 1 - tap_below((uint32_t)zn - 1)));
	put32(f, (uint32_t)zn);
	fwrite(z, 1, zn, f);
	free(in);
	free(z);
}

static void put_rng(FILE *f, int i)
{
	struct lk_rng r;
	unsigned char seed[40], md[32], *buf;
	uint32_t slen = (uint32_t)tap_below(sizeof(seed)), n = 1 + tap_below(5000);
	lk_u32 shuf[16];

	for (uint32_t k = 0; k < slen; k++)
		seed[k] = (unsigned char)tap_rand();
	buf = malloc(n);
	lk_rng_init(&r, seed, slen);
	if (i % 2)
		lk_rng_mix(&r, seed, slen / 2);
	lk_rng_bytes(&r, buf, n);
	lk_sha256(buf, n, md);
	fputc('R', f);
	put32(f, slen);
	fwrite(seed, 1, slen, f);
	put32(f, n);
	fwrite(md, 1, 32, f);
	for (int k = 0; k < 16; k++) {
		lk_u64 bound = k < 8 ? 1 + (tap_rand() >> (64 - 4 * k - 4))
				     : tap_rand() >> tap_below(64);
		lk_u64 v = lk_rng_below(&r, bound ? bound : 1);
		fwrite(&bound, 8, 1, f);
		fwrite(&v, 8, 1, f);
	}
	for (int k = 0; k < 16; k++)
		shuf[k] = (lk_u32)k;
	lk_shuffle_u32(&r, shuf, 16);
	fwrite(shuf, 4, 16, f);
	lk_rng_wipe(&r);
	free(buf);
}

int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "wb") : NULL;

	if (!f)
		return 1;
	for (int i = 0; i < 200; i++)
		put_stream(f, i);
	for (int i = 0; i < 100; i++)
		put_rng(f, i);
	return fclose(f) != 0;
}
