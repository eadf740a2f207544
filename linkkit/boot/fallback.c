/*
 * The prelinked fallback kernel (an ELF executable): checked against its
 * detached signature when a key is configured, loaded where it was
 * linked, its PT_OPENBSD_RANDOMIZE segments filled afresh, handed over
 * like the relinked kernel. Errors become the `fallback failed:` line.
 */
#include "boot.h"
#include "../elf64.h"

#define LK_PT_OPENBSD_RANDOMIZE 0x65a3dbe6u

/* Reads path with its error line kept in why instead of the reason. */
static int lk_read_aside(struct lk_boot *b, const char *path, void **data,
			 lk_u64 *size, char *why, lk_size cap)
{
	char saved[LK_BOOT_REASON_MAX];
	int rc;

	lk_memcpy(saved, b->reason, sizeof(saved));
	b->reason[0] = 0;
	rc = lk_boot_read(b, path, 0, data, size);
	lk_snprintf(why, cap, "%s", b->reason);
	lk_memcpy(b->reason, saved, sizeof(saved));
	return rc;
}

/* The detached signature (FALLBACK.SIG next to FALLBACK.ELF; the
 * initrd's too). */
int lk_boot_check_sig(struct lk_boot *b, const char *name, const void *elf,
		      lk_u64 size)
{
	char path[LK_CFG_PATH_MAX], why[LK_BOOT_REASON_MAX];
	void *sig = LK_NULL;
	lk_u64 ssize = 0;
	int rc;

	if (lk_sig_path(name, path, sizeof(path))) {
		lk_boot_fail(b, "%s: path too long for its signature", name);
		return -1;
	}
	if (lk_read_aside(b, path, &sig, &ssize, why, sizeof(why))) {
		lk_boot_fail(b, "%s: not signed (%s), and a public key is "
				"configured", name, why);
		return -1;
	}
	rc = lk_sig_check(&b->host, &b->key, name, elf, (lk_size)size, sig,
			  (lk_size)ssize);
	b->ops->free_big(b, sig, ssize);
	return rc;
}

/*
 * The fallback has fixed contents, so like OpenBSD's boot loader fill
 * its PT_OPENBSD_RANDOMIZE segments (stack protector guard, ...) with
 * fresh random bytes at every boot. dst holds [img->load_lo, load_hi).
 */
static int lk_fallback_randomize(struct lk_boot *b, const char *name,
				 const lk_u8 *elf, lk_u64 size, lk_u8 *dst,
				 const struct lk_elf_image *img)
{
	struct lk_elf64_ehdr eh;
	struct lk_elf64_phdr ph;
	lk_u64 span = img->load_hi - img->load_lo;
	struct lk_rng *rng;
	lk_u32 i;

	lk_memcpy(&eh, elf, sizeof(eh)); /* lk_elf_check: size >= ehdr */
	if (eh.e_phoff > size ||
	    (lk_u64)eh.e_phnum * sizeof(ph) > size - eh.e_phoff) {
		lk_boot_fail(b, "%s: bad program header table", name);
		return -1;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		lk_memcpy(&ph, elf + eh.e_phoff + (lk_u64)i * sizeof(ph),
			  sizeof(ph));
		if (ph.p_type != LK_PT_OPENBSD_RANDOMIZE || ph.p_memsz == 0)
			continue;
		if (ph.p_paddr < img->load_lo || ph.p_memsz > span ||
		    ph.p_paddr - img->load_lo > span - ph.p_memsz) {
			lk_boot_fail(b, "%s: PT_OPENBSD_RANDOMIZE segment %u "
					"outside the loaded image", name, i);
			return -1;
		}
		rng = lk_boot_rng(b);
		if (!rng)
			return -1;
		lk_boot_seed_data(b, rng);
		lk_rng_bytes(rng, dst + (ph.p_paddr - img->load_lo),
			     (lk_size)ph.p_memsz);
	}
	return 0;
}

static int lk_fallback_load(struct lk_boot *b, const char *name,
			    const void *elf, lk_u64 size, struct lk_kernel *k)
{
	struct lk_elf_image img;
	lk_u8 *dst;

	if (b->have_key && lk_boot_check_sig(b, name, elf, size))
		return -1;
	if (lk_boot_is_linux(b, name, elf, size))
		return lk_boot_linux_load(b, name, elf, size, k);
	if (lk_elf_check(&b->host, elf, size, name, &img))
		return -1;
	/* The ELF's own note wins; the config covers kernels without one;
	 * a kernel from the OpenBSD root is an OpenBSD kernel. */
	k->proto = lk_proto_by_id(img.protocol     ? img.protocol
				  : name[0] == '/' ? LK_PROTO_OPENBSD
						   : b->cfg.protocol);
	if (!k->proto) {
		lk_boot_fail(b, "%s: unknown protocol %u", name, img.protocol);
		return -1;
	}
	k->load_lo = img.load_lo;
	k->load_hi = lk_proto_elf_end(k->proto, elf, size, &img);
	k->entry = img.entry_lma;
	k->loader_name = "relinkboot fallback";
	dst = b->ops->place(b, k->load_lo, k->load_hi);
	if (!dst || lk_elf_load(&b->host, elf, size, dst) ||
	    lk_fallback_randomize(b, name, elf, size, dst, &img) ||
	    lk_proto_elf_place(k->proto, &b->host, elf, size, name, &img, dst))
		return -1;
	if (lk_boot_file_view(b, k, elf, size, name))
		return -1;
	return b->ops->settle(b, k, elf, size);
}

/* One candidate; returns only when it could not be booted. */
static void lk_fallback_try(struct lk_boot *b, const char *name)
{
	struct lk_kernel k;
	void *elf = LK_NULL;
	lk_u64 size = 0;
	int rc;

	lk_memset(&k, 0, sizeof(k));
	b->capture = 1;
	if (lk_boot_read(b, name, 0, &elf, &size) ||
	    lk_boot_gunzip(b, name, &elf, &size))
		return;
	rc = lk_fallback_load(b, name, elf, size, &k);
	/* Loaded and viewed: the file copy goes before the jump. */
	b->ops->free_big(b, elf, size);
	if (rc == 0)
		lk_boot_enter(b, &k);
	lk_boot_drop_rng(b);
}

/* A candidate failed but another follows: its reason on a line of its
 * own, the next one starts clean. */
static void lk_fallback_next(struct lk_boot *b, const char *next)
{
	lk_boot_print(b, "warning: %s; trying %s", b->reason, next);
	b->reason[0] = 0;
	b->ops->release(b);
}

/*
 * The ESP's fallback, or the root's /bsd: first when the kit was stale
 * (the ESP's fallback was most likely made with it), and when the ESP
 * has none. /bsd is what OpenBSD's reorder_kernel keeps fresh.
 */
void lk_boot_kernel_file(struct lk_boot *b, const char *path)
{
	lk_fallback_try(b, path);
}

void lk_boot_fallback(struct lk_boot *b)
{
	const char *esp = b->cfg.fallback;
	int root = lk_boot_root_open(b) == 0;

	if (b->stale && root) {
		lk_fallback_try(b, LK_BOOT_ROOT_KERNEL);
		lk_fallback_next(b, esp);
	}
	lk_fallback_try(b, esp);
	if (!b->stale && root) {
		lk_fallback_next(b, LK_BOOT_ROOT_KERNEL);
		lk_fallback_try(b, LK_BOOT_ROOT_KERNEL);
	}
}
