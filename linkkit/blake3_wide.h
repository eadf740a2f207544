/*
 * BLAKE3 over several whole chunks at once, one chunk per vector lane,
 * included by blake3.c once per vector width with:
 *   LK_B3W_V       the vector type (lk_u32 lanes)
 *   LK_B3W_B       the same width as bytes (for the byte-shuffle rotates)
 *   LK_B3W_LANES   its lane count
 *   LK_B3W_TARGET  the function attribute that enables the instructions
 *   LK_B3W_NAME    the function's name
 *   LK_B3W_LOAD    (m, p): m[i] lane j = word i of the block at p + j KiB
 *   LK_B3W_ROT16, LK_B3W_ROT8  byte indices of the two rotates
 * and undefines them at its end, for the next width.
 * Each lane runs the same 16 compressions a chunk needs, so the lanes
 * never diverge.
 */

/* Rotate right by 16 and 8 as byte shuffles (one pshufb each), by 12 and
 * 7 as two shifts: what the wide rounds spend their time on. */
LK_B3W_TARGET static inline LK_B3W_V LK_B3W_FN(rot16)(LK_B3W_V x)
{
	LK_B3W_B b = (LK_B3W_B)x;

	return (LK_B3W_V)__builtin_shufflevector(b, b, LK_B3W_ROT16);
}

LK_B3W_TARGET static inline LK_B3W_V LK_B3W_FN(rot8)(LK_B3W_V x)
{
	LK_B3W_B b = (LK_B3W_B)x;

	return (LK_B3W_V)__builtin_shufflevector(b, b, LK_B3W_ROT8);
}

LK_B3W_TARGET static inline void LK_B3W_FN(g)(LK_B3W_V *v, int a, int b,
					       int c, int d, LK_B3W_V mx,
					       LK_B3W_V my)
{
	v[a] += v[b] + mx;
	v[d] = LK_B3W_FN(rot16)(v[d] ^ v[a]);
	v[c] += v[d];
	v[b] ^= v[c];
	v[b] = v[b] >> 12 | v[b] << 20;
	v[a] += v[b] + my;
	v[d] = LK_B3W_FN(rot8)(v[d] ^ v[a]);
	v[c] += v[d];
	v[b] ^= v[c];
	v[b] = v[b] >> 7 | v[b] << 25;
}

LK_B3W_TARGET static inline void LK_B3W_FN(round)(LK_B3W_V *v,
						   const LK_B3W_V *m,
						   const lk_u8 *s)
{
	LK_B3W_FN(g)(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
	LK_B3W_FN(g)(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
	LK_B3W_FN(g)(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
	LK_B3W_FN(g)(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
	LK_B3W_FN(g)(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
	LK_B3W_FN(g)(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
	LK_B3W_FN(g)(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
	LK_B3W_FN(g)(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
}

/* out[j]: the chaining value of the whole chunk at p + j * 1 KiB, whose
 * chunk counter is counter + j. */
LK_B3W_TARGET LK_SSE_ENTRY static void
LK_B3W_NAME(const lk_u8 *p, lk_u64 counter, lk_u32 out[][8])
{
	LK_B3W_V h[8], v[16], m[16], lo, hi;
	lk_u32 b, i, j, r;

	for (j = 0; j < LK_B3W_LANES; j++) {
		lo[j] = (lk_u32)(counter + j);
		hi[j] = (lk_u32)((counter + j) >> 32);
	}
	for (i = 0; i < 8; i++)
		h[i] = (LK_B3W_V){ 0 } + lk_b3_iv[i];
	for (b = 0; b < LK_B3_BLOCKS; b++) {
		LK_B3W_LOAD(m, p + b * LK_B3_BLOCK);
		for (i = 0; i < 8; i++) {
			v[i] = h[i];
			v[8 + i] = (LK_B3W_V){ 0 } + lk_b3_iv[i];
		}
		v[12] = lo;
		v[13] = hi;
		v[14] = (LK_B3W_V){ 0 } + LK_B3_BLOCK;
		v[15] = (LK_B3W_V){ 0 } +
			((b == 0 ? LK_B3_CHUNK_START : 0) |
			 (b == LK_B3_BLOCKS - 1 ? LK_B3_CHUNK_END : 0));
		/* Unrolled, the schedule's indices become constant offsets. */
#pragma GCC unroll 7
		for (r = 0; r < LK_B3_ROUNDS; r++)
			LK_B3W_FN(round)(v, m, lk_b3_sched[r]);
		for (i = 0; i < 8; i++)
			h[i] = v[i] ^ v[i + 8];
	}
	for (j = 0; j < LK_B3W_LANES; j++)
		for (i = 0; i < 8; i++)
			out[j][i] = h[i][j];
}

#undef LK_B3W_FN
#undef LK_B3W_V
#undef LK_B3W_B
#undef LK_B3W_LANES
#undef LK_B3W_TARGET
#undef LK_B3W_NAME
#undef LK_B3W_ROT16
#undef LK_B3W_ROT8
#undef LK_B3W_LOAD
