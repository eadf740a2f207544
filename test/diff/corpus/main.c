/* Entry point of the differential-test corpus: touches every feature so
 * nothing is dead, and stores results where the linked image holds them. */
#include "corpus.h"

/* Weak: the ld.lld comparison leaves got.o out. */
long got_user(void) __attribute__((weak));

long results[16];

void _start(void)
{
	results[0] = call_table(3);
	results[1] = classify(7) + classify(42);
	results[2] = (long)greeting();
	results[3] = (long)farewell();
	results[4] = count_set();
	results[5] = weak_value() + maybe_missing_value();
	results[6] = comdat_helper() + use_comdat2();
	results[7] = (long)&shared_buf + (long)&shared_count;
	results[8] = sum_bss() + (got_user ? got_user() : 0);
	results[9] = (long)message_of(2) + rodata_sum();
	results[10] = multi_weak(5) + multi_weak_data[2] + use_multi_weak(4);
	for (;;)
		;
}
