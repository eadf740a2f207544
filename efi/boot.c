/*
 * BOOTX64.EFI: links the kernel from the kit with a fresh random layout
 * and boots it; on any failure boots the prelinked fallback kernel after
 * one `relinkboot: fallback: REASON` line.
 */
#include "efiboot.h"

#define EB_CONFIG_PATH "\\EFI\\BOOT\\RELINK.CFG"
#define EB_4G 0x100000000ull

struct eb_relink {
	struct lk_link *L;
	struct lk_rng *rng;
	lk_u64 t; /* TSC at the start of the current phase */
};

static void eb_phase(struct eb_state *s, struct eb_relink *r, const char *name)
{
	lk_u64 now = eb_rdtsc();

	if (s->cfg.verbose >= 1)
		eb_print(s, "phase %s %llu cycles", name, now - r->t);
	r->t = eb_rdtsc();
}

static void eb_load_config(struct eb_state *s)
{
	void *text = LK_NULL;
	lk_u64 size = 0;
	EFI_STATUS st;

	lk_config_defaults(&s->cfg);
	if (eb_read_file(s, EB_CONFIG_PATH, 1, &text, &size, &st)) {
		eb_print(s, "warning: cannot read %s: %s; using defaults",
			 EB_CONFIG_PATH, eb_status_str(st));
		return;
	}
	lk_config_parse(&s->host, EB_CONFIG_PATH, text, (lk_size)size, &s->cfg);
	eb_release_all(s); /* wipes the file copy too (it may hold a seed) */
}

/* After the Secure Boot policy, which may have refused verbose = 2. */
static void eb_apply_verbose(struct eb_state *s)
{
	if (s->cfg.verbose >= 2) {
		s->host.log_level = LK_LOG_DEBUG;
		eb_print(s, "INSECURE: verbose=2 prints the kernel layout");
	}
}

static void eb_relink_cleanup(struct eb_state *s, void *arg)
{
	struct eb_relink *r = arg;

	(void)s;
	if (r->L)
		lk_link_close(r->L);
	r->L = LK_NULL;
	if (r->rng)
		lk_rng_wipe(r->rng);
}

/*
 * The ELF-sections view goes in pages below 4 GiB that the kernel keeps.
 * The OpenBSD hand-over does not pass it: there it would be a copy of the
 * layout (its symbol table) that nobody owns, left in RAM.
 */
static int eb_relink_elf_view(struct eb_state *s, struct eb_relink *r,
			      struct eb_kernel *k)
{
	struct lk_elf_view v;
	void *buf;

	if (k->protocol == LK_PROTO_OPENBSD)
		return 0;
	if (lk_link_elf_size(r->L, &v))
		return -1;
	buf = eb_pages(s, v.size, EB_4G, 0);
	if (!buf) {
		eb_fail(s, "cannot allocate %llu bytes for the ELF sections",
			v.size);
		return -1;
	}
	if (lk_link_elf_emit(r->L, buf, v.size, (lk_u64)(lk_uptr)buf, &v))
		return -1;
	k->shdrs = buf;
	k->shnum = v.shnum;
	k->shentsize = v.shentsize;
	k->shstrndx = v.shstrndx;
	return 0;
}

static int eb_relink_link(struct eb_state *s, struct eb_relink *r,
			  const void *payload, lk_u64 psize,
			  struct eb_kernel *k)
{
	const char *name = s->cfg.kit;
	struct lk_image_info info;
	void *dst;

	if (lk_link_open(&s->host, payload, psize, name, &r->L) ||
	    lk_link_layout(r->L, r->rng))
		return -1;
	lk_link_info(r->L, &info);
	eb_phase(s, r, "layout");
	if (s->cfg.verbose >= 2)
		lk_link_dump_layout(r->L, LK_LOG_DEBUG);
	/* An OpenBSD kernel's symbol table follows its image, as boot(8)
	 * puts it: part of the range the kernel is given. */
	dst = eb_place_kernel(s, info.load_lo, lk_link_obsd_end(r->L));
	if (!dst || eb_write_image(s, r->L, dst, r->rng) ||
	    lk_link_obsd_place(r->L, dst))
		return -1;
	eb_phase(s, r, "write");
	k->entry = info.entry_lma;
	k->load_lo = info.load_lo;
	k->load_hi = lk_link_obsd_end(r->L);
	k->protocol = info.protocol;
	k->loader_name = "relinkboot relinked";
	/* locore (pinned first) carries the Multiboot2 header, so the
	 * image's first bytes are where a loader looks for it. */
	if (eb_settle_kernel(s, k, dst, info.load_hi - info.load_lo))
		return -1;
	return eb_relink_elf_view(s, r, k);
}

static void eb_try_relink(struct eb_state *s)
{
	struct eb_relink r = { LK_NULL, LK_NULL, eb_rdtsc() };
	struct eb_kernel k;
	struct lk_kit kit;
	void *data = LK_NULL, *payload;
	lk_u64 size = 0;
	EFI_STATUS st;

	lk_memset(&k, 0, sizeof(k));
	if (eb_read_file(s, s->cfg.kit, 1, &data, &size, &st)) {
		eb_fail(s, "cannot open %s: %s", s->cfg.kit, eb_status_str(st));
		return;
	}
	eb_phase(s, &r, "read");
	/* Before anything but the header is looked at. */
	if (s->have_key) {
		if (lk_kit_check_sig(&s->host, &s->key, s->cfg.kit, data, size))
			return;
		eb_phase(s, &r, "signature");
	}
	if (lk_kit_open(&s->host, data, size, s->cfg.kit, &kit))
		return;
	eb_phase(s, &r, "verify");
	r.rng = eb_pages(s, sizeof(*r.rng), 0, 1);
	payload = eb_pages(s, kit.payload_size, 0, 1);
	if (!r.rng || !payload) {
		eb_fail(s, "%s: cannot allocate %llu bytes for the payload",
			s->cfg.kit, kit.payload_size);
		return;
	}
	eb_entropy_seed(s, r.rng);
	eb_phase(s, &r, "entropy");
	if (eb_inflate_kit(s, &kit, s->cfg.kit, payload, kit.payload_size))
		return;
	/* Nothing reads the kit after this: free it (wiped) before the
	 * image is allocated, so the stage never holds kit, payload and
	 * image at once (issue 16: peak <= 3x the image). The leak test's
	 * -neg build keeps it, as it keeps every released region, so its
	 * scan still has a kit to find. */
	if (!s->keep_released) {
		eb_pages_free(s, data);
		data = LK_NULL;
	}
	eb_phase(s, &r, "inflate");
	if (eb_relink_link(s, &r, payload, kit.payload_size, &k) == 0)
		eb_handoff(s, &k, eb_relink_cleanup, &r);
	eb_relink_cleanup(s, &r);
	if (!s->reason[0])
		eb_fail(s, "%s: link failed", s->cfg.kit);
}

static int eb_fallback_elf_view(struct eb_state *s, const void *elf,
				lk_u64 size, struct eb_kernel *k)
{
	lk_u64 used = 0;
	void *buf;

	if (lk_mb2_elf_view_from_file(elf, size, LK_NULL, 0, 0, &k->shnum,
				      &k->shentsize, &k->shstrndx, &used))
		return 0; /* no section headers: boot without the tag */
	buf = eb_pages(s, used, EB_4G, 0);
	if (!buf || lk_mb2_elf_view_from_file(elf, size, buf, used,
					      (lk_u64)(lk_uptr)buf, &k->shnum,
					      &k->shentsize, &k->shstrndx,
					      &used)) {
		eb_fail(s, "cannot place the ELF sections of %s",
			s->cfg.fallback);
		return -1;
	}
	k->shdrs = buf;
	return 0;
}

#define EB_PT_OPENBSD_RANDOMIZE 0x65a3dbe6u
#define EB_PHDR_SIZE 56

/*
 * The prelinked fallback has fixed contents, so like OpenBSD's boot loader
 * fill its PT_OPENBSD_RANDOMIZE segments (stack protector guard, ...) with
 * fresh random bytes on every boot. dst holds [load_lo, load_hi).
 */
static int eb_fallback_randomize(struct eb_state *s, const lk_u8 *elf,
				 lk_u64 size, lk_u8 *dst,
				 const struct lk_elf_image *img)
{
	struct lk_rng *rng = LK_NULL;
	lk_u64 phoff;
	lk_u16 phnum, i;

	lk_memcpy(&phoff, elf + 0x20, 8);
	lk_memcpy(&phnum, elf + 0x38, 2);
	if (phoff > size || (lk_u64)phnum * EB_PHDR_SIZE > size - phoff)
		return 0; /* lk_elf_check accepted it: nothing we can add */
	for (i = 0; i < phnum; i++) {
		const lk_u8 *ph = elf + phoff + (lk_u64)i * EB_PHDR_SIZE;
		lk_u32 type;
		lk_u64 pa, memsz;
		lk_memcpy(&type, ph, 4);
		lk_memcpy(&pa, ph + 0x18, 8);
		lk_memcpy(&memsz, ph + 0x28, 8);
		if (type != EB_PT_OPENBSD_RANDOMIZE || memsz == 0)
			continue;
		if (pa < img->load_lo || pa > img->load_hi ||
		    memsz > img->load_hi - pa) {
			eb_fail(s, "%s: PT_OPENBSD_RANDOMIZE segment %u outside "
				   "the loaded image", s->cfg.fallback, i);
			return -1;
		}
		if (!rng) {
			rng = eb_pages(s, sizeof(*rng), 0, 1);
			if (!rng) {
				eb_fail(s, "cannot allocate the generator");
				return -1;
			}
			eb_entropy_seed(s, rng);
		}
		lk_rng_bytes(rng, dst + (pa - img->load_lo), (lk_size)memsz);
	}
	if (rng)
		lk_rng_wipe(rng);
	return 0;
}

/* The fallback's detached signature (FALLBACK.SIG next to it). */
static int eb_fallback_check_sig(struct eb_state *s, const void *elf,
				 lk_u64 size)
{
	char path[LK_CFG_PATH_MAX];
	void *sig = LK_NULL;
	lk_u64 ssize = 0;
	EFI_STATUS st;

	if (lk_sig_path(s->cfg.fallback, path, sizeof(path))) {
		eb_fail(s, "%s: path too long for its signature", s->cfg.fallback);
		return -1;
	}
	if (eb_read_file(s, path, 0, &sig, &ssize, &st)) {
		eb_fail(s, "%s: not signed (cannot open %s: %s), and a public key "
			   "is configured", s->cfg.fallback, path, eb_status_str(st));
		return -1;
	}
	return lk_sig_check(&s->host, &s->key, s->cfg.fallback, elf,
			    (lk_size)size, sig, (lk_size)ssize);
}

static void eb_try_fallback(struct eb_state *s)
{
	struct lk_elf_image img;
	struct eb_kernel k;
	void *elf = LK_NULL, *dst;
	lk_u64 size = 0;
	EFI_STATUS st;

	lk_memset(&k, 0, sizeof(k));
	if (eb_read_file(s, s->cfg.fallback, 0, &elf, &size, &st)) {
		eb_fail(s, "cannot open %s: %s", s->cfg.fallback,
			eb_status_str(st));
		return;
	}
	if (s->have_key && eb_fallback_check_sig(s, elf, size))
		return;
	if (lk_elf_check(&s->host, elf, size, s->cfg.fallback, &img))
		return;
	k.protocol = img.protocol ? img.protocol : s->cfg.protocol;
	k.load_hi = lk_elf_obsd_end(elf, size, &img, k.protocol);
	dst = eb_place_kernel(s, img.load_lo, k.load_hi);
	if (!dst || lk_elf_load(&s->host, elf, size, dst) ||
	    eb_fallback_randomize(s, elf, size, dst, &img) ||
	    lk_elf_obsd_place(&s->host, elf, size, s->cfg.fallback, &img,
			      k.protocol, dst))
		return;
	if (eb_fallback_elf_view(s, elf, size, &k))
		return;
	k.entry = img.entry_lma;
	k.load_lo = img.load_lo;
	k.loader_name = "relinkboot fallback";
	if (eb_settle_kernel(s, &k, elf, size))
		return;
	eb_handoff(s, &k, LK_NULL, LK_NULL);
}

/* Static, not on the stack: it must outlive the stack wipe's reach and
 * is wiped explicitly (the config) before the jump. */
static struct eb_state eb_s;

/* RELINK_PUBKEY=path.pub at build time (linkkit/rules.mk). */
#include "relink-pubkey.h"
#ifdef RELINK_PUBKEY_B64
#define EB_BUILTIN_KEY RELINK_PUBKEY_B64
#else
#define EB_BUILTIN_KEY LK_NULL
#endif

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
	struct eb_state *s = &eb_s;

	s->image = image;
	s->st = st;
	s->stack_hi = (lk_u64)(lk_uptr)__builtin_frame_address(0);
	eb_host_init(s);
	st->BootServices->SetWatchdogTimer(0, 0, 0, LK_NULL);
	if (eb_open_root(s))
		return EFI_LOAD_ERROR;
	eb_load_config(s);
	eb_secure_boot_policy(s, EB_BUILTIN_KEY);
	eb_apply_verbose(s);
	s->have_key = lk_config_pubkey(&s->cfg, EB_BUILTIN_KEY, &s->key);
	if (s->have_key < 0) {
		eb_print(s, "error: the built-in public key is malformed");
		return EFI_LOAD_ERROR;
	}
	if (eb_prompt_fallback(s))
		eb_fail(s, "chosen at the boot prompt");
	else {
		s->quiet_errors = 1;
		eb_try_relink(s);
	}
	if (!s->reason[0])
		eb_fail(s, "%s: unexplained failure", s->cfg.kit);
	eb_print(s, "fallback: %s", s->reason);
	eb_release_all(s);
	s->reason[0] = 0;
	eb_try_fallback(s);
	if (!s->reason[0])
		eb_fail(s, "%s: unexplained failure", s->cfg.fallback);
	eb_release_all(s);
	eb_print(s, "fallback failed: %s", s->reason);
	lk_config_wipe(&s->cfg);
	eb_mp_settle(s);
	return EFI_LOAD_ERROR;
}
