/*
 * Ed25519 (RFC 8032, pure) for kit signatures: verification in the boot
 * stages, signing in the linkkit tool.
 *
 * Field elements are 16 signed limbs of 16 bits held in 64-bit integers,
 * so products need only 64-bit multiplies and shifts, never a division
 * (the i386 BIOS stage builds this file too). Points use extended twisted
 * Edwards coordinates with the unified addition law, which also doubles,
 * so the scalar ladder runs the same operations for every bit. Scalars mod
 * L are reduced bit by bit with masked subtractions: slow but short,
 * obviously correct and constant-time. The curve constants are derived at
 * run time from their definitions instead of being typed in as tables.
 */
#include "linkkit.h"

typedef lk_i64 lk_fe[16];

struct lk_pt {
	lk_fe x, y, z, t;
};

struct lk_curve {
	lk_fe d, d2, sqrtm1;
	struct lk_pt base;
};

static void lk_fe_copy(lk_fe o, const lk_fe a)
{
	int i;

	for (i = 0; i < 16; i++)
		o[i] = a[i];
}

static void lk_fe_small(lk_fe o, lk_u32 v)
{
	int i;

	for (i = 0; i < 16; i++)
		o[i] = 0;
	o[0] = v & 0xffff;
	o[1] = v >> 16;
}

/* Moves each limb's excess into the next; 2^256 = 38 (mod p) wraps the
 * top carry around. The shift of a negative value is arithmetic in every
 * compiler this builds with. */
static void lk_fe_carry(lk_fe o)
{
	lk_i64 c;
	int i;

	for (i = 0; i < 16; i++) {
		c = o[i] >> 16;
		o[i] -= c * 65536;
		if (i < 15)
			o[i + 1] += c;
		else
			o[0] += 38 * c;
	}
}

static void lk_fe_add(lk_fe o, const lk_fe a, const lk_fe b)
{
	int i;

	for (i = 0; i < 16; i++)
		o[i] = a[i] + b[i];
}

static void lk_fe_sub(lk_fe o, const lk_fe a, const lk_fe b)
{
	int i;

	for (i = 0; i < 16; i++)
		o[i] = a[i] - b[i];
}

static void lk_fe_mul(lk_fe o, const lk_fe a, const lk_fe b)
{
	lk_i64 t[31];
	int i, j;

	for (i = 0; i < 31; i++)
		t[i] = 0;
	for (i = 0; i < 16; i++)
		for (j = 0; j < 16; j++)
			t[i + j] += a[i] * b[j];
	for (i = 0; i < 15; i++)
		t[i] += 38 * t[i + 16];
	for (i = 0; i < 16; i++)
		o[i] = t[i];
	lk_fe_carry(o);
	lk_fe_carry(o);
}

/* Swaps a and b when bit is 1, without a branch on bit. */
static void lk_fe_cswap(lk_fe a, lk_fe b, lk_i64 bit)
{
	lk_i64 m = -bit, x;
	int i;

	for (i = 0; i < 16; i++) {
		x = m & (a[i] ^ b[i]);
		a[i] ^= x;
		b[i] ^= x;
	}
}

/* a^e for a public exponent e (32 bytes, little-endian). */
static void lk_fe_pow(lk_fe o, const lk_fe a, const lk_u8 e[32])
{
	lk_fe c;
	int i;

	lk_fe_small(c, 1);
	for (i = 255; i >= 0; i--) {
		lk_fe_mul(c, c, c);
		if ((e[i >> 3] >> (i & 7)) & 1)
			lk_fe_mul(c, c, a);
	}
	lk_fe_copy(o, c);
}

/* Exponents of the form 2^n - k: all ones but the low byte and the top. */
static void lk_fe_pow_special(lk_fe o, const lk_fe a, lk_u8 low, lk_u8 top)
{
	lk_u8 e[32];
	int i;

	for (i = 0; i < 32; i++)
		e[i] = 0xff;
	e[0] = low;
	e[31] = top;
	lk_fe_pow(o, a, e);
}

/* 1/a = a^(p-2), p - 2 = 2^255 - 21. */
static void lk_fe_inv(lk_fe o, const lk_fe a)
{
	lk_fe_pow_special(o, a, 0xeb, 0x7f);
}

/* Fully reduced little-endian encoding. */
static void lk_fe_pack(lk_u8 out[32], const lk_fe a)
{
	lk_fe t, m;
	lk_i64 b;
	int i, k;

	lk_fe_copy(t, a);
	lk_fe_carry(t);
	lk_fe_carry(t);
	lk_fe_carry(t);
	for (k = 0; k < 2; k++) {
		m[0] = t[0] - 0xffed;
		for (i = 1; i < 15; i++) {
			m[i] = t[i] - 0xffff - ((m[i - 1] >> 16) & 1);
			m[i - 1] &= 0xffff;
		}
		m[15] = t[15] - 0x7fff - ((m[14] >> 16) & 1);
		m[14] &= 0xffff;
		b = (m[15] >> 16) & 1;
		m[15] &= 0xffff;
		/* keep t - p unless it borrowed */
		lk_fe_cswap(t, m, 1 - b);
	}
	for (i = 0; i < 16; i++) {
		out[2 * i] = (lk_u8)(t[i] & 0xff);
		out[2 * i + 1] = (lk_u8)((t[i] >> 8) & 0xff);
	}
}

/* Ignores bit 255 (the sign of x in a point encoding). */
static void lk_fe_unpack(lk_fe o, const lk_u8 in[32])
{
	int i;

	for (i = 0; i < 16; i++)
		o[i] = in[2 * i] | (lk_i64)in[2 * i + 1] << 8;
	o[15] &= 0x7fff;
}

static int lk_fe_eq(const lk_fe a, const lk_fe b)
{
	lk_u8 x[32], y[32];

	lk_fe_pack(x, a);
	lk_fe_pack(y, b);
	return lk_memcmp(x, y, 32) == 0;
}

static int lk_fe_parity(const lk_fe a)
{
	lk_u8 x[32];

	lk_fe_pack(x, a);
	return x[0] & 1;
}

/* p3 = p1 + p2 (add-2008-hwcd-3 for a = -1; also correct for p1 == p2). */
static void lk_pt_add(struct lk_pt *p3, const struct lk_pt *p1, const struct lk_pt *p2,
		      const struct lk_curve *cv)
{
	lk_fe a, b, c, d, e, f, g, h, t;

	lk_fe_sub(a, p1->y, p1->x);
	lk_fe_sub(t, p2->y, p2->x);
	lk_fe_mul(a, a, t);
	lk_fe_add(b, p1->y, p1->x);
	lk_fe_add(t, p2->y, p2->x);
	lk_fe_mul(b, b, t);
	lk_fe_mul(c, p1->t, p2->t);
	lk_fe_mul(c, c, cv->d2);
	lk_fe_mul(d, p1->z, p2->z);
	lk_fe_add(d, d, d);
	lk_fe_sub(e, b, a);
	lk_fe_sub(f, d, c);
	lk_fe_add(g, d, c);
	lk_fe_add(h, b, a);
	lk_fe_mul(p3->x, e, f);
	lk_fe_mul(p3->y, g, h);
	lk_fe_mul(p3->t, e, h);
	lk_fe_mul(p3->z, f, g);
}

static void lk_pt_cswap(struct lk_pt *p, struct lk_pt *q, lk_i64 bit)
{
	lk_fe_cswap(p->x, q->x, bit);
	lk_fe_cswap(p->y, q->y, bit);
	lk_fe_cswap(p->z, q->z, bit);
	lk_fe_cswap(p->t, q->t, bit);
}

static void lk_pt_identity(struct lk_pt *p)
{
	lk_fe_small(p->x, 0);
	lk_fe_small(p->y, 1);
	lk_fe_small(p->z, 1);
	lk_fe_small(p->t, 0);
}

/* r = [s]p; the same adds and swaps run for every bit of s. */
static void lk_pt_mul(struct lk_pt *r, const struct lk_pt *p, const lk_u8 s[32],
		      const struct lk_curve *cv)
{
	struct lk_pt r0, r1;
	lk_i64 bit;
	int i;

	lk_pt_identity(&r0);
	r1 = *p;
	for (i = 255; i >= 0; i--) {
		bit = (s[i >> 3] >> (i & 7)) & 1;
		lk_pt_cswap(&r0, &r1, bit);
		lk_pt_add(&r1, &r0, &r1, cv);
		lk_pt_add(&r0, &r0, &r0, cv);
		lk_pt_cswap(&r0, &r1, bit);
	}
	*r = r0;
	lk_wipe(&r0, sizeof(r0));
	lk_wipe(&r1, sizeof(r1));
}

/* r = [a]p + [b]q, both scalars public (verification): one shared chain
 * of doublings with p, q or p+q added per bit (Straus), about half the
 * work of two ladders. Variable time on purpose: nothing here is secret. */
static void lk_pt_mul2_public(struct lk_pt *r, const lk_u8 a[32], const struct lk_pt *p,
			      const lk_u8 b[32], const struct lk_pt *q,
			      const struct lk_curve *cv)
{
	struct lk_pt pq;
	int i, ba, bb;

	lk_pt_add(&pq, p, q, cv);
	lk_pt_identity(r);
	for (i = 255; i >= 0; i--) {
		lk_pt_add(r, r, r, cv);
		ba = (a[i >> 3] >> (i & 7)) & 1;
		bb = (b[i >> 3] >> (i & 7)) & 1;
		if (ba && bb)
			lk_pt_add(r, r, &pq, cv);
		else if (ba)
			lk_pt_add(r, r, p, cv);
		else if (bb)
			lk_pt_add(r, r, q, cv);
	}
}

static void lk_pt_pack(lk_u8 out[32], const struct lk_pt *p)
{
	lk_fe zi, x, y;

	lk_fe_inv(zi, p->z);
	lk_fe_mul(x, p->x, zi);
	lk_fe_mul(y, p->y, zi);
	lk_fe_pack(out, y);
	out[31] ^= (lk_u8)(lk_fe_parity(x) << 7);
}

/* Decodes a point (RFC 8032 5.1.3), negated when neg is set; -1 when the
 * encoding is not canonical or not on the curve. Public data only. */
static int lk_pt_unpack(struct lk_pt *p, const lk_u8 in[32], int neg,
			const struct lk_curve *cv)
{
	lk_fe u, v, v3, t, chk;
	lk_u8 canon[32];
	int sign = in[31] >> 7;

	lk_fe_unpack(p->y, in);
	lk_fe_pack(canon, p->y);
	canon[31] |= (lk_u8)(sign << 7);
	if (lk_memcmp(canon, in, 32) != 0)
		return -1;
	lk_fe_small(p->z, 1);
	lk_fe_mul(u, p->y, p->y);
	lk_fe_mul(v, u, cv->d);
	lk_fe_sub(u, u, p->z);
	lk_fe_add(v, v, p->z);
	/* x = u v^3 (u v^7)^((p-5)/8) */
	lk_fe_mul(v3, v, v);
	lk_fe_mul(v3, v3, v);
	lk_fe_mul(t, v3, v3);
	lk_fe_mul(t, t, v);
	lk_fe_mul(t, t, u);
	lk_fe_pow_special(t, t, 0xfd, 0x0f);
	lk_fe_mul(t, t, v3);
	lk_fe_mul(p->x, t, u);
	lk_fe_mul(chk, p->x, p->x);
	lk_fe_mul(chk, chk, v);
	if (!lk_fe_eq(chk, u)) {
		lk_fe_small(t, 0);
		lk_fe_sub(t, t, u);
		if (!lk_fe_eq(chk, t))
			return -1;
		lk_fe_mul(p->x, p->x, cv->sqrtm1);
	}
	lk_fe_small(t, 0);
	if (sign && lk_fe_eq(p->x, t))
		return -1;
	if ((lk_fe_parity(p->x) != sign) != !!neg)
		lk_fe_sub(p->x, t, p->x);
	lk_fe_mul(p->t, p->x, p->y);
	return 0;
}

static void lk_curve_init(struct lk_curve *cv)
{
	lk_fe n, q;
	lk_u8 b[32];
	int i;

	/* d = -121665 / 121666 */
	lk_fe_small(q, 121666);
	lk_fe_inv(q, q);
	lk_fe_small(n, 0);
	lk_fe_small(cv->d, 121665);
	lk_fe_sub(n, n, cv->d);
	lk_fe_mul(cv->d, n, q);
	lk_fe_add(cv->d2, cv->d, cv->d);
	/* sqrt(-1) = 2^((p-1)/4), (p-1)/4 = 2^253 - 5 */
	lk_fe_small(n, 2);
	lk_fe_pow_special(cv->sqrtm1, n, 0xfb, 0x1f);
	/* B: y = 4/5, x even; its encoding is 0x58 then 0x66 bytes */
	b[0] = 0x58;
	for (i = 1; i < 32; i++)
		b[i] = 0x66;
	lk_pt_unpack(&cv->base, b, 0, cv);
}

/* ---- scalars mod L = 2^252 + 27742317777372353535851937790883648493 ---- */

static const lk_u32 lk_sc_l[8] = {
	0x5cf5d3ed, 0x5812631a, 0xa2f79cd6, 0x14def9de, 0, 0, 0, 0x10000000,
};

/* r -= L unless that borrows; masked, no branch on r. */
static void lk_sc_csub(lk_u32 r[8])
{
	lk_u32 t[8], mask, borrow = 0;
	lk_u64 d;
	int i;

	for (i = 0; i < 8; i++) {
		d = (lk_u64)r[i] - lk_sc_l[i] - borrow;
		t[i] = (lk_u32)d;
		borrow = (lk_u32)(d >> 32) & 1;
	}
	mask = borrow - 1;
	for (i = 0; i < 8; i++)
		r[i] = (t[i] & mask) | (r[i] & ~mask);
}

/* out = in mod L for an n-byte little-endian in, one bit at a time. */
static void lk_sc_reduce(lk_u8 out[32], const lk_u8 *in, int n)
{
	lk_u32 r[8] = { 0 };
	int i, j;

	for (i = 8 * n - 1; i >= 0; i--) {
		for (j = 7; j > 0; j--)
			r[j] = r[j] << 1 | r[j - 1] >> 31;
		r[0] = r[0] << 1 | ((in[i >> 3] >> (i & 7)) & 1);
		lk_sc_csub(r);
	}
	for (i = 0; i < 32; i++)
		out[i] = (lk_u8)(r[i / 4] >> (8 * (i % 4)));
	lk_wipe(r, sizeof(r));
}

static void lk_sc_limbs(lk_u32 o[8], const lk_u8 in[32])
{
	int i;

	for (i = 0; i < 8; i++)
		o[i] = (lk_u32)in[4 * i] | (lk_u32)in[4 * i + 1] << 8 |
		       (lk_u32)in[4 * i + 2] << 16 | (lk_u32)in[4 * i + 3] << 24;
}

/* s = (r + k a) mod L */
static void lk_sc_muladd(lk_u8 s[32], const lk_u8 k[32], const lk_u8 a[32],
			 const lk_u8 r[32])
{
	lk_u32 kl[8], al[8], rl[8], prod[16] = { 0 };
	lk_u8 wide[64];
	lk_u64 v, carry;
	int i, j;

	lk_sc_limbs(kl, k);
	lk_sc_limbs(al, a);
	lk_sc_limbs(rl, r);
	for (i = 0; i < 8; i++) {
		carry = 0;
		for (j = 0; j < 8; j++) {
			v = (lk_u64)kl[i] * al[j] + prod[i + j] + carry;
			prod[i + j] = (lk_u32)v;
			carry = v >> 32;
		}
		prod[i + 8] = (lk_u32)carry;
	}
	carry = 0;
	for (i = 0; i < 16; i++) {
		v = (lk_u64)prod[i] + (i < 8 ? rl[i] : 0) + carry;
		prod[i] = (lk_u32)v;
		carry = v >> 32;
	}
	for (i = 0; i < 64; i++)
		wide[i] = (lk_u8)(prod[i / 4] >> (8 * (i % 4)));
	lk_sc_reduce(s, wide, 64);
	lk_wipe(al, sizeof(al));
	lk_wipe(rl, sizeof(rl));
	lk_wipe(prod, sizeof(prod));
	lk_wipe(wide, sizeof(wide));
}

/* 1 when the 32-byte little-endian s is below L. */
static int lk_sc_canonical(const lk_u8 s[32])
{
	lk_u32 sl[8];
	int i;

	lk_sc_limbs(sl, s);
	for (i = 7; i >= 0; i--)
		if (sl[i] != lk_sc_l[i])
			return sl[i] < lk_sc_l[i];
	return 0;
}

/* ---- the signature scheme ---- */

/* k = SHA-512(r || a || msg) mod L */
static void lk_ed_challenge(lk_u8 k[32], const lk_u8 r[32], const lk_u8 a[32],
			    const void *msg, lk_size len)
{
	struct lk_sha512 c;
	lk_u8 h[64];

	lk_sha512_init(&c);
	lk_sha512_update(&c, r, 32);
	lk_sha512_update(&c, a, 32);
	lk_sha512_update(&c, msg, len);
	lk_sha512_final(&c, h);
	lk_sc_reduce(k, h, 64);
}

/* h = SHA-512(seed) with the scalar half clamped (RFC 8032 5.1.5). */
static void lk_ed_expand(lk_u8 h[64], const lk_u8 seed[32])
{
	lk_sha512(seed, 32, h);
	h[0] &= 248;
	h[31] &= 127;
	h[31] |= 64;
}

void lk_ed25519_pubkey(lk_u8 pk[32], const lk_u8 seed[32])
{
	struct lk_curve cv;
	struct lk_pt a;
	lk_u8 h[64];

	lk_curve_init(&cv);
	lk_ed_expand(h, seed);
	lk_pt_mul(&a, &cv.base, h, &cv);
	lk_pt_pack(pk, &a);
	lk_wipe(h, sizeof(h));
	lk_wipe(&a, sizeof(a));
}

void lk_ed25519_sign(lk_u8 sig[64], const void *msg, lk_size len,
		     const lk_u8 sk[64])
{
	struct lk_curve cv;
	struct lk_sha512 c;
	struct lk_pt p;
	lk_u8 h[64], rh[64], r[32], pk[32], k[32];

	lk_curve_init(&cv);
	lk_ed_expand(h, sk);
	/* A from the seed, not sk[32..]: a mismatched stored half must not
	 * yield signatures that leak the scalar. */
	lk_pt_mul(&p, &cv.base, h, &cv);
	lk_pt_pack(pk, &p);
	lk_sha512_init(&c);
	lk_sha512_update(&c, h + 32, 32);
	lk_sha512_update(&c, msg, len);
	lk_sha512_final(&c, rh);
	lk_sc_reduce(r, rh, 64);
	lk_pt_mul(&p, &cv.base, r, &cv);
	lk_pt_pack(sig, &p);
	lk_ed_challenge(k, sig, pk, msg, len);
	lk_sc_muladd(sig + 32, k, h, r);
	lk_wipe(h, sizeof(h));
	lk_wipe(rh, sizeof(rh));
	lk_wipe(r, sizeof(r));
	lk_wipe(&p, sizeof(p));
}

int lk_ed25519_verify(const lk_u8 sig[64], const void *msg, lk_size len,
		      const lk_u8 pk[32])
{
	struct lk_curve cv;
	struct lk_pt na, chkp;
	lk_u8 k[32], chk[32];

	if (!lk_sc_canonical(sig + 32))
		return -1;
	lk_curve_init(&cv);
	if (lk_pt_unpack(&na, pk, 1, &cv))
		return -1;
	lk_ed_challenge(k, sig, pk, msg, len);
	/* [S]B - [k]A must encode to R */
	lk_pt_mul2_public(&chkp, sig + 32, &cv.base, k, &na, &cv);
	lk_pt_pack(chk, &chkp);
	return lk_memcmp(chk, sig, 32) == 0 ? 0 : -1;
}
