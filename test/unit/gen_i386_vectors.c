/*
 * Writes the vectors for test_i386 (the core's i386 freestanding objects,
 * as the BIOS stage links them, checked against this host build):
 *   'Z' u32 raw_len u32 zlen zdata[zlen] sha256(raw)   must inflate
 *   'T' u32 raw_len u32 cut u32 zlen zdata[zlen]       first cut bytes must fail
 *   'R' u32 seed_len seed u32 n sha256(rng bytes) u64 below[16] u32 shuf[16]
 *   'E' u32 mlen seed[32] msg[mlen] sha512(msg) pubkey[32] sig[64]
 *       u32 tlen text[tlen]   Ed25519 of msg under seed, and the same
 *       signature as a signify file (key number "i386test")
 *   'B' u32 n data[n] blake3(data)   (this build's BLAKE3 is checked
 *       against b3sum by test_blake3)
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

static void b64(const unsigned char *p, size_t n, char *out)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrst"
				"uvwxyz0123456789+/";

	for (size_t i = 0; i < n; i += 3, out += 4) {
		uint32_t v = (uint32_t)p[i] << 16 |
			     (i + 1 < n ? p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);

		out[0] = t[v >> 18];
		out[1] = t[(v >> 12) & 63];
		out[2] = i + 1 < n ? t[(v >> 6) & 63] : '=';
		out[3] = i + 2 < n ? t[v & 63] : '=';
	}
	*out = 0;
}

/* Message lengths cover the empty message, SHA-512 block edges and
 * multi-block messages. */
static void put_ed25519(FILE *f, int i)
{
	static const uint32_t edge[] = { 0,   1,   111, 112, 127,
					 128, 129, 239, 240, 256 };
	uint32_t n = i < 10 ? edge[i] : tap_below(3000);
	unsigned char sk[64], sig[64], md[64], raw[74], *msg = malloc(n + 1);
	char text[200];

	for (int k = 0; k < 32; k++)
		sk[k] = (unsigned char)tap_rand();
	for (uint32_t k = 0; k < n; k++)
		msg[k] = (unsigned char)tap_rand();
	lk_ed25519_pubkey(sk + 32, sk);
	lk_ed25519_sign(sig, msg, n, sk);
	lk_sha512(msg, n, md);
	memcpy(raw, "Edi386test", 10);
	memcpy(raw + 10, sig, 64);
	strcpy(text, "untrusted comment: i386 test\n");
	b64(raw, sizeof(raw), text + strlen(text));
	strcat(text, "\n");
	fputc('E', f);
	put32(f, n);
	fwrite(sk, 1, 32, f);
	fwrite(msg, 1, n, f);
	fwrite(md, 1, 64, f);
	fwrite(sk + 32, 1, 32, f);
	fwrite(sig, 1, 64, f);
	put32(f, (uint32_t)strlen(text));
	fwrite(text, 1, strlen(text), f);
	free(msg);
}

/* Lengths around chunk (1 KiB) and lane-batch (4, 8 chunks) edges. */
static void put_blake3(FILE *f, int i)
{
	static const uint32_t edge[] = { 0,    1,	 1024, 1025, 4097,
					 5120, 9 * 1024 + 1, 20000 };
	uint32_t n = i < 8 ? edge[i] : tap_below(70000);
	unsigned char md[32], *p = malloc(n + 1);

	for (uint32_t k = 0; k < n; k++)
		p[k] = (unsigned char)tap_rand();
	lk_blake3_path(LK_BLAKE3_PORTABLE);
	lk_blake3(p, n, md);
	fputc('B', f);
	put32(f, n);
	fwrite(p, 1, n, f);
	fwrite(md, 1, 32, f);
	free(p);
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
	for (int i = 0; i < 40; i++)
		put_ed25519(f, i);
	for (int i = 0; i < 24; i++)
		put_blake3(f, i);
	return fclose(f) != 0;
}
