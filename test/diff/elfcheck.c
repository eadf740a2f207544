/*
 * Loads a `linkkit link` output the way the boot stages load the fallback
 * kernel (lk_elf_check + lk_elf_load) and prints what they see, so the
 * test can compare it with the kit's own view. Usage: elfcheck FILE
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../linkkit/linkkit.h"

static void *h_alloc(void *ctx, lk_size n)
{
	(void)ctx;
	return calloc(1, n);
}

static void h_free(void *ctx, void *p, lk_size n)
{
	(void)ctx;
	(void)n;
	free(p);
}

static void h_log(void *ctx, int level, const char *line)
{
	(void)ctx;
	(void)level;
	fprintf(stderr, "%s\n", line);
}

int main(int argc, char **argv)
{
	struct lk_host h = { .alloc = h_alloc, .free = h_free, .log = h_log };
	struct lk_elf_image img;
	unsigned char *buf, *dst, sum[32];
	long n;
	FILE *f;

	if (argc != 2 || !(f = fopen(argv[1], "rb")))
		return 2;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		return 2;
	fclose(f);
	if (lk_elf_check(&h, buf, (lk_u64)n, argv[1], &img))
		return 1;
	dst = calloc(1, img.load_hi - img.load_lo);
	if (!dst || lk_elf_load(&h, buf, (lk_u64)n, dst))
		return 1;
	lk_sha256(dst, img.load_hi - img.load_lo, sum);
	printf("load 0x%llx 0x%llx entry 0x%llx nload %u sha256 ", img.load_lo,
	       img.load_hi, img.entry_vma, img.nload);
	for (int i = 0; i < 32; i++)
		printf("%02x", sum[i]);
	printf("\n");
	free(dst);
	free(buf);
	return 0;
}
