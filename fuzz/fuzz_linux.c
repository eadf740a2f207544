/*
 * libFuzzer target: a Linux kernel file as the stages read it
 * (linkkit/proto/linux.c): the sniff, the bzImage setup-header and ELF
 * vmlinux checks, the load, and the zero page built from what passed,
 * for a UEFI and a BIOS machine. A refusal must be exactly one line.
 */
#define _GNU_SOURCE
#include <sys/mman.h>

#include "fz_host.h"
#include "proto/proto.h"

static int fz_errors;

static void fz_count(void *ctx, int level, const char *line)
{
	fz_log(ctx, level, line);
	if (level == LK_LOG_ERROR)
		fz_errors++;
}

static const struct lk_host fz_lx_host = {
	.alloc = fz_alloc,
	.free = fz_free,
	.log = fz_count,
	.entropy = fz_entropy,
	.log_level = LK_LOG_DEBUG,
};

/* The builder takes physical addresses: a buffer below 4 GiB. */
static uint8_t *fz_low(void)
{
	static uint8_t *low;

	if (!low) {
		low = mmap(NULL, 0x8000, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
		if (low == MAP_FAILED)
			abort();
	}
	return low;
}

static void fz_build(const struct lk_linux_image *img, int uefi)
{
	static struct lk_mb2_mmap_entry map[3] = {
		{ 0, 0x9f000, 1, 0 },
		{ 0x100000, 0x7ff00000, 1, 0 },
		{ 0xfee00000, 0x1000, 2, 0 },
	};
	struct lk_obsd_opts opts;
	struct lk_machine m;
	struct lk_kernel k;
	struct lk_handover ho;
	struct lk_entry e;

	memset(&m, 0, sizeof(m));
	memset(&k, 0, sizeof(k));
	memset(&opts, 0, sizeof(opts));
	m.map = map;
	m.nmap = 3;
	m.efi_systab = uefi ? 0x7f000000 : 0;
	k.proto = &lk_proto_linux;
	k.lx = *img;
	k.load_lo = 0x2000000;
	ho = (struct lk_handover){
		.k = &k, .m = &m, .cmdline = "console=ttyS0", .obsd = &opts
	};
	memset(&e, 0, sizeof(e));
	fz_errors = 0;
	if (lk_proto_linux.build(&fz_lx_host, &ho, fz_low(), 0x8000, &e)) {
		if (fz_errors != 1)
			abort();
		return;
	}
	if (e.mode == LK_ENTRY_PM32 || e.info & 4095 || fz_errors)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lk_linux_image img;
	uint8_t *buf, *dst;
	int rc;

	buf = malloc(size + 8);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	(void)lk_linux_sniff(buf, size);
	fz_errors = 0;
	rc = lk_linux_check(&fz_lx_host, buf, size, "KERNEL", &img);
	if ((rc != 0) != (fz_errors == 1) || fz_errors > 1)
		abort();
	if (rc == 0) {
		if (img.kind == LK_LINUX_NONE ||
		    img.hdr_len > LK_LINUX_HDR_MAX ||
		    (img.entry64 == ~0ull && img.entry32 == ~0ull))
			abort();
		/* Big images (the corpus' 38 MB) would make each run slow. */
		if (img.mem <= (1u << 20) && (dst = malloc(img.mem))) {
			lk_linux_load(buf, size, &img, dst);
			free(dst);
		}
		fz_build(&img, 1);
		fz_build(&img, 0);
	}
	free(buf);
	return 0;
}
