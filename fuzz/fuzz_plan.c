/*
 * libFuzzer target: the plan (stack-machine ops compiled from the linker
 * script). The input is an array of struct lk_op that replaces the plan of
 * the demo kernel's real payload (FZ_BASE_PAYLOAD), so every op can refer
 * to real slots, outsecs and symbols and the link runs to the end.
 */
#include "fz_host.h"

#ifndef FZ_BASE_PAYLOAD
#define FZ_BASE_PAYLOAD "build/fuzz/demo.payload"
#endif

static uint8_t *base;
static size_t base_len;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *p = getenv("FZ_BASE_PAYLOAD");

	(void)argc;
	(void)argv;
	base = fz_read_file(p ? p : FZ_BASE_PAYLOAD, &base_len);
	if (!base || base_len < sizeof(struct lk_payload_header)) {
		fprintf(stderr, "fuzz_plan: cannot read base payload %s\n",
			p ? p : FZ_BASE_PAYLOAD);
		exit(2);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t nops = size / sizeof(struct lk_op);
	size_t at = (base_len + 7) & ~(size_t)7;
	struct lk_payload_header hd;
	uint8_t *p;

	if (at + nops * sizeof(struct lk_op) > UINT32_MAX)
		return 0;
	p = calloc(1, at + nops * sizeof(struct lk_op) + 1);
	if (!p)
		return 0;
	memcpy(p, base, base_len);
	memcpy(p + at, data, nops * sizeof(struct lk_op));
	memcpy(&hd, p, sizeof(hd));
	hd.plan.off = (uint32_t)at;
	hd.plan.count = (uint32_t)nops;
	memcpy(p, &hd, sizeof(hd));
	fz_link_payload(p, at + nops * sizeof(struct lk_op), 1);
	free(p);
	return 0;
}
