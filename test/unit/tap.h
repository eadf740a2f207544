/* Result lines for test/run-tests: "ok NAME", "not ok NAME: reason". */
#ifndef TEST_UNIT_TAP_H
#define TEST_UNIT_TAP_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_failed;
/* Put before every name (a test that runs its checks once per variant). */
static const char *tap_prefix = "";

/* Reports one named check; the reason is printed only on failure. */
static inline void tap_check(int cond, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline void tap_check(int cond, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (cond) {
		printf("ok %s%s\n", tap_prefix, name);
		return;
	}
	tap_failed = 1;
	printf("not ok %s%s: ", tap_prefix, name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static inline void tap_skip(const char *name, const char *why)
{
	printf("skip %s%s: %s\n", tap_prefix, name, why);
}

/* Deterministic test randomness (xorshift64*), seed from TEST_SEED. */
static uint64_t tap_rng_state = 0x9e3779b97f4a7c15ull;

static inline void tap_seed(void)
{
	const char *s = getenv("TEST_SEED");

	if (s && *s)
		tap_rng_state = strtoull(s, NULL, 0) | 1;
}

static inline uint64_t tap_rand(void)
{
	tap_rng_state ^= tap_rng_state >> 12;
	tap_rng_state ^= tap_rng_state << 25;
	tap_rng_state ^= tap_rng_state >> 27;
	return tap_rng_state * 0x2545f4914f6cdd1dull;
}

static inline uint32_t tap_below(uint32_t n)
{
	return n ? (uint32_t)(tap_rand() % n) : 0;
}

#endif
