/*
 * The relinked kernel: read and check the kit, inflate it, lay it out
 * with fresh randomness, write it where it runs and hand it over. Every
 * buffer is recorded in struct lk_relink so that each way out wipes it:
 * a layout that was not booted still tells how this kit links.
 */
#include "boot.h"

struct lk_relink {
	void *kit, *payload, *view;
	lk_u64 kit_size, payload_size, view_size;
	struct lk_link *L;
	lk_u8 *image; /* written, at its place or staged; wiped on failure */
	lk_u64 image_size;
	int inflating; /* the stage's inflate returned early (inflate_rest) */
};

/* The rest of an inflate the stage returned from early: before anything
 * frees the payload or the kit, and before the image is placed. */
static int lk_relink_inflate_rest(struct lk_boot *b, struct lk_relink *r)
{
	if (!r->inflating)
		return 0;
	r->inflating = 0;
	return b->ops->inflate_rest(b) ? -1 : 0;
}

static void lk_relink_free_kit(struct lk_boot *b, struct lk_relink *r)
{
	if (r->kit)
		b->ops->free_big(b, r->kit, r->kit_size);
	r->kit = LK_NULL;
}

/* The link state, the payload and the kit: gone before any jump. */
static void lk_relink_drop_inputs(struct lk_boot *b, struct lk_relink *r)
{
	lk_relink_inflate_rest(b, r);
	if (r->L)
		lk_link_close(r->L);
	r->L = LK_NULL;
	if (r->payload)
		b->ops->free_big(b, r->payload, r->payload_size);
	r->payload = LK_NULL;
	lk_relink_free_kit(b, r);
}

static void lk_relink_wipe(struct lk_boot *b, struct lk_relink *r)
{
	lk_relink_inflate_rest(b, r); /* no processor writes r's buffers */
	if (b->keep_failed_relink) {
		lk_wipe(r, sizeof(*r));
		return;
	}
	lk_relink_drop_inputs(b, r);
	if (r->view)
		lk_wipe(r->view, (lk_size)r->view_size);
	if (r->image)
		lk_wipe(r->image, (lk_size)r->image_size);
	lk_boot_drop_rng(b);
	lk_wipe(r, sizeof(*r));
}

static int lk_relink_read(struct lk_boot *b, struct lk_relink *r,
			  struct lk_kit *kit)
{
	const char *name = b->cfg.kit;

	if (b->ops->read_file(b, name, 1, &r->kit, &r->kit_size))
		return -1;
	lk_boot_phase(b, "read");
	/* Before anything but the header is looked at. */
	if (b->have_key) {
		if (lk_kit_check_sig(&b->host, &b->key, name, r->kit,
				     r->kit_size))
			return -1;
		lk_boot_phase(b, "signature");
	}
	/* A stage's own inflate hashes the kit itself (boot.h). */
	if (b->ops->inflate)
		return lk_kit_open_unhashed(&b->host, r->kit, r->kit_size, name,
					    kit) ? -1 : 0;
	if (lk_kit_open(&b->host, r->kit, r->kit_size, name, kit))
		return -1;
	lk_boot_phase(b, "verify");
	return 0;
}

int lk_boot_inflate_here(struct lk_boot *b, const struct lk_kit *kit,
			 const char *name, void *dst, lk_u64 size)
{
	int rc = lk_kit_verify(&b->host, kit, name);

	if (rc)
		return rc;
	lk_boot_phase(b, "verify");
	return lk_kit_inflate(&b->host, kit, name, dst, size);
}

static int lk_relink_inflate(struct lk_boot *b, struct lk_relink *r,
			     const struct lk_kit *kit)
{
	const char *name = b->cfg.kit;
	int rc;

	r->payload = b->ops->alloc_big(b, kit->payload_size, 1);
	if (!r->payload) {
		lk_boot_fail(b, "%s: cannot allocate %llu bytes for the payload",
			     name, kit->payload_size);
		return -1;
	}
	r->payload_size = kit->payload_size;
	if (b->ops->inflate)
		rc = b->ops->inflate(b, kit, name, r->payload, r->payload_size);
	else
		rc = lk_kit_inflate(&b->host, kit, name, r->payload,
				    r->payload_size);
	if (rc == LK_BOOT_INFLATE_EARLY)
		r->inflating = 1;
	else if (rc)
		return -1;
	lk_boot_phase(b, "inflate");
	return 0;
}

/* An OpenBSD kit is checked against the root's link directory before
 * it is linked (stale.c); the kit stays readable until then. */
static int lk_relink_fresh(struct lk_boot *b, struct lk_relink *r,
			   const struct lk_kit *kit)
{
	const struct lk_payload_header *hd = r->payload;
	int rc = 0;

	if (r->payload_size >= sizeof(*hd) && hd->protocol == LK_PROTO_OPENBSD)
		rc = lk_boot_kit_fresh(b, kit);
	return rc;
}

/* Nothing reads the kit once the payload is whole: freed (wiped) before
 * the image is placed, so kit, payload and image are never held at once
 * (stage peak <= 3x the image). */
static int lk_relink_payload_done(struct lk_boot *b, struct lk_relink *r)
{
	if (r->inflating) {
		if (lk_relink_inflate_rest(b, r))
			return -1;
		lk_boot_phase(b, "inflate-rest");
	}
	if (!b->keep_failed_relink)
		lk_relink_free_kit(b, r);
	return 0;
}

static int lk_relink_write(struct lk_boot *b, struct lk_relink *r,
			   const struct lk_proto *p, lk_u8 *dst,
			   struct lk_rng *rng)
{
	int rc;

	if (b->ops->write)
		rc = b->ops->write(b, r->L, dst, rng);
	else
		rc = lk_link_write(r->L, dst, rng);
	if (rc || lk_proto_link_place(p, r->L, dst))
		return -1;
	lk_boot_phase(b, "write");
	return 0;
}

static int lk_relink_link(struct lk_boot *b, struct lk_relink *r,
			  struct lk_kernel *k, struct lk_rng *rng)
{
	const char *name = b->cfg.kit;
	struct lk_image_info info;
	const struct lk_proto *p;
	lk_u8 *dst;
	lk_u64 placed;
	int nokaslr;

	if (lk_link_open(&b->host, r->payload, r->payload_size, name, &r->L))
		return -1;
	nokaslr = lk_boot_linux_nokaslr(b, r->L);
	if (nokaslr)
		lk_link_set_no_shift(r->L);
	if (lk_link_layout(r->L, rng))
		return -1;
	lk_link_info(r->L, &info);
	p = lk_proto_by_id(info.protocol);
	if (!p) {
		lk_boot_fail(b, "%s: unknown protocol %u", name, info.protocol);
		return -1;
	}
	lk_boot_phase(b, "layout");
	if (b->cfg.verbose >= 2)
		lk_link_dump_layout(r->L, LK_LOG_DEBUG);
	k->proto = p;
	k->load_lo = info.load_lo;
	k->load_hi = lk_proto_link_end(p, r->L);
	k->entry = info.entry_lma;
	k->loader_name = "relinkboot relinked";
	if (lk_relink_payload_done(b, r))
		return -1;
	lk_boot_seed_data(b, rng);
	dst = p->id == LK_PROTO_LINUX ? lk_boot_linux_place_link(b, name, k, !nokaslr)
				      : b->ops->place(b, k->load_lo, k->load_hi);
	if (!dst)
		return -1;
	placed = k->load_lo;
	r->image = dst;
	r->image_size = k->load_hi - k->load_lo;
	if (lk_relink_write(b, r, p, dst, rng))
		return -1;
	/* locore (pinned first) carries any Multiboot2 header, so the
	 * image's first bytes are where a loader looks for it. */
	if (b->ops->settle(b, k, dst, info.load_hi - info.load_lo))
		return -1;
	if (k->load_lo != placed)
		r->image = LK_NULL; /* moved: the stage owns (and wipes) it */
	if (p->id == LK_PROTO_LINUX && lk_boot_linux_initrd(b, k))
		return -1;
	return lk_boot_link_view(b, k, r->L, &r->view, &r->view_size);
}

void lk_boot_relink(struct lk_boot *b)
{
	struct lk_relink r;
	struct lk_kernel k;
	struct lk_kit kit;
	struct lk_rng *rng;

	lk_memset(&r, 0, sizeof(r));
	lk_memset(&k, 0, sizeof(k));
	b->capture = 1;
	if (lk_relink_read(b, &r, &kit) == 0 && (rng = lk_boot_rng(b)) &&
	    lk_relink_inflate(b, &r, &kit) == 0 &&
	    lk_relink_fresh(b, &r, &kit) == 0 &&
	    lk_relink_link(b, &r, &k, rng) == 0) {
		lk_relink_drop_inputs(b, &r);
		lk_boot_enter(b, &k);
	}
	lk_relink_wipe(b, &r);
	if (!b->reason[0])
		lk_boot_fail(b, "%s: link failed", b->cfg.kit);
	b->ops->release(b);
}
