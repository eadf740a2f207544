/*
 * tools/xxhash64.c against reference values (xxhsum -H1 of xxHash 0.8.1,
 * Debian's `xxhash`): every path of the algorithm, the 32-byte stripes and
 * the 8-, 4- and 1-byte tails. A wrong hash puts merge pieces in other
 * shards than ld.lld does, which test-lld-real would show as a layout
 * difference; this names the cause.
 */
#include <stdio.h>
#include <string.h>

#include "xxhash64.h"

static const struct {
	const char *s;
	unsigned long long h;
} vec[] = {
	{ "", 0xef46db3751d8e999ull },
	{ "a", 0xd24ec4f1a98c6e5bull },
	{ "abc", 0x44bc2cf5ad770999ull },
	{ "12345678", 0xd2d02f08cf7cfd4aull },
	{ "1234567890123", 0x81f613829897771full },
	{ "0123456789abcdef0123456789abcdef0", 0xe87684f08d6d0816ull },
	{ "Nobody inspects the spammish repetition", 0xfbcea83c8a378bf1ull },
	{ "The quick brown fox jumps over the lazy dog, and then over the "
	  "fence twice.",
	  0x1673595eb294d806ull },
};

int main(void)
{
	int fail = 0;

	for (size_t i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
		unsigned long long h = kb_xxhash64(vec[i].s, strlen(vec[i].s));

		if (h == vec[i].h) {
			printf("ok xxhash64-len-%zu\n", strlen(vec[i].s));
		} else {
			printf("not ok xxhash64-len-%zu: 0x%016llx, want 0x%016llx\n",
			       strlen(vec[i].s), h, vec[i].h);
			fail = 1;
		}
	}
	return fail;
}
