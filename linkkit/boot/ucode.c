/*
 * CPU microcode for kernels that take it from their loader (OpenBSD's
 * BOOTARG_UCODE): the file named by the processor's signature, as
 * OpenBSD's boot(8) names it, from the ESP first (what the operator put
 * there for this stage), then from the root (where fw_update installs
 * it). No file: nothing said, as boot(8). A file that cannot be used is
 * one warning line and the boot goes on without it.
 */
#include "boot.h"
#include "../cpu.h"

/* efiboot allocates below 16 MiB, biosboot at 1 MiB: the kernel maps it
 * late (cpu_startup), from memory it has not handed out yet. */
#define LK_UCODE_LIMIT 0x1000000ull
#define LK_UCODE_MAX (1024u * 1024u)

struct lk_ucode_names {
	char esp[48], root[64];
};

/* family/model as OpenBSD's loaders compute them (extended fields for
 * families 6 and 15 only); 0 when there is no file name for this CPU. */
static int lk_ucode_names(struct lk_ucode_names *n)
{
	char vendor[13];
	lk_u32 sig, family, model, stepping;

	lk_cpu_signature(vendor, &sig);
	family = (sig >> 8) & 0xf;
	model = (sig >> 4) & 0xf;
	stepping = sig & 0xf;
	if (family == 0x6 || family == 0xf) {
		family += (sig >> 20) & 0xff;
		model += ((sig >> 16) & 0xf) << 4;
	}
	if (lk_strcmp(vendor, "GenuineIntel") == 0) {
		lk_snprintf(n->esp, sizeof(n->esp),
			    "\\RELINK\\UCODE\\INTEL\\%02x-%02x-%02x", family,
			    model, stepping);
		lk_snprintf(n->root, sizeof(n->root),
			    "/etc/firmware/intel/%02x-%02x-%02x", family, model,
			    stepping);
		return 1;
	}
	if (lk_strcmp(vendor, "AuthenticAMD") != 0 || family < 0x10)
		return 0;
	if (family <= 0x14) {
		lk_snprintf(n->esp, sizeof(n->esp),
			    "\\RELINK\\UCODE\\AMD\\AMD.BIN");
		lk_snprintf(n->root, sizeof(n->root),
			    "/etc/firmware/amd/microcode_amd.bin");
	} else {
		lk_snprintf(n->esp, sizeof(n->esp),
			    "\\RELINK\\UCODE\\AMD\\FAM%02XH.BIN", family);
		lk_snprintf(n->root, sizeof(n->root),
			    "/etc/firmware/amd/microcode_amd_fam%02xh.bin",
			    family);
	}
	return 1;
}

/* The file at path: 0 and its bytes, or -1 when it is absent (no line)
 * or unusable (one warning line). */
static int lk_ucode_read(struct lk_boot *b, const char *path, void **data,
			 lk_u64 *size)
{
	static const char absent[] = ": file not found";
	char saved[LK_BOOT_REASON_MAX];
	struct lk_file f;
	lk_size n, m = sizeof(absent) - 1;
	int rc;

	if (path[0] == '/' && lk_boot_root_stat(b, path, &f))
		return -1;
	lk_memcpy(saved, b->reason, sizeof(saved));
	b->reason[0] = 0;
	rc = lk_boot_read(b, path, 0, data, size);
	n = lk_strlen(b->reason);
	if (rc && !(n >= m && lk_strcmp(b->reason + n - m, absent) == 0))
		lk_boot_print(b, "warning: microcode not loaded: %s", b->reason);
	lk_memcpy(b->reason, saved, sizeof(saved));
	return rc ? -1 : 0;
}

/* Into memory the kernel keeps, away from the kernel k. */
static void lk_ucode_keep(struct lk_boot *b, const struct lk_kernel *k,
			  const char *path, void *data, lk_u64 size)
{
	lk_u8 *dst;
	lk_u64 at;

	if (size == 0 || size > LK_UCODE_MAX) {
		lk_boot_print(b, "warning: microcode not loaded: %s: %llu bytes "
				 "(1 to %u)", path, size, LK_UCODE_MAX);
		return;
	}
	dst = b->ops->alloc_kept_below ? b->ops->alloc_kept_below(
						 b, size, LK_UCODE_LIMIT)
				       : LK_NULL;
	at = (lk_u64)(lk_uptr)dst;
	if (!dst || at + size > LK_UCODE_LIMIT ||
	    (at < k->load_hi && at + size > k->load_lo)) {
		lk_boot_print(b, "warning: microcode not loaded: %s: no memory "
				 "below 16 MiB", path);
		return;
	}
	lk_memcpy(dst, data, (lk_size)size);
	b->ucode_addr = at;
	b->ucode_size = size;
}

void lk_boot_ucode(struct lk_boot *b, const struct lk_kernel *k)
{
	struct lk_ucode_names n;
	const char *path;
	void *data = LK_NULL;
	lk_u64 size = 0;
	int capture = b->capture;

	b->ucode_addr = b->ucode_size = 0;
	if (!k->proto->ucode || !lk_ucode_names(&n))
		return;
	b->capture = 1;
	path = n.esp;
	if (lk_ucode_read(b, path, &data, &size)) {
		path = n.root;
		if (lk_ucode_read(b, path, &data, &size))
			data = LK_NULL;
	}
	b->capture = capture;
	if (!data)
		return;
	if (b->cfg.verbose)
		lk_boot_print(b, "microcode: %s, %llu bytes", path, size);
	lk_ucode_keep(b, k, path, data, size);
	b->ops->free_big(b, data, size);
}
