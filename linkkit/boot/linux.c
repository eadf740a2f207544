/*
 * A Linux kernel file (bzImage or ELF vmlinux) as the fallback: checked
 * (linkkit/proto/linux.c), put at an aligned physical address the stage
 * finds free (not a fixed 16 MiB: OVMF's SMM builds keep ACPI NVS there),
 * and its initrd loaded into memory the kernel keeps, below the header's
 * initrd_addr_max, verified like the fallback when a key is configured.
 */
#include "boot.h"

#define LK_4G 0x100000000ull

int lk_boot_is_linux(struct lk_boot *b, const char *name, const void *data,
		     lk_u64 size)
{
	if (name[0] == '/')
		return 0; /* the OpenBSD root's kernels */
	return lk_linux_sniff(data, size) != LK_LINUX_NONE ||
	       b->cfg.protocol == LK_PROTO_LINUX;
}

static void *lk_linux_place(struct lk_boot *b, const struct lk_linux_image *img,
			    lk_u64 *phys)
{
	if (img->relocatable && b->ops->place_any)
		return b->ops->place_any(b, img->mem, img->align, img->pref,
					 phys);
	*phys = img->pref;
	return b->ops->place(b, img->pref, img->pref + img->mem);
}

static void *lk_linux_place_checked(struct lk_boot *b, const char *name,
				    const struct lk_linux_image *img,
				    lk_u64 *phys)
{
	void *dst = lk_linux_place(b, img, phys);

	if (dst && (*phys & (img->align - 1) || *phys >= LK_4G ||
		    img->mem > LK_4G - *phys)) {
		lk_boot_fail(b,
			     "%s: placed at 0x%llx, not aligned to 0x%llx "
			     "below 4 GiB",
			     name, *phys, img->align);
		return LK_NULL;
	}
	return dst;
}

/* Page-aligned: the kernel frees the initrd's pages once unpacked and
 * warns about a start inside a page (free_init_pages). */
static void *lk_initrd_mem(struct lk_boot *b, const char *path, lk_u64 size,
			   lk_u64 max)
{
	lk_u64 n = size + 4095;
	lk_u64 limit = max < 0xffffffffull ? max + 1 : 0x100000000ull;
	void *p = b->ops->alloc_kept_below
			  ? b->ops->alloc_kept_below(b, n, limit)
			  : b->ops->alloc_kept(b, n);
	lk_u64 a = ((lk_u64)(lk_uptr)p + 4095) & ~4095ull;

	if (!p) {
		lk_boot_fail(b,
			     "%s: no memory for its %llu bytes below "
			     "initrd_addr_max 0x%llx",
			     path, size, max);
		return LK_NULL;
	}
	if (a + size - 1 > max) {
		lk_boot_fail(b,
			     "%s: placed at 0x%llx, above initrd_addr_max "
			     "0x%llx",
			     path, a, max);
		return LK_NULL;
	}
	return (void *)(lk_uptr)a;
}

/* The initrd into kept memory; the file's buffer is wiped and freed. */
int lk_boot_linux_initrd(struct lk_boot *b, struct lk_kernel *k)
{
	const char *path = b->cfg.initrd;
	lk_u64 max = k->lx.initrd_max, size = 0;
	void *data = LK_NULL, *dst = LK_NULL;
	int rc = -1;

	if (!path[0])
		return 0;
	if (lk_boot_read(b, path, 0, &data, &size))
		return -1;
	if (b->have_key && lk_boot_check_sig(b, path, data, size))
		goto out;
	if (size == 0 || size > max + 1) {
		lk_boot_fail(b,
			     "%s: %llu bytes, larger than the kernel's "
			     "initrd_addr_max 0x%llx allows",
			     path, size, max);
		goto out;
	}
	dst = lk_initrd_mem(b, path, size, max);
	if (!dst)
		goto out;
	lk_memcpy(dst, data, (lk_size)size);
	k->initrd_addr = (lk_u64)(lk_uptr)dst;
	k->initrd_size = size;
	rc = 0;
out:
	b->ops->free_big(b, data, size);
	return rc;
}

/* `nokaslr` as a word of the kernel's command line. */
static int lk_cmdline_nokaslr(const char *s)
{
	static const char w[] = "nokaslr";
	lk_size i;

	while (*s) {
		while (*s == ' ')
			s++;
		for (i = 0; w[i] && s[i] == w[i]; i++)
			;
		if (!w[i] && (s[i] == ' ' || !s[i]))
			return 1;
		while (*s && *s != ' ')
			s++;
	}
	return 0;
}

/*
 * A relinked vmlinux (a `protocol linux` kit): described as the vmlinux
 * fallback is, and placed the same way (any 2 MiB-aligned free range
 * below 4 GiB: startup_64 runs wherever it is loaded), not at the link's
 * 16 MiB LMA. On entry k holds the link's range and entry; on success
 * they are moved to where the returned buffer is.
 */
void *lk_boot_linux_place_link(struct lk_boot *b, const char *name,
			       struct lk_kernel *k, int kaslr)
{
	struct lk_linux_image *img = &k->lx;
	lk_u64 phys = 0;
	void *dst;

	lk_linux_vmlinux_describe(img, k->load_lo, k->load_hi, k->entry);
	img->kaslr = kaslr != 0;
	if (k->load_lo & (LK_LINUX_VMLINUX_ALIGN - 1) || k->entry < k->load_lo ||
	    k->entry >= k->load_hi || img->mem > LK_4G) {
		lk_boot_fail(b,
			     "%s: linked kernel not 2 MiB-aligned or its entry "
			     "outside it",
			     name);
		return LK_NULL;
	}
	dst = lk_linux_place_checked(b, name, img, &phys);
	if (!dst)
		return LK_NULL;
	k->load_lo = phys;
	k->load_hi = phys + img->mem;
	k->entry = phys + img->entry64;
	return dst;
}

int lk_boot_linux_nokaslr(struct lk_boot *b, const struct lk_link *L)
{
	struct lk_image_info info;

	lk_link_info(L, &info);
	return info.protocol == LK_PROTO_LINUX && lk_cmdline_nokaslr(b->cfg.cmdline);
}

int lk_boot_linux_load(struct lk_boot *b, const char *name, const void *data,
		       lk_u64 size, struct lk_kernel *k)
{
	struct lk_linux_image *img = &k->lx;
	lk_u64 phys = 0;
	void *dst;

	if (lk_linux_check(&b->host, data, size, name, img))
		return -1;
	k->proto = &lk_proto_linux;
	dst = lk_linux_place_checked(b, name, img, &phys);
	if (!dst)
		return -1;
	/* A prelinked kernel's address is no secret (the kernel randomizes
	 * its own): shown with verbose, as the other phases are. */
	if (b->cfg.verbose)
		lk_boot_print(b, "%s: Linux kernel at 0x%llx, %llu bytes", name,
			      phys, img->mem);
	lk_linux_load(data, size, img, dst);
	k->load_lo = phys;
	k->load_hi = phys + img->mem;
	k->entry = phys + (img->entry64 != ~0ull ? img->entry64 : img->entry32);
	k->loader_name = "relinkboot fallback";
	if (b->ops->settle(b, k, data, size))
		return -1;
	return lk_boot_linux_initrd(b, k);
}
