/*
 * Seeds the layout generator. Every source that is present is hashed in;
 * a missing one costs a warning (once per boot), never the boot, because
 * TSC jitter is always there as a last resort. b->good_seed records
 * whether a source OpenBSD's loader would trust served (firmware RNG,
 * RDSEED/RDRAND, a seed file), never TSC jitter alone. debug_seed
 * replaces all of this for the layout (INSECURE); the seed files still
 * reach the kernel's random data (lk_boot_seed_data).
 */
#include "boot.h"
#include "../cpu.h"

#define LK_SEED_BYTES 64

#define LK_WARN_FW 1u
#define LK_WARN_RDSEED 2u
#define LK_WARN_RDRAND 4u
#define LK_WARN_NOFILE 8u
#define LK_WARN_DEBUG 16u

static void lk_warn_once(struct lk_boot *b, lk_u32 bit, const char *msg)
{
	if (!(b->warned & bit))
		lk_boot_print(b, "%s", msg);
	b->warned |= bit;
}

/* One source: its bytes are hashed in whatever it gave; it counts as a
 * trusted source only when it gave them all. */
static int lk_seed_source(struct lk_boot *b, struct lk_sha256 *h,
			  lk_size (*get)(struct lk_boot *, int, void *, lk_size),
			  int arg)
{
	lk_u8 buf[LK_SEED_BYTES];
	lk_size got = get(b, arg, buf, sizeof(buf));

	if (got > sizeof(buf))
		got = 0;
	lk_sha256_update(h, buf, got);
	lk_wipe(buf, sizeof(buf));
	return got == sizeof(buf);
}

static lk_size lk_get_fw(struct lk_boot *b, int arg, void *buf, lk_size len)
{
	(void)arg;
	return b->ops->firmware_rng(b, buf, len);
}

static lk_size lk_get_cpu(struct lk_boot *b, int seed, void *buf, lk_size len)
{
	(void)b;
	return lk_cpu_random(seed, buf, len);
}

static int lk_seed_file(struct lk_boot *b, struct lk_sha256 *h)
{
	char saved[LK_BOOT_REASON_MAX];
	void *data = LK_NULL;
	lk_u64 size = 0;
	int rc, capture = b->capture;

	if (!b->cfg.seed_file[0])
		return 0;
	/* The read error goes on the warning line, not the reason. */
	lk_memcpy(saved, b->reason, sizeof(saved));
	b->reason[0] = 0;
	b->capture = 1;
	rc = b->ops->read_file(b, b->cfg.seed_file, 1, &data, &size);
	b->capture = capture;
	if (rc)
		lk_boot_print(b, "warning: seed_file unusable: %s", b->reason);
	lk_memcpy(b->reason, saved, sizeof(saved));
	if (rc)
		return 0;
	lk_sha256_update(h, data, (lk_size)size);
	b->ops->free_big(b, data, size);
	return 1;
}

/*
 * OpenBSD's /etc/random.seed on the root, as boot(8) takes it (its first
 * BOOTRANDOM_MAX bytes). boot(8) then sets the file's sticky bit to mark
 * it used; this stage never writes, so a seed whose sticky bit is set
 * (used by another loader, not yet rewritten by /etc/rc) is mixed in but
 * not counted as a trusted source.
 */
#define LK_BOOTRANDOM_MAX 256u

static int lk_seed_root(struct lk_boot *b, struct lk_sha256 *h)
{
	struct lk_file f;
	lk_u8 buf[LK_BOOTRANDOM_MAX];
	lk_u64 n;
	int rc;

	if (lk_boot_root_stat(b, "/etc/random.seed", &f) ||
	    (f.mode & LK_S_IFMT) != LK_S_IFREG || f.size == 0)
		return 0;
	n = f.size < sizeof(buf) ? f.size : sizeof(buf);
	rc = b->root.fs.ops->read(&b->root.fs, "/etc/random.seed", &f, 0, buf,
				  n);
	if (rc == 0)
		lk_sha256_update(h, buf, (lk_size)n);
	lk_wipe(buf, sizeof(buf));
	return rc == 0 && !(f.mode & LK_S_ISVTX);
}

/*
 * TSC jitter: the low bits of the time a memory-touching loop takes vary
 * with caches, interrupts and emulation; weak alone, but always present.
 */
static void lk_tsc_jitter(struct lk_sha256 *h)
{
	volatile lk_u32 scratch[64];
	lk_u64 t, d, prev = lk_cpu_rdtsc();
	int i, j;

	for (i = 0; i < 512; i++) {
		for (j = 0; j < (int)(prev & 31) + 1; j++)
			scratch[(j * 7 + i) & 63] += (lk_u32)prev;
		t = lk_cpu_rdtsc();
		d = t - prev;
		lk_sha256_update(h, &d, sizeof(d));
		prev = t;
	}
}

static void lk_seed_debug(struct lk_boot *b, struct lk_rng *rng)
{
	lk_warn_once(b, LK_WARN_DEBUG,
		     "INSECURE: debug_seed is set: the layout is fixed and "
		     "known; never use this in production");
	lk_rng_init(rng, b->cfg.debug_seed, b->cfg.debug_seed_len);
	b->good_seed = 0;
}

/*
 * Under debug_seed the layout is fixed, yet the kernel's random data
 * (stack guards, its own generator's seed) must not be: the seed files
 * are mixed into the generator once the layout is drawn, so only the
 * random-fill bytes depend on them. Without debug_seed they are already
 * in the seed.
 */
void lk_boot_seed_data(struct lk_boot *b, struct lk_rng *rng)
{
	struct lk_sha256 h;
	lk_u8 digest[32];
	int good = 0;

	if (!b->cfg.debug_seed_len || b->seeded_data)
		return;
	b->seeded_data = 1;
	lk_sha256_init(&h);
	good |= lk_seed_root(b, &h);
	good |= lk_seed_file(b, &h);
	lk_sha256_final(&h, digest);
	/* Nothing served: the generator stays the debug seed's alone. */
	if (good)
		lk_rng_mix(rng, digest, sizeof(digest));
	lk_wipe(digest, sizeof(digest));
	lk_wipe(&h, sizeof(h));
	b->good_seed = good;
}

void lk_boot_seed(struct lk_boot *b, struct lk_rng *rng)
{
	char msg[80];
	struct lk_sha256 h;
	lk_u8 digest[32];
	lk_u64 t0 = lk_cpu_rdtsc();
	int good = 0;

	b->seeded_data = 0;
	if (b->cfg.debug_seed_len) {
		lk_seed_debug(b, rng);
		return;
	}
	lk_sha256_init(&h);
	lk_sha256_update(&h, &t0, sizeof(t0));
	if (b->ops->firmware_rng) {
		if (lk_seed_source(b, &h, lk_get_fw, 0))
			good = 1;
		else {
			lk_snprintf(msg, sizeof(msg), "warning: no %s entropy",
				    b->ops->fw_rng_name);
			lk_warn_once(b, LK_WARN_FW, msg);
		}
	}
	if (lk_seed_source(b, &h, lk_get_cpu, 1))
		good = 1;
	else
		lk_warn_once(b, LK_WARN_RDSEED, "warning: no RDSEED entropy");
	if (lk_seed_source(b, &h, lk_get_cpu, 0))
		good = 1;
	else
		lk_warn_once(b, LK_WARN_RDRAND, "warning: no RDRAND entropy");
	if (lk_seed_root(b, &h))
		good = 1;
	if (lk_seed_file(b, &h))
		good = 1;
	else if (!b->cfg.seed_file[0] && b->cfg.verbose)
		lk_warn_once(b, LK_WARN_NOFILE, "no seed_file configured");
	lk_tsc_jitter(&h);
	lk_sha256_final(&h, digest);
	lk_rng_init(rng, digest, sizeof(digest));
	lk_wipe(digest, sizeof(digest));
	lk_wipe(&h, sizeof(h));
	b->good_seed = good;
}
