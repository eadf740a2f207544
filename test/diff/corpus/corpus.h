/* Declarations shared by the differential-test corpus. */
#ifndef CORPUS_H
#define CORPUS_H

typedef long (*op_fn)(long);
long call_table(int i);
long classify(int v);
const char *greeting(void);
const char *farewell(void);
const char *message_of(int i);
long count_set(void);
long weak_value(void);
long maybe_missing_value(void);
long comdat_helper(void);
long use_comdat2(void);
long multi_weak(long x);
extern const long multi_weak_data[4];
long use_multi_weak(long x);
long sum_bss(void);
long got_user(void);
long rodata_sum(void);
extern char shared_buf[];
extern int shared_count;

struct set_item {
	const char *name;
	long (*fn)(long);
};
#define SET_ITEM(n, f) \
	static const struct set_item item_##n \
		__attribute__((section("set_items"), used, aligned(8))) = { #n, f }
#endif
