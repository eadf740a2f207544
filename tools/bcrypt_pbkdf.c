/*
 * bcrypt_pbkdf (the KDF OpenBSD's signify uses to encrypt secret keys):
 * PBKDF2-like, with SHA-512 collapsing the password and the salt, and
 * "bcrypt_hash" (eksblowfish key schedule, then 64 encryptions of a fixed
 * 32-byte text) as the pseudo-random function; the output bytes of each
 * block are spread over the key with a stride instead of concatenated.
 * Host side only (tools/): the boot stages never decrypt keys.
 *
 * Blowfish's initial state is the fractional part of pi in hex. Instead of
 * a 4 KiB table it is computed once here (Machin's formula on a fixed-point
 * bignum, a few milliseconds) and checked against its known first words.
 */
#include <stdint.h>
#include <string.h>

#include "../linkkit/linkkit.h"
#include "bcrypt_pbkdf.h"

#define BF_WORDS (18 + 4 * 256) /* P array, then the four S-boxes */
#define PI_WORDS (BF_WORDS + 4) /* guard words absorb truncation error */

struct bf {
	uint32_t p[18];
	uint32_t s[4][256];
};

static uint32_t bf_pi[BF_WORDS];

/* x /= d for a fixed-point number x[0] . x[1..n-1] (base 2^32). */
static void big_div(uint32_t *x, uint32_t d)
{
	uint64_t rem = 0;

	for (int i = 0; i < PI_WORDS + 1; i++) {
		uint64_t cur = rem << 32 | x[i];

		x[i] = (uint32_t)(cur / d);
		rem = cur % d;
	}
}

static void big_addsub(uint32_t *acc, const uint32_t *t, int sub)
{
	uint64_t carry = 0;

	for (int i = PI_WORDS; i >= 0; i--) {
		uint64_t v = sub ? (uint64_t)acc[i] - t[i] - carry
				 : (uint64_t)acc[i] + t[i] + carry;

		acc[i] = (uint32_t)v;
		carry = sub ? (v >> 63) : (v >> 32);
	}
}

static int big_zero(const uint32_t *x)
{
	for (int i = 0; i <= PI_WORDS; i++)
		if (x[i])
			return 0;
	return 1;
}

/* acc += sign * k * arctan(1/m), by the alternating series. */
static void arctan_inv(uint32_t *acc, uint32_t m, uint32_t k, int sub)
{
	static uint32_t pw[PI_WORDS + 1], t[PI_WORDS + 1];

	memset(pw, 0, sizeof(pw));
	pw[0] = k;
	big_div(pw, m);
	for (uint32_t n = 0; !big_zero(pw); n++) {
		memcpy(t, pw, sizeof(t));
		big_div(t, 2 * n + 1);
		big_addsub(acc, t, sub ^ (int)(n & 1));
		big_div(pw, m * m);
	}
}

/* pi = 16 arctan(1/5) - 4 arctan(1/239); its fraction is the state. */
static int bf_init_pi(void)
{
	static uint32_t pi[PI_WORDS + 1];
	static int done;

	if (done)
		return 0;
	memset(pi, 0, sizeof(pi));
	arctan_inv(pi, 5, 16, 0);
	arctan_inv(pi, 239, 4, 1);
	/* Known words of Blowfish's state: P[0], P[17], S[0][0], S[3][255]. */
	if (pi[0] != 3 || pi[1] != 0x243f6a88 || pi[18] != 0x8979fb1b ||
	    pi[19] != 0xd1310ba6 || pi[BF_WORDS] != 0x3ac372e6)
		return -1;
	memcpy(bf_pi, pi + 1, sizeof(bf_pi));
	done = 1;
	return 0;
}

static uint32_t bf_f(const struct bf *c, uint32_t x)
{
	return ((c->s[0][x >> 24] + c->s[1][(x >> 16) & 255]) ^
		c->s[2][(x >> 8) & 255]) +
	       c->s[3][x & 255];
}

static void bf_encipher(const struct bf *c, uint32_t *l, uint32_t *r)
{
	uint32_t xl = *l, xr = *r;

	xl ^= c->p[0];
	for (int i = 1; i <= 16; i += 2) {
		xr ^= bf_f(c, xl) ^ c->p[i];
		xl ^= bf_f(c, xr) ^ c->p[i + 1];
	}
	*l = xr ^ c->p[17];
	*r = xl;
}

/* The next big-endian word of data, cycling through it. */
static uint32_t stream_word(const uint8_t *data, size_t n, size_t *j)
{
	uint32_t w = 0;

	for (int i = 0; i < 4; i++) {
		w = w << 8 | data[*j];
		*j = (*j + 1) % n;
	}
	return w;
}

/* Blowfish key schedule with optional salt (data == NULL: none), as in
 * eksblowfish: the key is XORed into P, then P and S are rewritten by
 * encrypting a running block that absorbs the salt. */
static void bf_expand(struct bf *c, const uint8_t *data, size_t dn,
		      const uint8_t *key, size_t kn)
{
	uint32_t l = 0, r = 0, *w = c->p;
	size_t j = 0;

	for (int i = 0; i < 18; i++)
		c->p[i] ^= stream_word(key, kn, &j);
	j = 0;
	/* P and the S-boxes are one run of 18 + 1024 words. */
	for (int i = 0; i < BF_WORDS; i += 2) {
		if (data) {
			l ^= stream_word(data, dn, &j);
			r ^= stream_word(data, dn, &j);
		}
		bf_encipher(c, &l, &r);
		w = i < 18 ? &c->p[i] : &c->s[(i - 18) / 256][(i - 18) % 256];
		w[0] = l;
		w[1] = r;
	}
}

static void bcrypt_hash(const uint8_t pass[64], const uint8_t salt[64],
			uint8_t out[32])
{
	static const char text[] = "OxychromaticBlowfishSwatDynamite";
	struct bf c;
	uint32_t cd[8];
	size_t j = 0;

	memcpy(c.p, bf_pi, sizeof(c.p));
	memcpy(c.s, bf_pi + 18, sizeof(c.s));
	bf_expand(&c, salt, 64, pass, 64);
	for (int i = 0; i < 64; i++) {
		bf_expand(&c, NULL, 0, salt, 64);
		bf_expand(&c, NULL, 0, pass, 64);
	}
	for (int i = 0; i < 8; i++)
		cd[i] = stream_word((const uint8_t *)text, 32, &j);
	for (int i = 0; i < 64; i++)
		for (int b = 0; b < 8; b += 2)
			bf_encipher(&c, &cd[b], &cd[b + 1]);
	/* Little-endian words out: bcrypt_pbkdf's (not bcrypt's) convention. */
	for (int i = 0; i < 8; i++)
		for (int b = 0; b < 4; b++)
			out[4 * i + b] = (uint8_t)(cd[i] >> (8 * b));
	lk_wipe(&c, sizeof(c));
	lk_wipe(cd, sizeof(cd));
}

int bcrypt_pbkdf(const char *pass, size_t passlen, const uint8_t *salt,
		 size_t saltlen, uint8_t *key, size_t keylen, unsigned rounds)
{
	uint8_t hpass[64], hsalt[64], out[32], tmp[32], cnt[4];
	size_t stride, amt, done = 0;
	struct lk_sha512 ctx;

	if (bf_init_pi() || rounds < 1 || !passlen || !saltlen || !keylen ||
	    keylen > sizeof(out) * sizeof(out))
		return -1;
	stride = (keylen + sizeof(out) - 1) / sizeof(out);
	amt = (keylen + stride - 1) / stride;
	lk_sha512(pass, passlen, hpass);
	for (uint32_t count = 1; done < keylen; count++) {
		for (int b = 0; b < 4; b++)
			cnt[b] = (uint8_t)(count >> (24 - 8 * b));
		lk_sha512_init(&ctx);
		lk_sha512_update(&ctx, salt, saltlen);
		lk_sha512_update(&ctx, cnt, 4);
		lk_sha512_final(&ctx, hsalt);
		bcrypt_hash(hpass, hsalt, tmp);
		memcpy(out, tmp, sizeof(out));
		for (unsigned r = 1; r < rounds; r++) {
			lk_sha512(tmp, sizeof(tmp), hsalt);
			bcrypt_hash(hpass, hsalt, tmp);
			for (size_t i = 0; i < sizeof(out); i++)
				out[i] ^= tmp[i];
		}
		/* Byte i of block `count` goes to key[i * stride + count - 1].
		 */
		for (size_t i = 0; i < amt && done < keylen; i++) {
			size_t dest = i * stride + count - 1;

			if (dest >= keylen)
				break;
			key[dest] = out[i];
			done++;
		}
	}
	lk_wipe(hpass, sizeof(hpass));
	lk_wipe(hsalt, sizeof(hsalt));
	lk_wipe(out, sizeof(out));
	lk_wipe(tmp, sizeof(tmp));
	return 0;
}
