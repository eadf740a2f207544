/*
 * The application processors of the BIOS stage. Sent INIT early (so the
 * STARTUP IPI needs no wait later), they are started when a segmented
 * kit is to be inflated and share its items with the boot processor in
 * long mode (stand/lm64.c), as the UEFI stage's processors share them
 * through MP Services (efi/mp.c); an INIT IPI stops them again as soon as
 * the payload is in, before anything frees their code or stacks. Without
 * a MADT listing more than one processor, an xAPIC (x2APIC mode, no APIC)
 * or long mode, the boot processor does it all, as before.
 */
#include "bios.h"
#include "lm64.h"
#include "stand.h"

#define AP_TRAMP 0x1000u /* the STARTUP vector's page: 0x1000 >> 12 */
#define AP_STACK 0x4000u /* per processor (stand/start.S) */
#define AP_MAX 15u	 /* more processors halt in the trampoline */
#define APIC_ICR_LO (0x300 / 4)
#define APIC_ICR_HI (0x310 / 4)
#define ICR_OTHERS 0xc0000u   /* shorthand: all excluding self */
#define ICR_INIT 0x4500u      /* INIT, level assert */
#define ICR_STARTUP 0x4600u   /* STARTUP, vector in bits 0-7 */
#define ICR_PENDING 0x1000u

extern const lk_u8 ap_trampoline[], ap_trampoline_end[];
extern lk_u32 ap_index, ap_max, ap_stacks, ap_cr3, ap_xcr0, ap_entry, ap_arg;

static volatile lk_u32 *mp_apic; /* the xAPIC's registers; 0: no MP */
static lk_u32 mp_aps;		 /* application processors (the MADT's) */
static struct lm64_mp mp_job;
static struct lm64_call mp_ap_call;

static void mp_ipi(lk_u32 icr)
{
	lk_u32 n;

	mp_apic[APIC_ICR_HI] = 0;
	mp_apic[APIC_ICR_LO] = icr;
	for (n = 0; (mp_apic[APIC_ICR_LO] & ICR_PENDING) && n < 1000000; n++)
		__builtin_ia32_pause();
}

/* The xAPIC's base from IA32_APIC_BASE, or 0: no APIC (CPUID.1 EDX bit
 * 9), disabled, in x2APIC mode (no MMIO), or above 4 GiB. */
static volatile lk_u32 *mp_find_apic(void)
{
	lk_u32 a = 1, b, c, d, lo, hi;

	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "=c"(c), "=d"(d));
	if (!(d & (1u << 9)))
		return LK_NULL;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(0x1b));
	if (hi || !(lo & (1u << 11)) || (lo & (1u << 10)))
		return LK_NULL;
	return (volatile lk_u32 *)(lk_uptr)(lo & 0xfffff000u);
}

void stand_mp_init(void)
{
	lk_u32 cpus;

	if (!stand_lm64_usable() || (cpus = acpi_count_cpus()) < 2)
		return;
	mp_apic = mp_find_apic();
	if (!mp_apic)
		return;
	mp_aps = cpus - 1 < AP_MAX ? cpus - 1 : AP_MAX;
	mp_ipi(ICR_OTHERS | ICR_INIT);
}

/* STARTUP twice, as the MP specification has it; a processor already
 * running ignores the second. */
static void mp_start(struct lk_boot *b, void *stacks)
{
	lk_memcpy((void *)(lk_uptr)AP_TRAMP, ap_trampoline,
		  (lk_size)(ap_trampoline_end - ap_trampoline));
	ap_index = 0;
	ap_max = AP_MAX;
	ap_stacks = (lk_u32)(lk_uptr)stacks;
	stand_lm64_ap_setup(&ap_cr3, &ap_xcr0, &ap_entry);
	mp_ap_call.op = LM64_AP;
	mp_ap_call.src = (lk_uptr)&mp_job;
	ap_arg = (lk_u32)(lk_uptr)&mp_ap_call;
	mp_ipi(ICR_OTHERS | ICR_STARTUP | (AP_TRAMP >> 12));
	stand_delay_us(b, 200);
	mp_ipi(ICR_OTHERS | ICR_STARTUP | (AP_TRAMP >> 12));
}

/* INIT: every application processor waits for a STARTUP again, as the
 * kernel expects them; then their stacks and code go. Twice, 1 ms apart:
 * a processor that had not yet taken its STARTUP when the first came
 * may take it after (QEMU orders them so), and the second stops it. */
static void mp_stop(struct lk_boot *b, struct stand *s, void *stacks)
{
	mp_ipi(ICR_OTHERS | ICR_INIT);
	stand_delay_us(b, 1000);
	mp_ipi(ICR_OTHERS | ICR_INIT);
	heap_free(&s->heap, stacks, AP_MAX * AP_STACK);
	lk_wipe((void *)(lk_uptr)AP_TRAMP,
		(lk_size)(ap_trampoline_end - ap_trampoline));
}

static void mp_post(const struct lk_kit *kit, void *dst)
{
	struct lm64_kit *k = &mp_job.kit;

	lk_memset(&mp_job, 0, sizeof(mp_job));
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
	mp_job.want = mp_aps;
}

/*
 * The kit's hash and segments on every processor; -1 when this cannot
 * share them (one segment, no APIC, no memory for the stacks): then the
 * caller does it all. Otherwise an LK_ERR_* code, the hash checked first;
 * a segment that failed gets the stream inflated whole (by inflate).
 */
int stand_mp_inflate(struct lk_boot *b, const struct lk_kit *kit,
		     const char *name, void *dst, lk_u64 size,
		     lk_inflate_fn *inflate)
{
	struct stand *s = stand_of(b);
	struct lm64_call c = { 0 };
	void *stacks;
	lk_u32 i, aps, by_ap;

	if (!mp_apic || kit->nseg < 2 || kit->nseg + 1 > LM64_MP_ITEMS ||
	    !(stacks = heap_alloc(&s->heap, AP_MAX * AP_STACK)))
		return -1;
	mp_post(kit, dst);
	mp_start(b, stacks);
	c.op = LM64_MP;
	c.src = (lk_uptr)&mp_job;
	stand_lm64_run(&c);
	/* Counted before the INIT: one that restarts in between (mp_stop)
	 * arrives twice. */
	aps = __atomic_load_n(&mp_job.aps, __ATOMIC_ACQUIRE);
	by_ap = mp_job.by_ap;
	mp_stop(b, s, stacks);
	if (b->cfg.verbose >= 1 && aps)
		lk_boot_print(b, "inflate: %u items (the kit's hash, segments), "
				 "%u of them by %u application processor%s",
			      mp_job.n, by_ap, aps, aps == 1 ? "" : "s");
	if (lk_kit_check_hash(&b->host, kit, name, mp_job.sum))
		return LK_ERR_HASH;
	for (i = 1; i < mp_job.n; i++)
		if (mp_job.state[i] != 1) {
			int rc = lk_kit_inflate_with(&b->host, kit, name, dst,
						     size, inflate);
			if (rc == LK_OK)
				lk_log(&b->host, LK_LOG_WARN,
				       "%s: segment %u does not match the "
				       "stream: inflated it whole (slower)",
				       name, i - 1);
			return rc;
		}
	return LK_OK;
}
