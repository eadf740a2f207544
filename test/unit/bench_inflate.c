/*
 * Inflate throughput, lk_inflate_zlib vs zlib's uncompress, on ~10 MB of
 * mixed input: host executables (like a kit's object code) plus generated
 * text and runs. Best of 7 runs (process CPU time, as the machine is
 * shared); MB/s of decompressed output.
 */
#include <dirent.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "linkkit.h"
#include "tap.h"

#define TOTAL (10u << 20)

static size_t add_files(unsigned char *buf, size_t cap, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;
	char path[4096];

	while (d && (e = readdir(d)) && n < cap) {
		FILE *f;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		f = fopen(path, "rb");
		if (!f)
			continue;
		n += fread(buf + n, 1, cap - n, f);
		fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

static void add_text(unsigned char *p, size_t n)
{
	static const char *w[] = { "static ", "int ", "return ", "if (", ") {\n",
				   "\t", "lk_", "size", " = ", ";\n", "}\n" };
	size_t i = 0;

	while (i < n) {
		uint64_t r = tap_rand();
		if (r % 16 == 0) {
			for (uint32_t k = (uint32_t)(r >> 8) % 500; k-- && i < n;)
				p[i++] = 0;
			continue;
		}
		for (const char *s = w[(r >> 4) % 11]; *s && i < n; s++)
			p[i++] = (unsigned char)*s;
	}
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void bench_level(const unsigned char *in, size_t n, int level)
{
	uLongf zn = compressBound(n);
	unsigned char *z = malloc(zn), *out = malloc(n);
	double best_lk = 1e9, best_z = 1e9;
	int same = 1;

	compress2(z, &zn, in, n, level);
	for (int run = 0; run < 7; run++) {
		size_t got = 0;
		uLongf zl = n;
		double t0 = now();
		int r = lk_inflate_zlib(z, zn, out, n, &got);
		double t1 = now();
		same &= r == LK_OK && got == n && !memcmp(out, in, n);
		uncompress(out, &zl, z, zn);
		double t2 = now();
		if (t1 - t0 < best_lk)
			best_lk = t1 - t0;
		if (t2 - t1 < best_z)
			best_z = t2 - t1;
	}
	printf("level %d: %zu -> %lu bytes; lk_inflate %.0f MB/s, zlib %.0f MB/s (%.2fx)%s\n",
	       level, n, (unsigned long)zn, n / best_lk / 1e6, n / best_z / 1e6,
	       best_z / best_lk, same ? "" : " OUTPUT DIFFERS");
	free(z);
	free(out);
}

int main(void)
{
	unsigned char *in = malloc(TOTAL);
	size_t n = add_files(in, TOTAL * 7 / 10, "/usr/bin");

	add_text(in + n, TOTAL - n);
	printf("input: %zu bytes of /usr/bin files, %zu generated\n", n,
	       (size_t)TOTAL - n);
	bench_level(in, TOTAL, 1);
	bench_level(in, TOTAL, 6);
	bench_level(in, TOTAL, 9);
	free(in);
	return 0;
}
