/*
 * The application processors of the BIOS stage. Sent INIT early (so the
 * STARTUP IPI needs no wait later), they are started for a kit in
 * segments and wait in stand_ap_main for jobs, as the UEFI stage's
 * processors take them from MP Services (efi/mp.c): the kit's hash and
 * segments (in long mode, stand/lm64.c), then parts of the image
 * (lk_link_write_part, i386). INIT IPIs stop them again once the image is
 * written, or on any way out before (release, enter), before anything
 * frees their code or stacks. Every IPI goes to one processor the MADT
 * lists as enabled, by its APIC ID, as kernels start them: a broadcast
 * would also wake processors the firmware disabled. Without a MADT
 * listing more than one processor, an xAPIC (x2APIC mode, no APIC) or
 * long mode, the boot processor does it all, as before.
 */
#include "bios.h"
#include "lm64.h"
#include "stand.h"

#define AP_TRAMP 0x1000u /* the STARTUP vector's page: 0x1000 >> 12 */
#define AP_STACK 0x8000u /* per processor (stand/start.S); inflate ~14 KiB */
#define AP_MAX 15u	 /* more processors are left waiting for INIT */
#define APIC_ID (0x20 / 4)
#define APIC_ICR_LO (0x300 / 4)
#define APIC_ICR_HI (0x310 / 4)
#define ICR_INIT 0x4500u    /* INIT, level assert */
#define ICR_STARTUP 0x4600u /* STARTUP, vector in bits 0-7 */
#define ICR_PENDING 0x1000u
#define PARTS_PER_CPU 16 /* as efi/mp.c: one slow processor holds up little */
/* A processor that took an item and stopped (a machine check, firmware
 * that took it away) must not hang the boot: after 2^35 TSC ticks (11 s
 * at 3 GHz; an item takes milliseconds, about a second under QEMU's TCG)
 * in which none finished, the boot processor stops them all and redoes
 * what they left. The fault-injection builds (STAND_FAULT_AP_STALL, for
 * test-boot.sh) wait 2^31. */
#ifdef STAND_FAULT_AP_STALL
#define MP_STALL_SHIFT 31
#else
#define MP_STALL_SHIFT 35
#endif

enum { MP_NONE, MP_INFLATE, MP_WRITE };

extern const lk_u8 ap_trampoline[], ap_trampoline_end[];
extern lk_u32 ap_index, ap_max, ap_stacks;

/* The image's parts, taken by every processor (efi/mp.c's write job). */
struct mp_write {
	const struct lk_link *L;
	void *dst;
	struct lk_write_split ws;
	lk_u32 next, nerr, by_ap, ndone;
	int stopped; /* the APs were stopped mid-write: no more waiting */
	lk_u8 done[LK_WRITE_MAX_PARTS];
};

static struct {
	volatile lk_u32 *apic; /* the xAPIC's registers; 0: no MP */
	lk_u32 aps;	       /* application processors we start */
	lk_u8 ids[AP_MAX];     /* their APIC IDs (the MADT's) */
	void *stacks;	       /* mp.aps stacks, from stand_mp_init on */
	int running;	       /* started, not stopped yet */
	lk_u32 gen, kind;      /* the posted job */
} mp;
static struct lm64_mp mp_job;
static struct mp_write mp_wr;

/* icr to each application processor, physical destination mode; 0
 * when one of them stayed pending. */
static int mp_ipi(lk_u32 icr)
{
	lk_u32 i, n;
	int ok = 1;

	for (i = 0; i < mp.aps; i++) {
		mp.apic[APIC_ICR_HI] = (lk_u32)mp.ids[i] << 24;
		mp.apic[APIC_ICR_LO] = icr;
		for (n = 0; (mp.apic[APIC_ICR_LO] & ICR_PENDING) && n < 1000000;
		     n++)
			__builtin_ia32_pause();
		ok &= n < 1000000;
	}
	return ok;
}

/* The xAPIC's base from IA32_APIC_BASE, or 0: no APIC (CPUID.1 EDX bit
 * 9), disabled, in x2APIC mode (no MMIO), or above 4 GiB. */
static volatile lk_u32 *mp_find_apic(void)
{
	lk_u32 r[4], lo, hi;

	lk_cpuid(1, 0, r);
	if (!(r[3] & (1u << 9)))
		return LK_NULL;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(0x1b));
	if (hi || !(lo & (1u << 11)) || (lo & (1u << 10)))
		return LK_NULL;
	return (volatile lk_u32 *)(lk_uptr)(lo & 0xfffff000u);
}

/* The MADT's processors but this one, up to AP_MAX, into mp.ids. */
static lk_u32 mp_find_aps(void)
{
	lk_u8 ids[AP_MAX + 1];
	lk_u32 self = mp.apic[APIC_ID] >> 24, n = acpi_cpu_ids(ids, AP_MAX + 1);
	lk_u32 i, aps = 0;

	for (i = 0; i < n && aps < AP_MAX; i++)
		if (ids[i] != self)
			mp.ids[aps++] = ids[i];
	return aps;
}

void stand_mp_init(struct stand *s)
{
	if (!stand_lm64_usable())
		return;
	mp.apic = mp_find_apic();
	if (mp.apic)
		mp.aps = mp_find_aps();
	if (!mp.aps) {
		mp.apic = LK_NULL;
		return;
	}
	/* Now, below everything a relink allocates: freeing them later
	 * would leave a hole the heap cannot take back. */
	mp.stacks = heap_alloc(&s->heap, mp.aps * AP_STACK);
	if (!mp.stacks) {
		mp.apic = LK_NULL;
		mp.aps = 0;
		return;
	}
	mp_ipi(ICR_INIT);
}

/* Parts below limit, in order (efi/mp.c's eb_job_run_below). */
static void mp_write_parts(lk_u32 limit, int ap)
{
	struct mp_write *w = &mp_wr;
	lk_u32 k = __atomic_load_n(&w->next, __ATOMIC_RELAXED);

	while (k < limit) {
		if (!__atomic_compare_exchange_n(&w->next, &k, k + 1, 0,
						 __ATOMIC_RELAXED,
						 __ATOMIC_RELAXED))
			continue;
		__atomic_fetch_add(&w->nerr,
				   lk_link_write_part(w->L, w->dst, &w->ws, k),
				   __ATOMIC_RELAXED);
		if (ap)
			__atomic_fetch_add(&w->by_ap, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&w->done[k], 1, __ATOMIC_RELEASE);
		__atomic_fetch_add(&w->ndone, 1, __ATOMIC_RELEASE);
		k = __atomic_load_n(&w->next, __ATOMIC_RELAXED);
	}
}

#ifdef STAND_FAULT_AP_STALL
/* Test builds only: the first application processor takes an item of
 * job STAND_FAULT_AP_STALL (1: inflate, 2: write) and never finishes it;
 * the boot processor waits for that before it takes any (mp_fault_wait),
 * so the item is there to take however the two are scheduled. */
static lk_u32 mp_fault_tried;

static void mp_fault_stall(lk_u32 kind)
{
	static lk_u32 taken;
	lk_u32 k;
	int got;

	if (kind != STAND_FAULT_AP_STALL ||
	    __atomic_exchange_n(&taken, 1, __ATOMIC_ACQ_REL))
		return;
	if (kind == MP_INFLATE) {
		while (!__atomic_load_n(&mp_job.gen, __ATOMIC_ACQUIRE))
			__builtin_ia32_pause();
		got = __atomic_fetch_add(&mp_job.next, 1, __ATOMIC_ACQ_REL) <
		      mp_job.n;
	} else {
		k = __atomic_fetch_add(&mp_wr.next, 1, __ATOMIC_ACQ_REL);
		got = k < mp_wr.ws.nparts;
	}
	__atomic_store_n(&mp_fault_tried, 1, __ATOMIC_RELEASE);
	while (got)
		__builtin_ia32_pause();
}

static void mp_fault_wait(lk_u32 kind)
{
	lk_u64 t0 = lk_cpu_rdtsc();

	while (kind == STAND_FAULT_AP_STALL &&
	       !__atomic_load_n(&mp_fault_tried, __ATOMIC_ACQUIRE) &&
	       lk_cpu_rdtsc() - t0 < (1ull << 33))
		__builtin_ia32_pause();
}
#else
static void mp_fault_stall(lk_u32 kind)
{
	(void)kind;
}

static void mp_fault_wait(lk_u32 kind)
{
	(void)kind;
}
#endif

/* An application processor, on its own stack (stand/start.S): counts
 * itself in, then takes each posted job's items until the INIT IPI. */
void stand_ap_main(void)
{
	struct lm64_call c = { 0 };
	lk_u32 seen = 0, g;

	__atomic_fetch_add(&mp_job.aps, 1, __ATOMIC_RELEASE);
	for (;;) {
		while ((g = __atomic_load_n(&mp.gen, __ATOMIC_ACQUIRE)) == seen)
			__builtin_ia32_pause();
		seen = g;
		mp_fault_stall(mp.kind);
		if (mp.kind == MP_INFLATE) {
			c.op = LM64_MP_TAKE;
			c.src = (lk_uptr)&mp_job;
			stand_lm64_run(&c);
		} else if (mp.kind == MP_WRITE) {
			mp_write_parts(mp_wr.ws.nparts, 1);
		}
	}
}

static void mp_post(lk_u32 kind)
{
	mp.kind = kind;
	__atomic_fetch_add(&mp.gen, 1, __ATOMIC_RELEASE);
}

/* STARTUP twice, as the MP specification has it; a processor already
 * running ignores the second. */
static void mp_start(struct lk_boot *b)
{
	lk_memcpy((void *)(lk_uptr)AP_TRAMP, ap_trampoline,
		  (lk_size)(ap_trampoline_end - ap_trampoline));
	ap_index = 0;
	ap_max = mp.aps;
	ap_stacks = (lk_u32)(lk_uptr)mp.stacks;
	mp.running = 1;
	mp_ipi(ICR_STARTUP | (AP_TRAMP >> 12));
	stand_delay_us(b, 200);
	mp_ipi(ICR_STARTUP | (AP_TRAMP >> 12));
}

/* What a processor finds at AP_TRAMP once they are stopped: cli; hlt;
 * jmp back (the handoff stub clears the page with the rest). */
static const lk_u8 mp_parked[] = { 0xfa, 0xf4, 0xeb, 0xfd };

/* INIT twice, 1 ms apart: a processor that had not yet taken its
 * STARTUP when the first came may take it after (QEMU orders them so),
 * and the second stops it. Late arrivals get no stack (ap_max 0). 0 when
 * an INIT was not delivered: a processor may still run. */
static int mp_halt(struct lk_boot *b)
{
	int ok;

	ap_max = 0;
	ok = mp_ipi(ICR_INIT);
	stand_delay_us(b, 1000);
	return mp_ipi(ICR_INIT) && ok;
}

/*
 * INIT: every application processor waits for a STARTUP again, as the
 * kernel expects them; then their stacks (which held parts of the
 * layout) are wiped and the trampoline becomes a halt loop. Once the APs
 * are done with a job.
 */
int stand_mp_stop(struct lk_boot *b)
{
	if (!mp.running)
		return 1;
	mp.running = 0;
	/* One may still run on that code and stack: leave them; the
	 * callers boot the fallback, not this layout. */
	if (!mp_halt(b))
		return 0;
	lk_memset((void *)(lk_uptr)AP_TRAMP, 0,
		  (lk_size)(ap_trampoline_end - ap_trampoline));
	lk_memcpy((void *)(lk_uptr)AP_TRAMP, mp_parked, sizeof(mp_parked));
	lk_wipe(mp.stacks, mp.aps * AP_STACK);
	lk_wipe(&mp_wr, sizeof(mp_wr));
	mp.gen = 0;
	mp.kind = MP_NONE;
	return 1;
}

/* Filled before the first STARTUP: the APs count themselves in it. */
static void mp_inflate_fill(const struct lk_kit *kit, void *dst)
{
	struct lm64_kit *k = &mp_job.kit;

	lk_memset(&mp_job, 0, sizeof(mp_job));
	mp_job.stall_shift = MP_STALL_SHIFT;
	k->zdata = (lk_uptr)kit->zdata;
	k->zsize = kit->zsize;
	k->payload_size = kit->payload_size;
	k->seg = (lk_uptr)kit->seg;
	k->hashed = (lk_uptr)kit->hashed;
	k->hashed_size = kit->hashed_size;
	k->flags = kit->flags;
	k->nseg = kit->nseg;
	mp_job.dst = (lk_uptr)dst;
	mp_job.n = kit->nseg + 1;
	mp_job.want = mp.aps;
}

static int mp_lm64(lk_u32 op)
{
	struct lm64_call c = { 0 };

	c.op = op;
	c.src = (lk_uptr)&mp_job;
	return stand_lm64_run(&c);
}

/* The inflate's rest (ops->inflate_rest, or straight on): the items
 * left, the others' to finish, then each segment's outcome; one that
 * failed gets the stream inflated whole. The APs stay up for the write
 * unless this fails. */
static struct {
	struct lk_kit kit;
	const char *name;
	void *dst;
	lk_u64 size;
	lk_inflate_fn *inflate;
	int hash_checked;
} mp_inf;

int stand_mp_inflate_rest(struct lk_boot *b)
{
	int rc = LK_OK;
	lk_u32 i;

	if (!mp_lm64(LM64_MP_FINISH)) {
		if (!stand_mp_stop(b)) {
			lk_log(&b->host, LK_LOG_ERROR,
			       "%s: an application processor did not finish its "
			       "share of the inflate and did not take INIT",
			       mp_inf.name);
			lk_memset(&mp_inf, 0, sizeof(mp_inf));
			return LK_ERR_UNSUPPORTED;
		}
		lk_log(&b->host, LK_LOG_WARN,
		       "%s: an application processor did not finish its share "
		       "of the inflate: stopped them, redid it here",
		       mp_inf.name);
		mp_lm64(LM64_MP_REDO);
	}
	lk_boot_mp_report(b, "inflate", mp_job.n,
			  "items (the kit's hash, segments)", mp_job.by_ap,
			  __atomic_load_n(&mp_job.aps, __ATOMIC_ACQUIRE));
	if (!mp_inf.hash_checked &&
	    lk_kit_check_hash(&b->host, &mp_inf.kit, mp_inf.name, mp_job.sum))
		rc = LK_ERR_HASH;
	for (i = 1; rc == LK_OK && i < mp_job.n; i++)
		if (mp_job.state[i] != 1) {
			rc = lk_kit_inflate_again(&b->host, &mp_inf.kit,
						  mp_inf.name, mp_inf.dst,
						  mp_inf.size, mp_inf.inflate,
						  i - 1);
			break; /* the stream whole: every segment is in */
		}
	lk_memset(&mp_inf, 0, sizeof(mp_inf));
	if (rc)
		stand_mp_stop(b);
	return rc;
}

/* The hash (item 0) and the segments of the payload's first
 * lk_link_prefix bytes (the tables) are in. */
static int mp_prefix_in(void)
{
	return __atomic_load_n(&mp_job.state[0], __ATOMIC_ACQUIRE) == 1 &&
	       lk_kit_prefix_ready(&mp_inf.kit, mp_inf.dst, mp_job.state + 1, 1);
}

/*
 * The kit's hash and segments on every processor; STAND_MP_NONE when
 * this cannot share them (one segment, no APIC, no memory for the
 * stacks): then the caller does it all. Otherwise, as efi/mp.c: items until the hash and
 * the tables are in, then (hash checked) LK_BOOT_INFLATE_EARLY, the flow
 * parsing and laying out here while the APs inflate the contents (the
 * rest: stand_mp_inflate_rest); or, when the items ran out first, the
 * rest at once.
 */
int stand_mp_inflate(struct lk_boot *b, const struct lk_kit *kit,
		     const char *name, void *dst, lk_u64 size,
		     lk_inflate_fn *inflate)
{
	if (!mp.apic || mp.running || kit->nseg < 2 ||
	    kit->nseg + 1 > LM64_MP_ITEMS)
		return STAND_MP_NONE;
	mp_inflate_fill(kit, dst);
	mp_start(b);
	mp_inf.kit = *kit;
	mp_inf.name = name;
	mp_inf.dst = dst;
	mp_inf.size = size;
	mp_inf.inflate = inflate;
	mp_inf.hash_checked = 0;
	mp_post(MP_INFLATE);
	mp_lm64(LM64_MP_START);
	mp_fault_wait(MP_INFLATE);
	while (!mp_prefix_in())
		if (!mp_lm64(LM64_MP_ONE))
			return stand_mp_inflate_rest(b);
	if (lk_kit_check_hash(&b->host, kit, name, mp_job.sum)) {
		/* The APs still write the payload: wait, within the bound. */
		mp_lm64(LM64_MP_FINISH);
		lk_memset(&mp_inf, 0, sizeof(mp_inf));
		stand_mp_stop(b);
		return LK_ERR_HASH;
	}
	mp_inf.hash_checked = 1;
	return LK_BOOT_INFLATE_EARLY;
}

/* Parts [0, n) until written, or until none was for 2^MP_STALL_SHIFT
 * TSC ticks: then 0. */
static int mp_write_wait(lk_u32 n)
{
	struct mp_write *w = &mp_wr;
	struct lm64_progress p;
	lk_u32 k;

	lm64_progress_begin(&p, __atomic_load_n(&w->ndone, __ATOMIC_ACQUIRE));
	for (k = 0; k < n; k++)
		while (!__atomic_load_n(&w->done[k], __ATOMIC_ACQUIRE)) {
			if (lm64_stalled(&p,
					 __atomic_load_n(&w->ndone, __ATOMIC_ACQUIRE),
					 MP_STALL_SHIFT))
				return 0;
			__builtin_ia32_pause();
		}
	return 1;
}

/* Parts [0, n) written; a processor that took one and stalled is
 * stopped with the others, and what they left is written here. 0 when
 * one did not take the INIT: it may still be writing. */
static int mp_write_settle(struct lk_boot *b, lk_u32 n)
{
	struct mp_write *w = &mp_wr;
	lk_u32 k;

	if (!w->stopped && mp_write_wait(n))
		return 1;
	if (!w->stopped) {
		w->stopped = 1;
		if (!mp_halt(b)) {
			lk_log(&b->host, LK_LOG_ERROR,
			       "write: an application processor did not finish "
			       "its share of the image and did not take INIT");
			return 0;
		}
		lk_log(&b->host, LK_LOG_WARN,
		       "write: an application processor did not finish its "
		       "share of the image: stopped them, wrote it here");
	}
	for (k = 0; k < n; k++)
		if (!w->done[k]) {
			w->nerr += lk_link_write_part(w->L, w->dst, &w->ws, k);
			w->done[k] = 1;
		}
	return 1;
}

/* The stage's write: parts on every processor while this one writes the
 * sections (efi/mp.c's eb_write_image), then the APs are stopped. */
int stand_mp_write(struct lk_boot *b, struct lk_link *L, void *dst,
		   struct lk_rng *rng)
{
	struct mp_write *w = &mp_wr;
	lk_u32 aps = __atomic_load_n(&mp_job.aps, __ATOMIC_ACQUIRE);
	lk_u32 n = PARTS_PER_CPU * (aps + 1);
	int rc;

	if (!mp.running || !aps) {
		stand_mp_stop(b);
		return lk_link_write(L, dst, rng);
	}
	lk_memset(w, 0, sizeof(*w));
	w->L = L;
	w->dst = dst;
	if (lk_link_write_begin(L, n < LK_WRITE_MAX_PARTS ? n : LK_WRITE_MAX_PARTS,
				&w->ws)) {
		stand_mp_stop(b);
		return LK_ERR_LINK;
	}
	mp_post(MP_WRITE);
	mp_fault_wait(MP_WRITE);
	lk_link_write_sections(L, dst, rng, &w->ws);
	if (w->ws.nfirst) {
		mp_write_parts(w->ws.nfirst, 0);
		if (!mp_write_settle(b, w->ws.nfirst))
			goto fail;
		lk_link_write_sort(L, dst, &w->ws);
	}
	mp_write_parts(w->ws.nparts, 0);
	if (!mp_write_settle(b, w->ws.nparts))
		goto fail;
	rc = lk_link_write_end(L, dst, &w->ws, w->nerr);
	lk_boot_mp_report(b, "write", w->ws.nparts, "parts", w->by_ap, aps);
	if (stand_mp_stop(b))
		return rc;
	lk_log(&b->host, LK_LOG_ERROR,
	       "write: an application processor did not take INIT");
	return LK_ERR_UNSUPPORTED;
fail:
	stand_mp_stop(b);
	return LK_ERR_UNSUPPORTED;
}
