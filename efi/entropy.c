/*
 * Seeds the layout generator. Every source that is present is hashed in;
 * a missing one costs a warning, never the boot, because TSC jitter is
 * always there as a last resort. debug_seed replaces all of this (INSECURE).
 */
#include "efiboot.h"

#define EB_RNG_BYTES 64

static void eb_cpuid(lk_u32 leaf, lk_u32 sub, lk_u32 r[4])
{
	__asm__ volatile("cpuid"
			 : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(sub));
}

static int eb_efi_rng(struct eb_state *s, struct lk_sha256 *h)
{
	EFI_GUID guid = EFI_RNG_PROTOCOL_GUID;
	EFI_RNG_PROTOCOL *rng = LK_NULL;
	lk_u8 buf[EB_RNG_BYTES];
	EFI_STATUS st;

	st = s->st->BootServices->LocateProtocol(&guid, LK_NULL,
						 (void **)&rng);
	if (st == EFI_SUCCESS)
		st = rng->GetRNG(rng, LK_NULL, sizeof(buf), buf);
	if (st == EFI_SUCCESS)
		lk_sha256_update(h, buf, sizeof(buf));
	lk_wipe(buf, sizeof(buf));
	return st == EFI_SUCCESS;
}

/* One 64-bit value from RDSEED (seed != 0) or RDRAND, retrying a little:
 * both may transiently run dry. */
static int eb_hw_u64(int seed, lk_u64 *v)
{
	unsigned char ok = 0;
	int i;

	for (i = 0; i < 64 && !ok; i++) {
		if (seed)
			__asm__ volatile("rdseed %0; setc %1"
					 : "=r"(*v), "=qm"(ok));
		else
			__asm__ volatile("rdrand %0; setc %1"
					 : "=r"(*v), "=qm"(ok));
	}
	return ok;
}

static int eb_hw_rng(struct lk_sha256 *h, int seed)
{
	lk_u64 v = 0;
	int i, got = 0;

	for (i = 0; i < EB_RNG_BYTES / 8; i++) {
		if (eb_hw_u64(seed, &v)) {
			lk_sha256_update(h, &v, sizeof(v));
			got++;
		}
	}
	lk_wipe(&v, sizeof(v));
	return got == EB_RNG_BYTES / 8;
}

static int eb_seed_file(struct eb_state *s, struct lk_sha256 *h)
{
	void *data = LK_NULL;
	lk_u64 size = 0;
	EFI_STATUS st;

	if (!s->cfg.seed_file[0])
		return 0;
	if (eb_read_file(s, s->cfg.seed_file, 1, &data, &size, &st)) {
		eb_print(s, "warning: cannot read seed_file %s: %s",
			 s->cfg.seed_file, eb_status_str(st));
		return 0;
	}
	lk_sha256_update(h, data, (lk_size)size);
	lk_wipe(data, (lk_size)size); /* the region stays marked for wiping */
	return 1;
}

/*
 * TSC jitter: the low bits of the time a memory-touching loop takes vary
 * with caches, interrupts and emulation; weak alone, but always present.
 */
static void eb_tsc_jitter(struct lk_sha256 *h)
{
	volatile lk_u32 scratch[64];
	lk_u64 t, prev = eb_rdtsc();
	int i, j;

	for (i = 0; i < 512; i++) {
		for (j = 0; j < (int)(prev & 31) + 1; j++)
			scratch[(j * 7 + i) & 63] += (lk_u32)prev;
		t = eb_rdtsc();
		lk_u64 d = t - prev;
		lk_sha256_update(h, &d, sizeof(d));
		prev = t;
	}
}

static void eb_warn_once(struct eb_state *s, lk_u32 bit, const char *msg)
{
	if (!(s->entropy_warned & bit))
		eb_print(s, "%s", msg);
	s->entropy_warned |= bit;
}

void eb_entropy_seed(struct eb_state *s, struct lk_rng *rng)
{
	struct lk_sha256 h;
	lk_u8 digest[32];
	lk_u32 r1[4], r7[4];
	lk_u64 t0 = eb_rdtsc();

	if (s->cfg.debug_seed_len) {
		eb_warn_once(s, 16, "INSECURE: debug_seed is set: the layout "
				    "is fixed and known; never use this in "
				    "production");
		lk_rng_init(rng, s->cfg.debug_seed, s->cfg.debug_seed_len);
		return;
	}
	lk_sha256_init(&h);
	lk_sha256_update(&h, &t0, sizeof(t0));
	eb_cpuid(1, 0, r1);
	eb_cpuid(0, 0, r7);
	if (r7[0] >= 7)
		eb_cpuid(7, 0, r7);
	else
		r7[1] = 0;
	/* The fallback may seed again: warn once per boot. */
	if (!eb_efi_rng(s, &h))
		eb_warn_once(s, 1, "warning: no EFI_RNG_PROTOCOL entropy");
	if (!((r7[1] >> 18) & 1) || !eb_hw_rng(&h, 1))
		eb_warn_once(s, 2, "warning: no RDSEED entropy");
	if (!((r1[2] >> 30) & 1) || !eb_hw_rng(&h, 0))
		eb_warn_once(s, 4, "warning: no RDRAND entropy");
	if (!eb_seed_file(s, &h) && !s->cfg.seed_file[0] && s->cfg.verbose)
		eb_warn_once(s, 8, "no seed_file configured");
	eb_tsc_jitter(&h);
	lk_sha256_final(&h, digest);
	lk_rng_init(rng, digest, sizeof(digest));
	lk_wipe(digest, sizeof(digest));
	lk_wipe(&h, sizeof(h));
}
