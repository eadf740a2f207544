/*
 * OpenBSD amd64 (boot(8), efiboot): the kernel is called as a cdecl
 * function with boot(8)'s eight stack words; the boot arguments (memory
 * map, console, EFI information, boot disk DUID) are a list the words
 * point at. Its symbol table follows the image, as boot(8) puts it.
 */
#include "proto.h"
#include "../linkkit.h"
#include "obsd_opts.h"

static lk_u64 lk_obsd_link_end(const struct lk_link *L)
{
	return lk_link_obsd_end(L);
}

static lk_u64 lk_obsd_elf_end(const void *elf, lk_u64 size,
			      const struct lk_elf_image *img)
{
	return lk_elf_obsd_end(elf, size, img, LK_PROTO_OPENBSD);
}

static int lk_obsd_elf_place(const struct lk_host *h, const void *elf,
			     lk_u64 size, const char *name,
			     const struct lk_elf_image *img, void *image)
{
	return lk_elf_obsd_place(h, elf, size, name, img, LK_PROTO_OPENBSD,
				 image);
}

/* The firmware part the stage gathered, with the final map added. */
static void lk_obsd_add_efi(struct lk_obsd *o, const struct lk_machine *m)
{
	struct lk_obsd_efiinfo ei = *m->obsd_efi;

	ei.mmap_desc_ver = m->efi_desc_ver;
	ei.mmap_desc_size = m->efi_desc_size;
	ei.mmap_size = m->efi_map_size;
	ei.mmap_start = (lk_u64)(lk_uptr)m->efi_map;
	lk_obsd_efiinfo(o, &ei);
}

/* Where the root is: the config's `root`, else the boot disk's label;
 * without either the kernel is asked to ask (RB_ASKNAME), not to guess
 * a disk that may not exist (an ESP-only boot disk on a wd machine). */
static void lk_obsd_root(struct lk_obsd *o, struct lk_obsd_args *a,
			 const struct lk_handover *ho)
{
	const struct lk_obsd_opts *opt = ho->obsd;
	const struct lk_machine *m = ho->m;

	if (opt->root_set == LK_OBSD_ROOT_DUID) {
		lk_obsd_bootduid(o, opt->root_duid);
		a->bootdev = (m->bootdev & ~0xff00u) | opt->root_part << 8;
	} else if (opt->root_set == LK_OBSD_ROOT_DEV) {
		a->bootdev = lk_obsd_bootdev_disk(opt->root_type,
						  opt->root_unit) |
			     opt->root_part << 8;
	} else if (m->have_duid) {
		lk_obsd_bootduid(o, m->duid);
		a->bootdev = m->bootdev;
	} else {
		a->bootdev = m->bootdev;
		a->howto |= LK_RB_ASKNAME;
	}
}

/* BOOTARG_CONSDEV: `tty = comN`, else the command line's console=comN;
 * the speed from `stty`, else the stages' own 115200. */
static void lk_obsd_console(struct lk_obsd *o, const struct lk_handover *ho)
{
	const struct lk_obsd_opts *opt = ho->obsd;
	int unit = opt->tty_set ? (int)opt->tty_unit
				: lk_obsd_serial_unit(ho->cmdline);
	lk_u32 speed;

	if (unit < 0)
		return;
	speed = opt->com_speed[unit] ? opt->com_speed[unit] : 115200;
	lk_obsd_consdev_com(o, (lk_u32)unit, speed,
			    lk_obsd_com_port((lk_u32)unit));
}

/* The list at the start of buf, the stack words at its (16-aligned) end. */
static int lk_obsd_build(const struct lk_host *h, const struct lk_handover *ho,
			 void *buf, lk_u32 cap, struct lk_entry *out)
{
	const struct lk_machine *m = ho->m;
	lk_u32 *words = (lk_u32 *)((lk_u8 *)buf + (cap & ~15u)) -
			LK_OBSD_STACK_WORDS;
	struct lk_obsd o;
	struct lk_obsd_args a;
	lk_u32 list_cap = LK_OBSD_MAX_LIST;

	if (cap < LK_OBSD_MAX_LIST + 64)
		list_cap = 0; /* the builder then reports what it needed */
	lk_memset(&a, 0, sizeof(a));
	a.howto = ho->obsd->howto | (ho->good_seed ? LK_RB_GOODRANDOM : 0);
	lk_obsd_begin(&o, buf, list_cap);
	lk_obsd_memmap(&o, m->map, m->nmap);
	lk_obsd_console(&o, ho);
	if (m->obsd_efi)
		lk_obsd_add_efi(&o, m);
	if (ho->ucode_size)
		lk_obsd_ucode(&o, ho->ucode_addr, ho->ucode_size);
	lk_obsd_root(&o, &a, ho);
	if (lk_obsd_end(&o) != LK_OK) {
		lk_log(h, LK_LOG_ERROR,
		       "OpenBSD boot arguments need %u bytes (max %u)", o.need,
		       LK_OBSD_MAX_LIST);
		return -1;
	}
	lk_obsd_args_fill(&a, &o, (lk_u32)(lk_uptr)buf, ho->k->load_hi, m->map,
			  m->nmap);
	lk_obsd_stack(words, &a);
	out->entry = (lk_u32)ho->k->entry;
	out->magic = 0;
	out->info = (lk_u32)(lk_uptr)buf;
	out->esp = (lk_u32)(lk_uptr)words;
	return 0;
}

const struct lk_proto lk_proto_openbsd = {
	.name = "openbsd",
	.id = LK_PROTO_OPENBSD,
	.boot_disk = 1,
	.ucode = 1,
	.link_end = lk_obsd_link_end,
	.link_place = lk_link_obsd_place,
	.elf_end = lk_obsd_elf_end,
	.elf_place = lk_obsd_elf_place,
	.build = lk_obsd_build,
};
