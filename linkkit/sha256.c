/* SHA-256 (FIPS 180-4): kit integrity and the RNG's key derivation. The
 * compression runs on SHA-NI when the build and the CPU allow it
 * (sha256_ni.c), else on the portable code below. */
#include "cpu.h"
#include "sha256_impl.h"

const lk_u32 lk_sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static lk_u32 lk_ror(lk_u32 x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static lk_u32 lk_be32(const lk_u8 *p)
{
	return (lk_u32)p[0] << 24 | (lk_u32)p[1] << 16 | (lk_u32)p[2] << 8 |
	       p[3];
}

/* w is the caller's schedule scratch, wiped once per call of
 * lk_sha256_blocks_portable, not per block (it holds message words: the
 * RNG's seed). */
static void lk_sha256_block(lk_u32 st[8], const lk_u8 *blk, lk_u32 w[64])
{
	lk_u32 a, b, c, d, e, f, g, h;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = lk_be32(blk + 4 * i);
	for (; i < 64; i++) {
		lk_u32 s0 = lk_ror(w[i - 15], 7) ^ lk_ror(w[i - 15], 18) ^
			    (w[i - 15] >> 3);
		lk_u32 s1 = lk_ror(w[i - 2], 17) ^ lk_ror(w[i - 2], 19) ^
			    (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = st[0], b = st[1], c = st[2], d = st[3];
	e = st[4], f = st[5], g = st[6], h = st[7];
	/* Eight rounds per iteration with the variables renamed instead of
	 * shifted: no register moves between rounds (the boot stages build
	 * with -Os, which would not unroll). Ch and Maj in their
	 * fewer-operation forms. */
#define LK_SHA_ROUND(a, b, c, d, e, f, g, h, k)                             \
	do {                                                                \
		lk_u32 x = h +                                              \
			   (lk_ror(e, 6) ^ lk_ror(e, 11) ^ lk_ror(e, 25)) + \
			   (g ^ (e & (f ^ g))) + lk_sha256_k[k] + w[k];     \
		d += x;                                                     \
		h = x + (lk_ror(a, 2) ^ lk_ror(a, 13) ^ lk_ror(a, 22)) +    \
		    ((a & b) | (c & (a | b)));                              \
	} while (0)
	for (i = 0; i < 64; i += 8) {
		LK_SHA_ROUND(a, b, c, d, e, f, g, h, i);
		LK_SHA_ROUND(h, a, b, c, d, e, f, g, i + 1);
		LK_SHA_ROUND(g, h, a, b, c, d, e, f, i + 2);
		LK_SHA_ROUND(f, g, h, a, b, c, d, e, i + 3);
		LK_SHA_ROUND(e, f, g, h, a, b, c, d, i + 4);
		LK_SHA_ROUND(d, e, f, g, h, a, b, c, i + 5);
		LK_SHA_ROUND(c, d, e, f, g, h, a, b, i + 6);
		LK_SHA_ROUND(b, c, d, e, f, g, h, a, i + 7);
	}
#undef LK_SHA_ROUND
	st[0] += a, st[1] += b, st[2] += c, st[3] += d;
	st[4] += e, st[5] += f, st[6] += g, st[7] += h;
}

void lk_sha256_blocks_portable(lk_u32 st[8], const lk_u8 *p, lk_size n)
{
	lk_u32 w[64];

	for (; n; n--, p += 64)
		lk_sha256_block(st, p, w);
	lk_wipe(w, sizeof(w));
}

/* -1: not decided yet; 0: portable; 1: SHA-NI. Decided on first use so
 * CPUID (a VM exit under a hypervisor) runs once per boot. */
static int lk_sha256_ni = -1;

int lk_sha256_select(int mode)
{
#ifdef LK_SHA256_HAVE_NI
	lk_sha256_ni =
		mode == LK_SHA256_NI ||
		(mode == LK_SHA256_AUTO && (lk_cpu_features() & LK_CPU_SHA));
#else
	(void)mode;
	lk_sha256_ni = 0;
#endif
	return lk_sha256_ni;
}

static void lk_sha256_blocks(lk_u32 st[8], const lk_u8 *p, lk_size n)
{
	if (lk_sha256_ni < 0)
		lk_sha256_select(LK_SHA256_AUTO);
#ifdef LK_SHA256_HAVE_NI
	if (lk_sha256_ni) {
		lk_sha256_blocks_ni(st, p, n);
		return;
	}
#endif
	lk_sha256_blocks_portable(st, p, n);
}

void lk_sha256_init(struct lk_sha256 *c)
{
	static const lk_u32 iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};
	int i;

	for (i = 0; i < 8; i++)
		c->state[i] = iv[i];
	c->length = 0;
	c->fill = 0;
}

void lk_sha256_update(struct lk_sha256 *c, const void *data, lk_size len)
{
	const lk_u8 *p = data;

	c->length += len;
	if (c->fill) {
		while (len && c->fill < 64) {
			c->block[c->fill++] = *p++;
			len--;
		}
		if (c->fill < 64)
			return;
		lk_sha256_blocks(c->state, c->block, 1);
		c->fill = 0;
	}
	if (len >= 64) {
		lk_sha256_blocks(c->state, p, len / 64);
		p += len & ~(lk_size)63;
		len &= 63;
	}
	while (len--)
		c->block[c->fill++] = *p++;
}

void lk_sha256_final(struct lk_sha256 *c, lk_u8 out[32])
{
	lk_u64 bits = c->length << 3;
	int i;

	c->block[c->fill++] = 0x80;
	if (c->fill > 56) {
		while (c->fill < 64)
			c->block[c->fill++] = 0;
		lk_sha256_blocks(c->state, c->block, 1);
		c->fill = 0;
	}
	while (c->fill < 56)
		c->block[c->fill++] = 0;
	for (i = 0; i < 8; i++)
		c->block[56 + i] = (lk_u8)(bits >> (56 - 8 * i));
	lk_sha256_blocks(c->state, c->block, 1);
	for (i = 0; i < 32; i++)
		out[i] = (lk_u8)(c->state[i / 4] >> (24 - 8 * (i % 4)));
	lk_wipe(c, sizeof(*c));
}

void lk_sha256(const void *data, lk_size len, lk_u8 out[32])
{
	struct lk_sha256 c;

	lk_sha256_init(&c);
	lk_sha256_update(&c, data, len);
	lk_sha256_final(&c, out);
}
