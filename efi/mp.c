/*
 * The application processors help the boot processor twice (issue 16):
 * they inflate a segmented kit (LK_KIT_F_SEGMENTS) and write parts of the
 * relinked image (lk_link_write_begin). The firmware's MP Services
 * protocol (UEFI PI spec, vol. 2, "MP Services Protocol") starts them
 * once, in non-blocking mode; they then wait for jobs. Every processor
 * takes the next item of a job from one shared counter, and the boot
 * processor waits on that counter, not on the firmware's event (which
 * edk2 signals only from a periodic timer). After the write, or at the
 * latest before ExitBootServices, the APs are told to return.
 *
 * Everything that can go wrong ends in the one-processor path the BIOS
 * stage takes: no protocol, a single processor, a non-blocking request
 * refused, an AP whose CPU state differs from the boot processor's, an AP
 * killed by the timeout (its item is redone here), a segment that does
 * not inflate (the whole stream is then inflated here, so the error line
 * is the usual one), a part with relocation errors (lk_link_write_end
 * redoes the parts, printing them).
 */
#include "efiboot.h"

#include "../linkkit/cpu.h"

static EFI_GUID eb_mp_guid = { 0x3fdda605,
			       0xa76e,
			       0x4f46,
			       { 0xad, 0x29, 0x12, 0xf4, 0x53, 0x1b, 0x3d,
				 0x08 } };

typedef VOID(EFIAPI *eb_ap_procedure)(VOID *arg);

/* EFI_MP_SERVICES_PROTOCOL: gnu-efi has no header for it. */
struct eb_mp_services {
	EFI_STATUS(EFIAPI *get_number_of_processors)
	(struct eb_mp_services *self, UINTN *count, UINTN *enabled);
	VOID *get_processor_info;
	EFI_STATUS(EFIAPI *startup_all_aps)
	(struct eb_mp_services *self, eb_ap_procedure proc, BOOLEAN single,
	 EFI_EVENT done, UINTN timeout_us, VOID *arg, UINTN **failed);
	VOID *startup_this_ap, *switch_bsp, *enable_disable_ap, *who_am_i;
};

/* Under TCG one segment of the OpenBSD kit takes ~0.3 s; a real CPU
 * takes ~5 ms. The APs stay up from the inflate through the write (the
 * link in between takes ~1 s under TCG). Past this the firmware stops
 * them and the boot processor redoes what they left. */
#define EB_AP_TIMEOUT_US 60000000u

enum { EB_ITEM_PENDING, EB_ITEM_OK, EB_ITEM_BAD };
/* The inflate's items: the kit's hash, then its segments. */
#define EB_JOB_MAX_ITEMS                                                    \
	(LK_KIT_MAX_SEGMENTS + 1 > LK_WRITE_MAX_PARTS ? LK_KIT_MAX_SEGMENTS + 1 \
						      : LK_WRITE_MAX_PARTS)

/* n items (segments, parts) that any processor may take, one at a time,
 * from one shared counter. run returns 0 when item i went well. */
struct eb_job {
	int (*run)(struct eb_job *j, lk_u32 i);
	lk_u32 n;
	lk_u32 next;   /* next item to take (atomic) */
	lk_u32 done;   /* items finished, well or not (atomic) */
	lk_u32 by_aps; /* of them, by application processors (atomic) */
	lk_u8 state[EB_JOB_MAX_ITEMS];
};

struct eb_inflate_job {
	struct eb_job job; /* first: run's argument is this */
	struct lk_kit kit;
	const char *name;
	lk_u8 *dst;
	lk_u64 size;
	int early; /* eb_inflate_kit returned before the last items */
	lk_u8 sum[32]; /* the kit's hash (item 0) */
};

struct eb_write_job {
	struct eb_job job; /* first */
	const struct lk_link *L;
	lk_u8 *dst;
	struct lk_write_split ws;
	lk_u32 nerr; /* relocation errors the parts counted (atomic) */
};

/*
 * The APs, started once, take the jobs the boot processor posts here in
 * turn (inflate, then write) and return when it posts the quit job.
 * Static, not on the stack: an AP still reads a job's counter once after
 * its last item, when the boot processor may have moved on. Each job has
 * its own counters, so no AP can take an item of the next job for one of
 * the last.
 */
static struct eb_pool {
	struct eb_job *posted; /* atomic: the job to work on */
	struct eb_job quit;
	lk_u32 features; /* the boot processor's lk_cpu_features() */
	UINTN aps;	 /* enabled APs when started */
	int started;
	struct eb_inflate_job inflate;
	struct eb_write_job write;
} eb_pool;

static void eb_job_item(struct eb_job *j, lk_u32 i, int ap)
{
	int rc = j->run(j, i);

	__atomic_store_n(&j->state[i], rc ? EB_ITEM_BAD : EB_ITEM_OK,
			 __ATOMIC_RELEASE);
	if (ap)
		__atomic_fetch_add(&j->by_aps, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&j->done, 1, __ATOMIC_RELEASE);
}

static void eb_job_run(struct eb_job *j, int ap)
{
	lk_u32 i;

	while ((i = __atomic_fetch_add(&j->next, 1, __ATOMIC_ACQ_REL)) < j->n)
		eb_job_item(j, i, ap);
}

/* The boot processor's share of the items below limit: it takes them
 * only while none past limit is taken, so it comes back to what needs
 * them as soon as they are all out. */
static void eb_job_run_below(struct eb_job *j, lk_u32 limit)
{
	lk_u32 i = __atomic_load_n(&j->next, __ATOMIC_ACQUIRE);

	while (i < limit)
		if (__atomic_compare_exchange_n(&j->next, &i, i + 1, 0,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			eb_job_item(j, i, 0);
			i = __atomic_load_n(&j->next, __ATOMIC_ACQUIRE);
		}
}

/* Runs on each AP, with the firmware's stack (32 KiB in OVMF; inflate
 * needs ~13 KiB). XCR0 and CR4 are per processor: an AP that lacks a
 * vector extension the boot processor's choice of code paths relies on
 * stays out rather than fault. */
static VOID EFIAPI eb_ap_main(VOID *arg)
{
	struct eb_pool *p = arg;
	struct eb_job *seen = LK_NULL, *j;

	if ((lk_cpu_probe() & p->features) != p->features)
		return;
	for (;;) {
		while ((j = __atomic_load_n(&p->posted, __ATOMIC_ACQUIRE)) ==
		       seen)
			__builtin_ia32_pause();
		if (j == &p->quit)
			return;
		eb_job_run(j, 1);
		seen = j;
	}
}

/* Number of enabled APs and the protocol, or 0. */
static UINTN eb_mp_aps(struct eb_state *s, struct eb_mp_services **mp)
{
	UINTN count = 0, enabled = 0;

	*mp = LK_NULL;
	if (s->st->BootServices->LocateProtocol(&eb_mp_guid, LK_NULL,
						(VOID **)mp) != EFI_SUCCESS ||
	    !*mp)
		return 0;
	if ((*mp)->get_number_of_processors(*mp, &count, &enabled) !=
		    EFI_SUCCESS ||
	    enabled < 2)
		return 0;
	return enabled - 1;
}

/* Starts the APs on eb_ap_main, once per boot; returns how many there
 * are (0: this processor works alone). */
static UINTN eb_pool_start(struct eb_state *s, const char *what)
{
	struct eb_pool *p = &eb_pool;
	struct eb_mp_services *mp;
	EFI_EVENT ev = LK_NULL;
	EFI_STATUS st;
	UINTN aps;

	if (p->started)
		return s->mp_event && p->posted != &p->quit ? p->aps : 0;
	p->started = 1;
	if (!(aps = eb_mp_aps(s, &mp)))
		return 0;
	p->features = lk_cpu_features();
	p->posted = LK_NULL;
	if (s->st->BootServices->CreateEvent(0, 0, LK_NULL, LK_NULL, &ev) !=
	    EFI_SUCCESS)
		return 0;
	st = mp->startup_all_aps(mp, eb_ap_main, 0, ev, EB_AP_TIMEOUT_US, p,
				 LK_NULL);
	if (st != EFI_SUCCESS) {
		s->st->BootServices->CloseEvent(ev);
		if (s->boot.cfg.verbose >= 1)
			eb_print(s,
				 "%s: application processors not started: %s",
				 what, eb_status_str(st));
		return 0;
	}
	s->mp_event = ev;
	p->aps = aps;
	return aps;
}

static void eb_pool_quit(void)
{
	__atomic_store_n(&eb_pool.posted, &eb_pool.quit, __ATOMIC_RELEASE);
}

/* Items [0, n) not yet finished. */
static int eb_job_pending(struct eb_job *j, lk_u32 n)
{
	if (n == j->n)
		return __atomic_load_n(&j->done, __ATOMIC_ACQUIRE) < n;
	for (lk_u32 i = 0; i < n; i++)
		if (__atomic_load_n(&j->state[i], __ATOMIC_ACQUIRE) ==
		    EB_ITEM_PENDING)
			return 1;
	return 0;
}

/* Spins until items [0, n) are finished or the firmware reports the APs
 * done (returned or stopped by the timeout): the items still pending
 * then are redone here. */
static void eb_job_wait_first(struct eb_state *s, struct eb_job *j, lk_u32 n)
{
	lk_u32 spins = 0, i;

	while (!s->mp_event_done && eb_job_pending(j, n)) {
		__builtin_ia32_pause();
		if (++spins % 4096 == 0 &&
		    s->st->BootServices->CheckEvent(s->mp_event) ==
			    EFI_SUCCESS) {
			s->mp_event_done = 1;
			break;
		}
	}
	for (i = 0; i < n; i++)
		if (__atomic_load_n(&j->state[i], __ATOMIC_ACQUIRE) ==
		    EB_ITEM_PENDING)
			eb_job_item(j, i, 0);
}

static void eb_job_wait(struct eb_state *s, struct eb_job *j)
{
	eb_job_wait_first(s, j, j->n);
}

/* Posts j (whose fields the caller set) to the APs; the caller then
 * works on it too (eb_job_run) and waits (eb_job_wait). */
static void eb_job_post(struct eb_job *j, lk_u32 n,
			int (*run)(struct eb_job *, lk_u32))
{
	j->run = run;
	j->n = n;
	j->next = j->done = j->by_aps = 0;
	lk_memset(j->state, EB_ITEM_PENDING, sizeof(j->state));
	__atomic_store_n(&eb_pool.posted, j, __ATOMIC_RELEASE);
}

static void eb_job_report(struct eb_state *s, const char *what,
			  const struct eb_job *j, const char *items)
{
	lk_boot_mp_report(&s->boot, what, j->n, items,
			  __atomic_load_n(&j->by_aps, __ATOMIC_RELAXED),
			  (lk_u32)eb_pool.aps);
}

/* Item 0 hashes the kit while the others inflate segments: the first
 * processor to come takes it, as it is the longest item (Linux
 * defconfig: 8 ms with SHA-NI, a segment ~9 ms). */
static int eb_inflate_item(struct eb_job *job, lk_u32 i)
{
	struct eb_inflate_job *j = (struct eb_inflate_job *)job;

	if (i == 0) {
		lk_kit_hash(&j->kit, j->sum);
		return 0;
	}
	return lk_kit_inflate_segment(&j->kit, i - 1, j->dst, j->size);
}

/* Segment bad did not inflate: the whole stream again, so a corrupt
 * stream gets the usual error line, and a stream that inflates whole (the
 * index is wrong) gets one line saying why this boot took longer. */
static int eb_inflate_whole(struct eb_state *s, const struct lk_kit *kit,
			    const char *name, void *dst, lk_u64 size,
			    lk_u32 bad)
{
	return lk_kit_inflate_again(&s->boot.host, kit, name, dst, size,
				    lk_inflate_raw, bad);
}

/* The hash (item 0) and the segments of the payload's first
 * lk_link_prefix bytes (the tables) are done. */
static int eb_prefix_in(struct eb_inflate_job *j)
{
	return __atomic_load_n(&j->job.state[0], __ATOMIC_ACQUIRE) ==
		       EB_ITEM_OK &&
	       lk_kit_prefix_ready(&j->kit, j->dst, j->job.state + 1,
				   EB_ITEM_OK);
}

/* The items left, then every item's outcome: a segment that failed gets
 * the stream inflated whole. Also where eb_inflate_kit ends when the
 * items ran out before the tables were in. */
int eb_inflate_rest(struct lk_boot *b)
{
	struct eb_state *s = eb_of(b);
	struct eb_inflate_job *j = &eb_pool.inflate;
	lk_u32 i;

	eb_job_run(&j->job, 0);
	eb_job_wait(s, &j->job);
	eb_job_report(s, "inflate", &j->job,
		      "items (the kit's hash, segments)");
	if (!j->early &&
	    lk_kit_check_hash(&s->boot.host, &j->kit, j->name, j->sum))
		return LK_ERR_HASH;
	j->early = 0;
	for (i = 1; i <= j->kit.nseg; i++)
		if (j->job.state[i] != EB_ITEM_OK)
			return eb_inflate_whole(s, &j->kit, j->name, j->dst,
						j->size, i - 1);
	return LK_OK;
}

/* The kit is from lk_kit_open_unhashed (linkkit/boot/boot.h): hashed
 * here, on whichever processor is free, while the others inflate; the
 * hash is checked before anything else, so a damaged kit is reported as
 * such even when the damage also broke the stream. */
int eb_inflate_kit(struct lk_boot *b, const struct lk_kit *kit,
		   const char *name, void *dst, lk_u64 size)
{
	struct eb_state *s = eb_of(b);
	struct eb_inflate_job *j = &eb_pool.inflate;
	lk_u32 i;

	if (kit->nseg < 2 || !eb_pool_start(s, "inflate"))
		return lk_boot_inflate_here(b, kit, name, dst, size);
	j->kit = *kit;
	j->name = name;
	j->dst = dst;
	j->size = size;
	j->early = 0;
	eb_job_post(&j->job, kit->nseg + 1, eb_inflate_item);
	/* Items until the hash and the tables are in: then the flow parses
	 * and lays out here while the APs inflate the contents (the items
	 * left to this processor wait for eb_inflate_rest). */
	while (!eb_prefix_in(j))
		if ((i = __atomic_fetch_add(&j->job.next, 1, __ATOMIC_ACQ_REL)) <
		    j->job.n)
			eb_job_item(&j->job, i, 0);
		else
			return eb_inflate_rest(b);
	if (lk_kit_check_hash(&s->boot.host, kit, name, j->sum)) {
		eb_job_wait(s, &j->job); /* the APs still write the payload */
		return LK_ERR_HASH;
	}
	j->early = 1;
	return LK_BOOT_INFLATE_EARLY;
}

/* A part's relocation errors are not an AP's to print: counted, and
 * lk_link_write_end prints them. */
static int eb_write_part(struct eb_job *job, lk_u32 k)
{
	struct eb_write_job *j = (struct eb_write_job *)job;

	__atomic_fetch_add(&j->nerr,
			   lk_link_write_part(j->L, j->dst, &j->ws, k),
			   __ATOMIC_RELAXED);
	return 0;
}

/* Parts per processor: small enough that one slow processor does not
 * hold the rest up. */
#define EB_PARTS_PER_CPU 16

int eb_write_image(struct lk_boot *b, struct lk_link *L, void *dst,
		   struct lk_rng *rng)
{
	struct eb_state *s = eb_of(b);
	struct eb_write_job *j = &eb_pool.write;
	UINTN aps = eb_pool_start(s, "write");
	lk_u64 n = EB_PARTS_PER_CPU * ((lk_u64)aps + 1);
	int rc;

	if (!aps)
		return lk_link_write(L, dst, rng);
	j->L = L;
	j->dst = dst;
	j->nerr = 0;
	if (lk_link_write_begin(
		    L, n < LK_WRITE_MAX_PARTS ? (lk_u32)n : LK_WRITE_MAX_PARTS,
		    &j->ws)) {
		eb_pool_quit();
		return LK_ERR_LINK;
	}
	eb_job_post(&j->job, j->ws.nparts, eb_write_part);
	/* The APs start on the parts while this processor writes the rest;
	 * once the sorted tables' parts are in, it sorts them while the APs
	 * go on with the others. */
	lk_link_write_sections(L, dst, rng, &j->ws);
	if (j->ws.nfirst) {
		eb_job_run_below(&j->job, j->ws.nfirst);
		eb_job_wait_first(s, &j->job, j->ws.nfirst);
		lk_link_write_sort(L, dst, &j->ws);
	}
	eb_job_run(&j->job, 0);
	eb_job_wait(s, &j->job);
	/* No more work for the APs: back to the firmware. */
	eb_pool_quit();
	rc = lk_link_write_end(L, dst, &j->ws, j->nerr);
	eb_job_report(s, "write", &j->job, "parts");
	return rc;
}

/* The firmware signals the event from a timer once it has seen every AP
 * back: wait for that (briefly) so the MP library is idle when
 * ExitBootServices moves the APs to their final loop, and so the event
 * is closed only once nothing will signal it. */
void eb_mp_settle(struct eb_state *s)
{
	int ms;

	if (!s->mp_event)
		return;
	eb_pool_quit();
	for (ms = 0; !s->mp_event_done && ms < 200; ms++) {
		if (s->st->BootServices->CheckEvent(s->mp_event) == EFI_SUCCESS)
			s->mp_event_done = 1;
		else
			s->st->BootServices->Stall(1000);
	}
	if (s->mp_event_done) {
		s->st->BootServices->CloseEvent(s->mp_event);
		/* What the jobs pointed at (the link, the image) goes. */
		lk_memset(&eb_pool.inflate, 0, sizeof(eb_pool.inflate));
		lk_memset(&eb_pool.write, 0, sizeof(eb_pool.write));
	}
	s->mp_event = LK_NULL;
}
