/* Shell sort of u64, checked on random data from rng. */
#include "demo.h"

DEMO_OBJECT(sort)
DEMO_IDENT(sort)

void sort_u64(u64 *v, size_t n)
{
	size_t gap, i, j;

	for (gap = n / 2; gap; gap /= 2)
		for (i = gap; i < n; i++) {
			u64 t = v[i];

			for (j = i; j >= gap && v[j - gap] > t; j -= gap)
				v[j] = v[j - gap];
			v[j] = t;
		}
}

static int sort_check(char *detail, size_t cap)
{
	u64 *v = heap_alloc(200 * sizeof(u64), 8), sum = 0, sum2 = 0;
	u32 i;

	if (!v) {
		ksnprintf(detail, cap, "heap exhausted");
		return -1;
	}
	for (i = 0; i < 200; i++)
		sum += v[i] = rng_next() % 1000;
	sort_u64(v, 200);
	for (i = 0; i < 200; i++) {
		sum2 += v[i];
		if (i && v[i - 1] > v[i]) {
			ksnprintf(detail, cap, "not sorted at %u", i);
			return -1;
		}
	}
	if (sum != sum2) {
		ksnprintf(detail, cap, "elements lost");
		return -1;
	}
	return 0;
}
DEMO_CHECK(CK_SORT, "sort", sort_check);
