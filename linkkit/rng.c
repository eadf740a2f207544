/*
 * The layout generator: a ChaCha20 keystream keyed by SHA-256 of the seed.
 * Everything the layout depends on comes from here, so the same seed gives
 * the same kernel on the host (`linkkit link --seed`) and at boot.
 */
#include "linkkit.h"

static void lk_rng_setkey(struct lk_rng *r, const lk_u8 digest[32])
{
	int i;

	for (i = 0; i < 8; i++)
		r->key[i] = (lk_u32)digest[4 * i] |
			    (lk_u32)digest[4 * i + 1] << 8 |
			    (lk_u32)digest[4 * i + 2] << 16 |
			    (lk_u32)digest[4 * i + 3] << 24;
	r->nonce[0] = r->nonce[1] = r->nonce[2] = 0;
	r->counter = 0;
	r->used = sizeof(r->buf); /* nothing buffered from the old key */
	lk_wipe(r->buf, sizeof(r->buf));
}

void lk_rng_init(struct lk_rng *r, const void *seed, lk_size len)
{
	lk_u8 d[32];

	lk_sha256(seed, len, d);
	lk_rng_setkey(r, d);
	lk_wipe(d, sizeof(d));
}

void lk_rng_mix(struct lk_rng *r, const void *data, lk_size len)
{
	struct lk_sha256 c;
	lk_u8 k[32], d[32];
	int i;

	for (i = 0; i < 32; i++)
		k[i] = (lk_u8)(r->key[i / 4] >> (8 * (i % 4)));
	lk_sha256_init(&c);
	lk_sha256_update(&c, k, sizeof(k));
	lk_sha256_update(&c, data, len);
	lk_sha256_final(&c, d);
	lk_rng_setkey(r, d);
	lk_wipe(k, sizeof(k));
	lk_wipe(d, sizeof(d));
}

static void lk_rng_refill(struct lk_rng *r)
{
	lk_chacha20_block(r->key, r->counter, r->nonce, r->buf);
	/* 2^32 blocks is 256 GiB: never reached, but never repeat either. */
	if (++r->counter == 0)
		r->nonce[0]++;
	r->used = 0;
}

void lk_rng_bytes(struct lk_rng *r, void *out, lk_size len)
{
	lk_u8 *o = out;

	while (len) {
		lk_size n;

		if (r->used >= sizeof(r->buf))
			lk_rng_refill(r);
		n = sizeof(r->buf) - r->used;
		if (n > len)
			n = len;
		lk_memcpy(o, r->buf + r->used, n);
		/* Consumed output must not linger (backtracking resistance). */
		lk_wipe(r->buf + r->used, n);
		r->used += (lk_u32)n;
		o += n;
		len -= n;
	}
}

lk_u32 lk_rng_u32(struct lk_rng *r)
{
	lk_u8 b[4];
	lk_u32 v;

	lk_rng_bytes(r, b, sizeof(b));
	v = (lk_u32)b[0] | (lk_u32)b[1] << 8 | (lk_u32)b[2] << 16 |
	    (lk_u32)b[3] << 24;
	return v;
}

lk_u64 lk_rng_u64(struct lk_rng *r)
{
	lk_u64 lo = lk_rng_u32(r);

	return lo | (lk_u64)lk_rng_u32(r) << 32;
}

/* Smallest 2^k - 1 that covers v. */
static lk_u64 lk_mask_for(lk_u64 v)
{
	v |= v >> 1;
	v |= v >> 2;
	v |= v >> 4;
	v |= v >> 8;
	v |= v >> 16;
	v |= v >> 32;
	return v;
}

/*
 * Masked rejection: draw just enough bits and retry when out of range.
 * Unbiased, needs no division (i386), and expects under two draws.
 */
lk_u64 lk_rng_below(struct lk_rng *r, lk_u64 bound)
{
	lk_u64 mask, v;

	if (bound <= 1)
		return 0;
	mask = lk_mask_for(bound - 1);
	do {
		v = mask >> 32 ? lk_rng_u64(r) : lk_rng_u32(r);
		v &= mask;
	} while (v >= bound);
	return v;
}

void lk_shuffle_u32(struct lk_rng *r, lk_u32 *v, lk_u32 n)
{
	lk_u32 i, j, t;

	for (i = n; i > 1; i--) {
		j = (lk_u32)lk_rng_below(r, i);
		t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

void lk_rng_wipe(struct lk_rng *r)
{
	lk_wipe(r, sizeof(*r));
}
