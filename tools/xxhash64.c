/*
 * XXH64 with seed 0 (xxHash specification, "XXH64 algorithm description"):
 * four lanes over 32-byte stripes, then 8-, 4- and 1-byte tails and the
 * final avalanche. Host only: the boot side receives each piece's shard.
 */
#include <string.h>

#include "xxhash64.h"

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull

static uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

/* The specification reads lanes little-endian; so does x86. */
static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t round1(uint64_t acc, uint64_t lane)
{
	return rotl(acc + lane * P2, 31) * P1;
}

static uint64_t merge1(uint64_t h, uint64_t v)
{
	return (h ^ round1(0, v)) * P1 + P4;
}

uint64_t kb_xxhash64(const void *data, size_t n)
{
	const uint8_t *p = data, *end = p + n;
	uint64_t h;

	if (n >= 32) {
		uint64_t v1 = P1 + P2, v2 = P2, v3 = 0, v4 = 0 - P1;

		for (; end - p >= 32; p += 32) {
			v1 = round1(v1, rd64(p));
			v2 = round1(v2, rd64(p + 8));
			v3 = round1(v3, rd64(p + 16));
			v4 = round1(v4, rd64(p + 24));
		}
		h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
		h = merge1(h, v1);
		h = merge1(h, v2);
		h = merge1(h, v3);
		h = merge1(h, v4);
	} else {
		h = P5;
	}
	h += (uint64_t)n;
	for (; end - p >= 8; p += 8)
		h = rotl(h ^ round1(0, rd64(p)), 27) * P1 + P4;
	if (end - p >= 4) {
		h = rotl(h ^ (uint64_t)rd32(p) * P1, 23) * P2 + P3;
		p += 4;
	}
	for (; p < end; p++)
		h = rotl(h ^ *p * P5, 11) * P1;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	return h ^ (h >> 32);
}
