/*
 * The boot flow of the BIOS stage: read the config, relink the kernel
 * from the kit, and on any failure print one `fallback:` line and boot
 * the prelinked fallback instead. Nothing here is BIOS-specific except
 * the calls declared in bios.h.
 */
#include "bios.h"
#include "stand.h"
#include "../linkkit/mb2.h"

#define CFG_PATH "\\EFI\\BOOT\\RELINK.CFG"

static struct stand st;

/* RELINK_PUBKEY=path.pub at build time (linkkit/rules.mk). */
#include "relink-pubkey.h"
#ifdef RELINK_PUBKEY_B64
#define BUILTIN_KEY RELINK_PUBKEY_B64
#else
#define BUILTIN_KEY LK_NULL
#endif

static void phase(struct stand *s, const char *name, lk_u64 *t)
{
	lk_u64 now = cpu_rdtsc();

	if (s->verbose >= 1)
		stand_print("phase %s %llu cycles", name,
			    (unsigned long long)(now - *t));
	*t = now;
}

static void read_config(struct stand *s)
{
	lk_u32 size = 0;
	void *text;

	lk_config_defaults(&s->cfg);
	s->capture = 1;
	text = stand_read_file(s, CFG_PATH, &size);
	s->capture = 0;
	if (!text) {
		stand_print("warning: %s; using defaults", s->reason);
		s->reason[0] = 0;
		return;
	}
	lk_config_parse(&s->host, CFG_PATH, text, size, &s->cfg);
	stand_free_file(s, text, size);
	s->verbose = s->cfg.verbose;
	if (s->verbose >= 2)
		s->host.log_level = LK_LOG_DEBUG;
}

/* Everything the relink allocated, so every exit path can wipe it. */
struct relink {
	void *kit, *payload, *elfv;
	lk_u32 kit_size;
	lk_u64 payload_size, elfv_size;
	struct lk_link *link;
	lk_u64 image_lo, image_hi; /* written at its load address */
};

/* The link state, the payload and the kit: wiped and freed, so that
 * every host.alloc buffer is gone before a jump (the leak test checks). */
static void relink_drop_inputs(struct stand *s, struct relink *r)
{
	if (r->link)
		lk_link_close(r->link);
	r->link = LK_NULL;
	if (r->payload) {
		lk_wipe(r->payload, (lk_size)r->payload_size);
		s->host.free(s->host.ctx, r->payload, (lk_size)r->payload_size);
	}
	r->payload = LK_NULL;
	if (r->kit)
		stand_free_file(s, r->kit, r->kit_size);
	r->kit = LK_NULL;
}

static void relink_wipe(struct stand *s, struct relink *r)
{
	/* The leak test's -neg stage only: what the failed relink held (kit,
	 * payload, link state, image) stays, as if this wipe were forgotten. */
	if (s->keep_failed_relink) {
		lk_wipe(r, sizeof(*r));
		return;
	}
	relink_drop_inputs(s, r);
	/* A layout that was not booted still tells how this kit links. Its
	 * image, whole or partly written, is that layout: the fallback may
	 * load elsewhere or end sooner, so it would survive. */
	if (r->elfv)
		lk_wipe(r->elfv, (lk_size)r->elfv_size);
	if (r->image_hi > r->image_lo)
		lk_wipe((void *)(lk_uptr)r->image_lo,
			(lk_size)(r->image_hi - r->image_lo));
	lk_wipe(r, sizeof(*r));
}

static int relink_load(struct stand *s, struct relink *r, lk_u64 *t)
{
	const char *name = s->cfg.kit;
	struct lk_kit kit;

	r->kit = stand_read_file(s, name, &r->kit_size);
	if (!r->kit)
		return -1;
	phase(s, "read-kit", t);
	/* Before anything but the header is looked at. */
	if (s->have_key) {
		if (lk_kit_check_sig(&s->host, &s->key, name, r->kit, r->kit_size))
			return -1;
		phase(s, "signature", t);
	}
	if (lk_kit_open(&s->host, r->kit, r->kit_size, name, &kit))
		return -1;
	if (kit.payload_size > 0x7fffffffu) {
		lk_log(&s->host, LK_LOG_ERROR, "%s: payload too large", name);
		return -1;
	}
	r->payload_size = kit.payload_size;
	r->payload = s->host.alloc(s->host.ctx, (lk_size)kit.payload_size);
	if (!r->payload) {
		lk_log(&s->host, LK_LOG_ERROR, "%s: no memory for the payload",
		       name);
		return -1;
	}
	if (lk_kit_inflate(&s->host, &kit, name, r->payload, r->payload_size))
		return -1;
	phase(s, "inflate", t);
	return 0;
}

/*
 * The ELF-sections view (symbol table included) for the Multiboot2 tag.
 * Only that hand-over passes it: under any other protocol it would be a
 * copy of the layout that nobody owns, left in RAM.
 */
static int relink_elf_view(struct stand *s, struct relink *r,
			   struct handoff *ho)
{
	struct lk_elf_view view;

	if (ho->protocol != LK_PROTO_MULTIBOOT2)
		return 0;
	if (lk_link_elf_size(r->link, &view))
		return -1;
	r->elfv_size = view.size;
	/* Handed to the kernel: from the heap itself, not host.alloc. */
	r->elfv = heap_alloc(&s->heap, (lk_size)view.size);
	if (!r->elfv || lk_link_elf_emit(r->link, r->elfv, view.size,
					 (lk_u64)(lk_uptr)r->elfv, &view)) {
		lk_log(&s->host, LK_LOG_ERROR, "%s: cannot build ELF sections",
		       s->cfg.kit);
		return -1;
	}
	ho->shdrs = r->elfv;
	ho->shnum = view.shnum;
	ho->shentsize = view.shentsize;
	ho->shstrndx = view.shstrndx;
	return 0;
}

static int relink_link(struct stand *s, struct relink *r, lk_u64 *t,
		       struct handoff *ho)
{
	struct lk_image_info info;
	lk_u64 hi;

	if (lk_link_open(&s->host, r->payload, r->payload_size, s->cfg.kit,
			 &r->link) ||
	    lk_link_layout(r->link, &s->rng))
		return -1;
	lk_link_info(r->link, &info);
	if (s->verbose >= 2)
		lk_link_dump_layout(r->link, LK_LOG_DEBUG);
	/* An OpenBSD kernel's symbol table follows its image, as boot(8)
	 * puts it: part of the range the kernel is given (and wiped). */
	hi = lk_link_obsd_end(r->link);
	if (stand_check_range(s, s->cfg.kit, info.load_lo, hi))
		return -1;
	r->image_lo = info.load_lo;
	r->image_hi = hi;
	if (lk_link_write(r->link, (void *)(lk_uptr)info.load_lo, &s->rng) ||
	    lk_link_obsd_place(r->link, (void *)(lk_uptr)info.load_lo))
		return -1;
	phase(s, "link", t);
	ho->load_lo = info.load_lo;
	ho->load_hi = hi;
	ho->entry = info.entry_lma;
	ho->protocol = info.protocol;
	ho->loader = "relinkboot relinked";
	return relink_elf_view(s, r, ho);
}

/* Returns only on failure, with s->reason set. */
static void try_relink(struct stand *s)
{
	struct relink r;
	struct handoff ho;
	lk_u64 t = cpu_rdtsc();

	lk_memset(&r, 0, sizeof(r));
	lk_memset(&ho, 0, sizeof(ho));
	s->capture = 1;
	if (relink_load(s, &r, &t) == 0 && relink_link(s, &r, &t, &ho) == 0) {
		/* The ELF view and the linked image stay; the rest goes. */
		relink_drop_inputs(s, &r);
		stand_boot(s, &ho);
	}
	s->capture = 0;
	relink_wipe(s, &r);
	if (!s->reason[0])
		lk_snprintf(s->reason, sizeof(s->reason), "relink failed");
}

/* The fallback's detached signature (FALLBACK.SIG next to it); errors
 * are printed (capture is off). */
static int fallback_check_sig(struct stand *s, const char *name,
			      const void *elf, lk_u32 size)
{
	char path[LK_CFG_PATH_MAX];
	lk_u32 ssize = 0;
	void *sig;
	int rc;

	if (lk_sig_path(name, path, sizeof(path)))
		return -1;
	/* The read error goes into the one line below, not a line of its own. */
	s->reason[0] = 0;
	s->capture = 1;
	sig = stand_read_file(s, path, &ssize);
	s->capture = 0;
	if (!sig) {
		stand_print("%s: not signed (%s), and a public key is "
			    "configured", name, s->reason);
		return -1;
	}
	rc = lk_sig_check(&s->host, &s->key, name, elf, size, sig, ssize);
	stand_free_file(s, sig, ssize);
	return rc;
}

static void boot_fallback(struct stand *s)
{
	const char *name = s->cfg.fallback;
	struct lk_elf_image img;
	struct handoff ho;
	lk_u32 size = 0;
	lk_u64 used = 0;
	void *elf, *view;

	lk_memset(&ho, 0, sizeof(ho));
	elf = stand_read_file(s, name, &size);
	if (elf && s->have_key && fallback_check_sig(s, name, elf, size))
		stand_halt("refusing the unverified fallback kernel");
	if (!elf || lk_elf_check(&s->host, elf, size, name, &img))
		stand_halt("cannot boot the fallback kernel");
	/* The ELF's own note wins; the config covers kernels without one. */
	ho.protocol = img.protocol ? img.protocol : s->cfg.protocol;
	ho.load_hi = lk_elf_obsd_end(elf, size, &img, ho.protocol);
	if (stand_check_range(s, name, img.load_lo, ho.load_hi) ||
	    lk_elf_load(&s->host, elf, size, (void *)(lk_uptr)img.load_lo) ||
	    stand_fill_random(s, name, elf, size, img.load_lo, img.load_hi) ||
	    lk_elf_obsd_place(&s->host, elf, size, name, &img, ho.protocol,
			      (void *)(lk_uptr)img.load_lo))
		stand_halt("cannot boot the fallback kernel");
	ho.shdrs = LK_NULL;
	lk_mb2_elf_view_from_file(elf, size, LK_NULL, 0, 0, &ho.shnum,
				  &ho.shentsize, &ho.shstrndx, &used);
	view = used ? heap_alloc(&s->heap, (lk_size)used) : LK_NULL;
	if (view && lk_mb2_elf_view_from_file(elf, size, view, used,
					      (lk_u64)(lk_uptr)view, &ho.shnum,
					      &ho.shentsize, &ho.shstrndx,
					      &used) == 0)
		ho.shdrs = view;
	/* Loaded and viewed: like every host.alloc buffer, gone before the
	 * jump (the view and the image are copies). */
	stand_free_file(s, elf, size);
	ho.load_lo = img.load_lo;
	ho.entry = img.entry_lma;
	ho.loader = "relinkboot fallback";
	stand_boot(s, &ho);
	stand_halt("cannot boot the fallback kernel");
}

void stand_main(lk_u32 drive)
{
	struct stand *s = &st;
	struct fat_dev dev = {LK_NULL, disk_read, 0};
	lk_u32 lo, hi;
	lk_u64 esp_lba, esp_count, t;

	cons_init();
	stand_host_init(s);
	if (mem_top_region(&lo, &hi))
		stand_halt("no usable RAM above 1 MiB in the E820 map");
	heap_init(&s->heap, lo, hi);
	if (disk_init((lk_u8)drive))
		stand_halt("no INT 13h extensions on the boot drive");
	dev.sectors = disk_sectors();
	if (fat_find_esp(&s->host, &dev, &esp_lba, &esp_count) ||
	    fat_mount(&s->host, &dev, esp_lba, esp_count, &s->fs))
		stand_halt("cannot read the ESP");
	read_config(s);
	s->have_key = lk_config_pubkey(&s->cfg, BUILTIN_KEY, &s->key);
	if (s->have_key < 0)
		stand_halt("the built-in public key is malformed");
	t = cpu_rdtsc();
	stand_seed(s, &s->rng);
	phase(s, "entropy", &t);
	if (stand_prompt_fallback(&s->cfg))
		lk_snprintf(s->reason, sizeof(s->reason),
			    "chosen at the boot prompt");
	else
		try_relink(s);
	stand_print("fallback: %s", s->reason);
	boot_fallback(s);
}
