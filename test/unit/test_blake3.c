/*
 * lk_blake3 against b3sum (Debian's b3sum, the BLAKE3 team's own
 * implementation), for every build of the chunk loop this CPU can run:
 * lengths around the block, chunk and batch edges (4 and 8 lanes) and
 * tree shapes with one to several levels, each checked separately.
 */
#include <string.h>
#include <unistd.h>

#include "cpu.h"
#include "linkkit.h"
#include "tap.h"

/* b3sum's hex digest of p[0, n), through a temporary file. */
static int b3sum(const unsigned char *p, size_t n, unsigned char out[32])
{
	char path[] = "/tmp/test_blake3.XXXXXX", cmd[64], hex[65] = { 0 };
	int fd = mkstemp(path), ok = 0;
	FILE *f;

	if (fd < 0)
		return 0;
	if (write(fd, p, n) == (ssize_t)n) {
		snprintf(cmd, sizeof(cmd), "b3sum --no-names %s", path);
		f = popen(cmd, "r");
		ok = f && fscanf(f, "%64s", hex) == 1 && strlen(hex) == 64;
		if (f)
			pclose(f);
	}
	close(fd);
	unlink(path);
	for (int i = 0; ok && i < 32; i++)
		ok = sscanf(hex + 2 * i, "%2hhx", &out[i]) == 1;
	return ok;
}

int main(void)
{
	static const size_t lens[] = {
		0,	  1,	   63,	    64,	     65,     1023,  1024,
		1025,	  2048,	   2049,    3072,    4095,   4096,  4097,
		5120,	  7 * 1024, 8 * 1024, 8 * 1024 + 1, 9 * 1024 + 7,
		12 * 1024, 16 * 1024, 17 * 1024 + 100, 31 * 1024 + 1,
		33 * 1024, 100000,   (1 << 20) + 3,
	};
	static const struct {
		int path;
		lk_u32 need; /* lk_cpu_probe bits */
		const char *name;
	} paths[] = {
		{ LK_BLAKE3_PORTABLE, 0, "portable" },
		{ LK_BLAKE3_SSSE3, LK_CPU_SSSE3, "ssse3" },
		{ LK_BLAKE3_AVX2, LK_CPU_AVX2, "avx2" },
	};
	size_t max = lens[sizeof(lens) / sizeof(lens[0]) - 1];
	unsigned char *buf = malloc(max), want[32], got[32];
	lk_u32 cpu = lk_cpu_probe();
	char name[64];

	tap_seed();
	for (size_t i = 0; i < max; i++)
		buf[i] = (unsigned char)(tap_rand() >> 24);
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
		int have = b3sum(buf, lens[l], want);

		for (size_t p = 0; p < sizeof(paths) / sizeof(paths[0]); p++) {
			snprintf(name, sizeof(name), "blake3-%s-%zu", paths[p].name, lens[l]);
			if ((cpu & paths[p].need) != paths[p].need) {
				tap_skip(name, "this CPU lacks it");
				continue;
			}
			lk_blake3_path(paths[p].path);
			lk_blake3(buf, lens[l], got);
			tap_check(have && !memcmp(got, want, 32), name,
				  have ? "differs from b3sum" : "b3sum did not run");
		}
	}
	lk_blake3_path(LK_BLAKE3_AUTO);
	free(buf);
	return tap_failed;
}
