/* The ChaCha20 block function (RFC 8439 section 2.3). */
#include "linkkit.h"

#define LK_ROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
#define LK_QR(a, b, c, d)                           \
	do {                                        \
		a += b, d ^= a, d = LK_ROTL(d, 16); \
		c += d, b ^= c, b = LK_ROTL(b, 12); \
		a += b, d ^= a, d = LK_ROTL(d, 8);  \
		c += d, b ^= c, b = LK_ROTL(b, 7);  \
	} while (0)

void lk_chacha20_block(const lk_u32 key[8], lk_u32 counter,
		       const lk_u32 nonce[3], lk_u8 out[64])
{
	lk_u32 in[16], x[16];
	int i;

	in[0] = 0x61707865; /* "expand 32-byte k" */
	in[1] = 0x3320646e;
	in[2] = 0x79622d32;
	in[3] = 0x6b206574;
	for (i = 0; i < 8; i++)
		in[4 + i] = key[i];
	in[12] = counter;
	for (i = 0; i < 3; i++)
		in[13 + i] = nonce[i];
	for (i = 0; i < 16; i++)
		x[i] = in[i];
	for (i = 0; i < 10; i++) {
		LK_QR(x[0], x[4], x[8], x[12]);
		LK_QR(x[1], x[5], x[9], x[13]);
		LK_QR(x[2], x[6], x[10], x[14]);
		LK_QR(x[3], x[7], x[11], x[15]);
		LK_QR(x[0], x[5], x[10], x[15]);
		LK_QR(x[1], x[6], x[11], x[12]);
		LK_QR(x[2], x[7], x[8], x[13]);
		LK_QR(x[3], x[4], x[9], x[14]);
	}
	for (i = 0; i < 16; i++) {
		lk_u32 v = x[i] + in[i];

		out[4 * i] = (lk_u8)v;
		out[4 * i + 1] = (lk_u8)(v >> 8);
		out[4 * i + 2] = (lk_u8)(v >> 16);
		out[4 * i + 3] = (lk_u8)(v >> 24);
	}
	/* The state holds the key: leave none of it on the stack. */
	lk_wipe(in, sizeof(in));
	lk_wipe(x, sizeof(x));
}
