/*
 * lk_snprintf against the C library's snprintf for every conversion,
 * flag, width and length modifier it supports; truncation; lk_log level
 * filtering; and the mem.c helpers against libc on every small length and
 * alignment (including overlapping moves).
 */
#include <limits.h>
#include <string.h>

#include "linkkit.h"
#include "tap.h"

static int fmt_bad;
static char fmt_why[600];

#define SAME(...)                                                             \
	do {                                                                  \
		char a_[128], b_[128];                                        \
		int na_ = lk_snprintf(a_, sizeof(a_), __VA_ARGS__);           \
		int nb_ = snprintf(b_, sizeof(b_), __VA_ARGS__);              \
		if ((strcmp(a_, b_) || na_ != nb_) && !fmt_bad++)             \
			snprintf(fmt_why, sizeof(fmt_why),                    \
				 "%s: lk \"%s\" (%d) libc \"%s\" (%d)",       \
				 #__VA_ARGS__, a_, na_, b_, nb_);             \
	} while (0)

static void test_conversions(void)
{
	int x = 0;
	long long m = LLONG_MIN;

	SAME("plain text");
	SAME("%s|%5s|%-5s|%.2s|%.*s|%*s", "abc", "ab", "ab", "abc", 3, "abcdef",
	     4, "z");
	SAME("%c%c%c", 'a', '%', 0x7e);
	SAME("%d %d %d %i", 0, -1, INT_MAX, INT_MIN);
	SAME("%5d|%-5d|%05d|%05d", 42, 42, 42, -42);
	SAME("%u %u %u", 0u, 1u, UINT_MAX);
	SAME("%x %X %08x %8x %-8x|", 0xdeadbeefu, 0xdeadbeefu, 0x1234u, 0xabu,
	     0xabu);
	SAME("%lld %lld %lld", 0LL, m, LLONG_MAX);
	SAME("%llu %llx %016llx %llX", ULLONG_MAX, ULLONG_MAX, 0x1234ULL,
	     0xfedcba9876543210ULL);
	SAME("%ld %lu %lx", -5L, ULONG_MAX, 0x12345678UL);
	SAME("%zu %zx", (size_t)123456789, (size_t)0xffff);
	SAME("%p %p", (void *)&x, (void *)0x1000);
	SAME("100%% %d%%", 5);
	SAME("%llu", 10000000000000000000ULL);
	SAME("%llu %llu", 4294967296ULL, 4294967295ULL);
	tap_check(!fmt_bad, "fmt-conversions", "%s", fmt_why);
}

static void test_decimal_sweep(void)
{
	int bad = 0;

	/* Many magnitudes: the 64-bit decimal path avoids 64-bit division. */
	for (int i = 0; i < 100000; i++) {
		unsigned long long v = tap_rand() >> tap_below(64);
		char a[32], b[32];
		lk_snprintf(a, sizeof(a), "%llu", v);
		snprintf(b, sizeof(b), "%llu", v);
		bad += strcmp(a, b) != 0;
		lk_snprintf(a, sizeof(a), "%lld", (long long)v);
		snprintf(b, sizeof(b), "%lld", (long long)v);
		bad += strcmp(a, b) != 0;
	}
	tap_check(!bad, "fmt-decimal-sweep", "%d mismatches", bad);
}

static const char *volatile null_str;

static void test_truncation(void)
{
	char buf[8];
	int n, ok = 1;

	memset(buf, 'X', sizeof(buf));
	n = lk_snprintf(buf, 5, "%s", "abcdefgh");
	ok &= n == 4 && !strcmp(buf, "abcd") && buf[5] == 'X';
	memset(buf, 'X', sizeof(buf));
	n = lk_snprintf(buf, 1, "%d", 12345);
	ok &= n == 0 && buf[0] == 0 && buf[1] == 'X';
	memset(buf, 'X', sizeof(buf));
	n = lk_snprintf(buf, 0, "%d", 12345);
	ok &= n == 0 && buf[0] == 'X';
	n = lk_snprintf(buf, sizeof(buf), "%016llx", 1ULL);
	ok &= n == 7 && !strcmp(buf, "0000000");
	n = lk_snprintf(buf, sizeof(buf), "%s", null_str);
	ok &= n == 6 && !strcmp(buf, "(null)");
	tap_check(ok, "fmt-truncation", "bad truncation/termination");
}

struct logcap {
	int calls, level;
	char line[512];
};

static void cap_log(void *ctx, int level, const char *line)
{
	struct logcap *c = ctx;

	c->calls++;
	c->level = level;
	snprintf(c->line, sizeof(c->line), "%s", line);
}

static void test_log(void)
{
	struct logcap c = { 0, -1, "" };
	struct lk_host h = { 0 };
	char big[400];
	int ok = 1;

	h.ctx = &c;
	h.log = cap_log;
	h.log_level = LK_LOG_WARN;
	lk_log(&h, LK_LOG_ERROR, "kit %s: bad offset %llu", "K.KIT", 77ULL);
	ok &= c.calls == 1 && c.level == LK_LOG_ERROR &&
	      !strcmp(c.line, "kit K.KIT: bad offset 77");
	lk_log(&h, LK_LOG_DEBUG, "secret layout %d", 1);
	lk_log(&h, LK_LOG_INFO, "info %d", 1);
	ok &= c.calls == 1;
	lk_log(&h, LK_LOG_WARN, "warn");
	ok &= c.calls == 2 && !strcmp(c.line, "warn");
	memset(big, 'y', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	lk_log(&h, LK_LOG_ERROR, "%s", big);
	ok &= c.calls == 3 && strlen(c.line) == 255;
	h.log = NULL;
	lk_log(&h, LK_LOG_ERROR, "no sink");
	lk_log(NULL, LK_LOG_ERROR, "no host");
	tap_check(ok, "log-levels", "calls=%d line=%s", c.calls, c.line);
}

static void test_mem(void)
{
	/* Every length through the word paths and past the string
	 * instructions' threshold (256), every alignment of both ends. */
	unsigned char a[700], b[700], src[700];
	int bad = 0;

	for (int i = 0; i < 700; i++)
		src[i] = (unsigned char)tap_rand();
	for (size_t n = 0; n <= 300; n += n < 80 ? 1 : 7) {
		for (size_t d = 0; d < 17; d++) {
			for (size_t s = 0; s < 17; s++) {
				memcpy(a, src, 700);
				memcpy(b, src, 700);
				lk_memcpy(a + 350 + d, src + s, n);
				memcpy(b + 350 + d, src + s, n);
				bad += memcmp(a, b, 700) != 0;
				/* Overlap in both directions. */
				memcpy(a, src, 700);
				memcpy(b, src, 700);
				lk_memmove(a + 20 + d, a + 20 + s, n);
				memmove(b + 20 + d, b + 20 + s, n);
				bad += memcmp(a, b, 700) != 0;
			}
			memcpy(a, src, 700);
			memcpy(b, src, 700);
			lk_memset(a + d, 0x5a + (int)n, n);
			memset(b + d, 0x5a + (int)n, n);
			bad += memcmp(a, b, 700) != 0;
		}
	}
	tap_check(!bad, "mem-copy-move-set", "%d mismatches", bad);

	bad = 0;
	memcpy(a, src, 200);
	memcpy(b, src, 200);
	bad += lk_memcmp(a, b, 200) != 0;
	b[150]++;
	bad += lk_memcmp(a, b, 200) >= 0 && a[150] != 255;
	bad += lk_memcmp(b, a, 200) <= 0 && a[150] != 255;
	bad += lk_memcmp(a, b, 150) != 0;
	bad += lk_memcmp("\x80", "\x01", 1) <= 0; /* bytes compare unsigned */
	bad += lk_strlen("") != 0 || lk_strlen("hello") != 5;
	bad += lk_strnlen("hello", 3) != 3 || lk_strnlen("hi", 10) != 2;
	bad += lk_strcmp("abc", "abc") != 0 || lk_strcmp("abc", "abd") >= 0 ||
	       lk_strcmp("abd", "abc") <= 0 || lk_strcmp("ab", "abc") >= 0 ||
	       lk_strcmp("\xff", "a") <= 0;
	memset(a, 0xee, sizeof(a));
	lk_wipe(a + 3, 100);
	for (int i = 0; i < 200; i++)
		bad += a[i] != (i >= 3 && i < 103 ? 0 : 0xee);
	tap_check(!bad, "mem-cmp-str-wipe", "%d wrong", bad);
}

int main(void)
{
	tap_seed();
	test_conversions();
	test_decimal_sweep();
	test_truncation();
	test_log();
	test_mem();
	return tap_failed;
}
