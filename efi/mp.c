/*
 * The application processors inflate a segmented kit (LK_KIT_F_SEGMENTS)
 * alongside the boot processor (issue 16): the firmware's MP Services
 * protocol (UEFI PI spec, vol. 2, "MP Services Protocol") starts them in
 * non-blocking mode, every processor then takes the next segment from one
 * shared counter, and the boot processor waits on that counter, not on
 * the firmware's event (which edk2 signals only from a periodic timer).
 *
 * Everything that can go wrong ends in the one-processor path the BIOS
 * stage takes: no protocol, a single processor, a non-blocking request
 * refused, an AP whose CPU state differs from the boot processor's, an AP
 * killed by the timeout (its segment is redone here), a segment that does
 * not inflate (the whole stream is then inflated here, so the error line
 * is the usual one).
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
 * takes ~5 ms. Past this the firmware stops the APs and the boot
 * processor redoes what they left. */
#define EB_AP_TIMEOUT_US 60000000u

enum { EB_SEG_PENDING, EB_SEG_OK, EB_SEG_BAD };

/* Static, not on the stack: an AP still reads `next` and `kit` once after
 * its last segment, when the boot processor may have moved on. */
struct eb_inflate_job {
	struct lk_kit kit;
	lk_u8 *dst;
	lk_u64 size;
	lk_u32 features; /* the boot processor's lk_cpu_features() */
	lk_u32 next;	 /* next segment to take (atomic) */
	lk_u32 done;	 /* segments finished, well or not (atomic) */
	lk_u32 by_aps;	 /* of them, by application processors (atomic) */
	lk_u8 state[LK_KIT_MAX_SEGMENTS];
	lk_u32 adler[LK_KIT_MAX_SEGMENTS];
};
static struct eb_inflate_job eb_job;

static void eb_job_segment(struct eb_inflate_job *j, lk_u32 i, int ap)
{
	int rc = lk_kit_inflate_segment(&j->kit, i, j->dst, j->size,
					&j->adler[i]);

	__atomic_store_n(&j->state[i], rc ? EB_SEG_BAD : EB_SEG_OK,
			 __ATOMIC_RELEASE);
	if (ap)
		__atomic_fetch_add(&j->by_aps, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&j->done, 1, __ATOMIC_RELEASE);
}

static void eb_job_run(struct eb_inflate_job *j, int ap)
{
	lk_u32 i;

	while ((i = __atomic_fetch_add(&j->next, 1, __ATOMIC_ACQ_REL)) <
	       j->kit.nseg)
		eb_job_segment(j, i, ap);
}

/* Runs on each AP, with the firmware's stack (32 KiB in OVMF; inflate
 * needs ~13 KiB). XCR0 and CR4 are per processor: an AP that lacks a
 * vector extension the boot processor's choice of code paths relies on
 * stays out rather than fault. */
static VOID EFIAPI eb_ap_inflate(VOID *arg)
{
	struct eb_inflate_job *j = arg;

	if ((lk_cpu_probe() & j->features) != j->features)
		return;
	eb_job_run(j, 1);
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

/* Spins until every segment is finished or the firmware reports the APs
 * done (returned or stopped by the timeout). */
static void eb_job_wait(struct eb_state *s, struct eb_inflate_job *j,
			EFI_EVENT ev)
{
	lk_u32 spins = 0;

	while (__atomic_load_n(&j->done, __ATOMIC_ACQUIRE) < j->kit.nseg) {
		__builtin_ia32_pause();
		if (++spins % 4096 == 0 &&
		    s->st->BootServices->CheckEvent(ev) == EFI_SUCCESS) {
			s->mp_event_done = 1;
			break;
		}
	}
}

static int eb_job_finish(struct eb_state *s, struct eb_inflate_job *j,
			 const char *name)
{
	lk_u32 i;

	for (i = 0; i < j->kit.nseg; i++)
		if (__atomic_load_n(&j->state[i], __ATOMIC_ACQUIRE) ==
		    EB_SEG_PENDING)
			eb_job_segment(j, i, 0);
	for (i = 0; i < j->kit.nseg; i++)
		if (j->state[i] != EB_SEG_OK)
			return lk_kit_inflate(&s->host, &j->kit, name, j->dst,
					      j->size);
	return lk_kit_inflate_check(&s->host, &j->kit, name, j->adler);
}

int eb_inflate_kit(struct eb_state *s, const struct lk_kit *kit,
		   const char *name, void *dst, lk_u64 size)
{
	struct eb_inflate_job *j = &eb_job;
	struct eb_mp_services *mp;
	EFI_EVENT ev = LK_NULL;
	EFI_STATUS st;
	UINTN aps;
	int rc;

	if (kit->nseg < 2 || !(aps = eb_mp_aps(s, &mp)))
		return lk_kit_inflate(&s->host, kit, name, dst, size);
	lk_memset(j, 0, sizeof(*j));
	j->kit = *kit;
	j->dst = dst;
	j->size = size;
	j->features = lk_cpu_features();
	if (s->st->BootServices->CreateEvent(0, 0, LK_NULL, LK_NULL, &ev) !=
	    EFI_SUCCESS)
		return lk_kit_inflate(&s->host, kit, name, dst, size);
	st = mp->startup_all_aps(mp, eb_ap_inflate, 0, ev, EB_AP_TIMEOUT_US, j,
				 LK_NULL);
	if (st != EFI_SUCCESS) {
		s->st->BootServices->CloseEvent(ev);
		if (s->cfg.verbose >= 1)
			eb_print(s,
				 "inflate: application processors not "
				 "started: %s",
				 eb_status_str(st));
		return lk_kit_inflate(&s->host, kit, name, dst, size);
	}
	s->mp_event = ev;
	eb_job_run(j, 0);
	eb_job_wait(s, j, ev);
	rc = eb_job_finish(s, j, name);
	if (s->cfg.verbose >= 1)
		eb_print(s,
			 "inflate: %u segments, %u of them by %llu "
			 "application processor%s",
			 kit->nseg,
			 __atomic_load_n(&j->by_aps, __ATOMIC_RELAXED),
			 (unsigned long long)aps, aps == 1 ? "" : "s");
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
	for (ms = 0; !s->mp_event_done && ms < 200; ms++) {
		if (s->st->BootServices->CheckEvent(s->mp_event) == EFI_SUCCESS)
			s->mp_event_done = 1;
		else
			s->st->BootServices->Stall(1000);
	}
	if (s->mp_event_done) {
		s->st->BootServices->CloseEvent(s->mp_event);
		lk_memset(&eb_job, 0, sizeof(eb_job));
	}
	s->mp_event = LK_NULL;
}
