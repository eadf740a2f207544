/* libFuzzer target: zlib and raw DEFLATE decoding into a bounded buffer.
 * The output buffer is exactly as large as the first byte says (times 4
 * KiB), so overruns hit ASan's redzone. Each input goes through the
 * portable loop and, where the CPU has BMI2, the BMI2 one. */
#include "fz_host.h"
#include "cpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cap;
	lk_size out, used;
	uint8_t *dst;

	if (size < 1)
		return 0;
	cap = ((size_t)data[0] + 1) * 4096;
	dst = malloc(cap);
	if (!dst)
		return 0;
	for (int loop = LK_INFLATE_PORTABLE; loop <= LK_INFLATE_BMI2; loop++) {
		if (loop == LK_INFLATE_BMI2 && !(lk_cpu_probe() & LK_CPU_BMI2))
			break;
		lk_inflate_loop(loop);
		if (lk_inflate_zlib(data + 1, size - 1, dst, cap, &out) ==
			    LK_OK &&
		    out > cap)
			abort();
		if (lk_inflate_raw(data + 1, size - 1, dst, cap, &out,
				   &used) == LK_OK &&
		    (out > cap || used > size - 1))
			abort();
	}
	free(dst);
	return 0;
}
