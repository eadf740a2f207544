/*
 * libFuzzer target: the Multiboot2 builder's untrusted inputs: the ELF
 * sections view of the fallback file from disk (lk_mb2_elf_view_from_file)
 * and the firmware memory map (lk_mb2_map_normalize, tag 6 and 4).
 * Input: byte 0 selects, the rest is the ELF file or the map entries.
 */
#include "fz_host.h"
#include "mb2.h"

static void fz_elf_view(const uint8_t *data, size_t size)
{
	lk_u32 num, entsize, shndx;
	lk_u64 used = 0;
	uint8_t *elf = malloc(size + 8), *out;

	if (!elf)
		return;
	memcpy(elf, data, size);
	if (lk_mb2_elf_view_from_file(elf, size, NULL, 0, 0x200000, &num,
				      &entsize, &shndx, &used) == 0 &&
	    used <= FZ_ALLOC_MAX) {
		out = malloc(used + 1);
		if (out) {
			lk_u64 used2 = 0;

			if (lk_mb2_elf_view_from_file(elf, size, out, used,
						      0x200000, &num, &entsize,
						      &shndx, &used2) != 0 ||
			    used2 > used)
				abort();
			free(out);
		}
	}
	free(elf);
}

static void fz_map(const uint8_t *data, size_t size)
{
	lk_u32 n = (lk_u32)(size / sizeof(struct lk_mb2_mmap_entry));
	struct lk_mb2_mmap_entry *e;
	lk_u32 lower, upper, m;
	struct lk_mb2 mb;
	uint64_t info[512];

	if (n > 256)
		return;
	e = malloc(n * sizeof(*e) + 1);
	if (!e)
		return;
	memcpy(e, data, n * sizeof(*e));
	m = lk_mb2_map_normalize(e, n);
	if (m > n)
		abort();
	lk_mb2_meminfo_from_map(e, m, &lower, &upper);
	lk_mb2_begin(&mb, info, sizeof(info));
	lk_mb2_loader_name(&mb, "relinkboot fuzz");
	lk_mb2_basic_meminfo(&mb, lower, upper);
	lk_mb2_mmap(&mb, e, m);
	lk_mb2_end(&mb);
	free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		fz_map(data + 1, size - 1);
	else
		fz_elf_view(data + 1, size - 1);
	return 0;
}
