/*
 * linkkit/linux_sort.c: the ORC and __ex_table sorts of Linux's
 * scripts/sorttable, on synthetic tables with many equal addresses.
 * Checked: the result is sorted, terminators first among equal addresses,
 * every entry kept with its address (offsets rebased), __ex_table stable;
 * against glibc's qsort with sorttable's own comparison when the host's
 * glibc is the 2.36 sorttable was built with (its merge sort decides the
 * order of equal non-terminator entries); errors name the table; no
 * memory is left allocated. The real tables are checked against the real
 * sorttable by test-diff.sh.
 */
#include <gnu/libc-version.h>
#include <stdlib.h>
#include <string.h>

#include "../../linkkit/linkkit.h"
#include "../unit/tap.h"

static char last[512];
static long live, not_lifo;
static void *stack[64];

/* Frees must come last-allocated first, as the BIOS stage's bump heap
 * takes back only its latest allocation. */
static void *t_alloc(void *ctx, lk_size n)
{
	void *p = calloc(1, n);

	(void)ctx;
	if (p && live < 64)
		stack[live++] = p;
	return p;
}

static void t_free(void *ctx, void *p, lk_size n)
{
	(void)ctx;
	(void)n;
	if (!live || stack[live - 1] != p)
		not_lifo++;
	else
		live--;
	free(p);
}

static void t_log(void *ctx, int level, const char *line)
{
	(void)ctx;
	(void)level;
	snprintf(last, sizeof(last), "%s", line);
}

static struct lk_host host = { NULL, t_alloc, t_free, t_log, NULL, LK_LOG_DEBUG };

static int32_t rd(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, 4);
	return v;
}

static void wr(uint8_t *p, int32_t v)
{
	memcpy(p, &v, 4);
}

/* ---- sorttable's ORC comparison, for qsort ---- */
static const uint8_t *g_ip, *g_orc;

static int is_term(const uint8_t *e)
{
	return (e[4] & 0xf) == 0 && !(e[5] & 4);
}

static int orc_cmp(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;
	long av = (long)a * 4 + rd(g_ip + 4 * a), bv = (long)b * 4 + rd(g_ip + 4 * b);
	int ta = is_term(g_orc + 6 * a), tb = is_term(g_orc + 6 * b);

	if (av != bv)
		return av > bv ? 1 : -1;
	if (ta && tb)
		return 0;
	return ta ? -1 : 1;
}

/* The order of the addresses make_orc writes: random (from a small range,
 * so that many are equal); descending (what the bucket pass's insertion
 * sorts would take quadratic time on: the radix fallback); four
 * interleaved ascending runs (overlapping: the bucket pass); or blocks of
 * 64 ascending addresses in a shuffled order, as a link leaves the table,
 * each block ending at the address the next one starts with (equal
 * addresses in two runs: the joined runs); or the same blocks as two
 * halves with the next block's first half in the gap between them (an
 * object's .text and .init.text with another object's section between:
 * the runs are split). n / 64 must be odd. */
enum { ORC_RANDOM, ORC_DESCENDING, ORC_RUNS, ORC_BLOCKS, ORC_STRADDLE };

static uint32_t orc_addr(uint32_t i, uint32_t n, uint32_t range, int shape)
{
	if (shape == ORC_DESCENDING)
		return n - i;
	if (shape == ORC_RUNS)
		return (i % 4) * (n / 4 + 1) + i / 4 + (uint32_t)tap_below(2);
	if (shape == ORC_BLOCKS) /* 2^k * odd: a bijection on the blocks */
		return (uint32_t)(((uint64_t)(i / 64) * 1024 % (n / 64)) * 63 + i % 64 -
				  (i % 64 == 32 && tap_below(2)));
	if (shape == ORC_STRADDLE)
		return (uint32_t)((uint64_t)(i / 64) * 1024 % (n / 64)) * 100 + i % 32 +
		       (i % 64 >= 32 ? 132 : 0);
	return (uint32_t)tap_below(range);
}

static void make_orc(uint8_t *ip, uint8_t *orc, uint32_t n, uint32_t range, int shape)
{
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *e = orc + 6 * i;

		wr(ip + 4 * i, (int32_t)(orc_addr(i, n, range, shape) * 16) - (int32_t)(4 * i) - 4096);
		for (int k = 0; k < 6; k++)
			e[k] = (uint8_t)tap_rand();
		if (tap_below(3) == 0) { /* a weak terminator */
			e[4] &= 0xf0;
			e[5] &= (uint8_t)~4;
		} else if (is_term(e)) {
			e[5] |= 4;
		}
	}
}

static void test_orc(uint32_t n, uint32_t range, int shape, const char *name)
{
	uint8_t *ip = malloc(4 * n + 1), *orc = malloc(6 * n + 1);
	uint8_t *ip0 = malloc(4 * n + 1), *orc0 = malloc(6 * n + 1);
	int *idx = malloc(sizeof(int) * n + 1);
	int rc, sorted = 1, same = 1;
	char why[160] = "";

	make_orc(ip, orc, n, range, shape);
	memcpy(ip0, ip, 4 * n);
	memcpy(orc0, orc, 6 * n);
	rc = lk_linux_sort_orc(&host, "t.kit", ip, 4 * n, orc, 6 * n);
	for (uint32_t i = 1; i < n && sorted; i++) {
		long a = (long)(i - 1) * 4 + rd(ip + 4 * (i - 1)), b = (long)i * 4 + rd(ip + 4 * i);

		if (a > b || (a == b && !is_term(orc + 6 * (i - 1)) && is_term(orc + 6 * i))) {
			sorted = 0;
			snprintf(why, sizeof(why), "entries %u and %u out of order", i - 1, i);
		}
	}
	/* The reference: glibc's qsort with sorttable's comparison, then the
	 * same rebasing sorttable does. */
	g_ip = ip0;
	g_orc = orc0;
	for (uint32_t i = 0; i < n; i++)
		idx[i] = (int)i;
	qsort(idx, n, sizeof(int), orc_cmp);
	for (uint32_t i = 0; i < n && same; i++) {
		long want = (long)idx[i] * 4 + rd(ip0 + 4 * idx[i]) - (long)i * 4;

		if (rd(ip + 4 * i) != (int32_t)want || memcmp(orc + 6 * i, orc0 + 6 * idx[i], 6)) {
			same = 0;
			if (!*why)
				snprintf(why, sizeof(why), "entry %u is not glibc qsort's", i);
		}
	}
	if (!strcmp(gnu_get_libc_version(), "2.36"))
		tap_check(!rc && sorted && same && live == 0 && !not_lifo, name,
			  "rc %d, %s, %ld allocations left, %ld frees out of order", rc, why, live,
			  not_lifo);
	else {
		/* Another qsort orders equal non-terminators its own way:
		 * only the order itself is checked. */
		tap_check(!rc && sorted && live == 0, name, "rc %d, %s", rc, why);
		printf("skip %s-glibc: host glibc %s, sorttable's is 2.36\n", name,
		       gnu_get_libc_version());
	}
	free(ip);
	free(orc);
	free(ip0);
	free(orc0);
	free(idx);
}

static void test_extable(uint32_t n)
{
	uint8_t *ex = malloc(12 * n + 1), *ex0 = malloc(12 * n + 1);
	uint32_t *ref = malloc(4 * n + 4);
	int rc, ok = 1;
	char why[160] = "";

	for (uint32_t i = 0; i < n; i++) {
		wr(ex + 12 * i, (int32_t)(tap_below(n / 4 + 1) * 8) - (int32_t)(12 * i));
		wr(ex + 12 * i + 4, (int32_t)tap_rand());
		wr(ex + 12 * i + 8, (int32_t)tap_rand());
	}
	memcpy(ex0, ex, 12 * n);
	/* Reference: a stable insertion sort by absolute address. */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t j = i;
		long k = rd(ex0 + 12 * i) + 12L * i;

		while (j > 0 && rd(ex0 + 12 * ref[j - 1]) + 12L * ref[j - 1] > k) {
			ref[j] = ref[j - 1];
			j--;
		}
		ref[j] = i;
	}
	rc = lk_linux_sort_extable(&host, "t.kit", ex, 12 * n);
	for (uint32_t i = 0; i < n && ok; i++) {
		uint32_t s = ref[i];

		if (rd(ex + 12 * i) + 12L * i != rd(ex0 + 12 * s) + 12L * s ||
		    (int32_t)((uint32_t)rd(ex + 12 * i + 4) + 12 * i) !=
			    (int32_t)((uint32_t)rd(ex0 + 12 * s + 4) + 12 * s) ||
		    rd(ex + 12 * i + 8) != rd(ex0 + 12 * s + 8)) {
			ok = 0;
			snprintf(why, sizeof(why), "entry %u: not entry %u moved (stable order)", i, s);
		}
	}
	tap_check(!rc && ok && live == 0 && !not_lifo, "linux-sort-extable", "rc %d, %s", rc, why);
	free(ex);
	free(ex0);
	free(ref);
}

static void test_errors(void)
{
	uint8_t b[64] = { 0 };
	int rc;

	last[0] = 0;
	rc = lk_linux_sort_orc(&host, "t.kit", b, 8, b + 16, 6);
	tap_check(rc == LK_ERR_FORMAT && strstr(last, "t.kit: .orc_unwind_ip (8 bytes)"),
		  "linux-sort-orc-count-mismatch", "rc %d, line '%s'", rc, last);
	last[0] = 0;
	rc = lk_linux_sort_orc(&host, "t.kit", b, 6, b + 16, 6);
	tap_check(rc == LK_ERR_FORMAT && strstr(last, ".orc_unwind"), "linux-sort-orc-odd-size",
		  "rc %d, line '%s'", rc, last);
	last[0] = 0;
	rc = lk_linux_sort_extable(&host, "t.kit", b, 13);
	tap_check(rc == LK_ERR_FORMAT && strstr(last, "t.kit: __ex_table: 13 bytes"),
		  "linux-sort-extable-size", "rc %d, line '%s'", rc, last);
	rc = lk_linux_sort_extable(&host, "t.kit", b, 0) | lk_linux_sort_orc(&host, "t.kit", b, 4, b, 6);
	tap_check(rc == 0 && live == 0 && !not_lifo, "linux-sort-tiny", "rc %d, %ld frees out of order",
		  rc, not_lifo);
}

int main(void)
{
	tap_seed();
	test_orc(5000, 1500, ORC_RANDOM, "linux-sort-orc-ties");
	test_orc(20000, 1000000, ORC_RANDOM, "linux-sort-orc");
	test_orc(3, 1, ORC_RANDOM, "linux-sort-orc-three-equal");
	test_orc(200000, 0, ORC_DESCENDING, "linux-sort-orc-descending");
	test_orc(200000, 0, ORC_RUNS, "linux-sort-orc-runs");
	test_orc(64 * 3125, 0, ORC_BLOCKS, "linux-sort-orc-blocks");
	test_orc(64 * 3125, 0, ORC_STRADDLE, "linux-sort-orc-straddle");
	test_extable(3000);
	test_errors();
	return tap_failed;
}
