/* Seeds the layout generator from every entropy source the machine has. */
#include "bios.h"
#include "stand.h"

#define CPU_BYTES 32
#define JITTER_SAMPLES 256

static void mix_cpu(struct lk_rng *rng, const char *name, int present,
		    lk_size (*get)(void *, lk_size))
{
	lk_u8 buf[CPU_BYTES];
	lk_size got = 0;

	if (!present) {
		stand_print("warning: no %s on this CPU", name);
		return;
	}
	got = get(buf, sizeof(buf));
	if (got < sizeof(buf))
		stand_print("warning: %s gave %u of %u bytes", name,
			    (unsigned)got, (unsigned)sizeof(buf));
	lk_rng_mix(rng, buf, got);
	lk_wipe(buf, sizeof(buf));
}

static void mix_seed_file(struct stand *s, struct lk_rng *rng)
{
	lk_u32 size = 0;
	void *buf;

	if (!s->cfg.seed_file[0])
		return;
	s->capture = 1;
	buf = stand_read_file(s, s->cfg.seed_file, &size);
	s->capture = 0;
	if (!buf) {
		stand_print("warning: seed_file unusable: %s", s->reason);
		s->reason[0] = 0;
		return;
	}
	lk_rng_mix(rng, buf, size);
	stand_free_file(s, buf, size);
}

/* Low bits of TSC deltas around I/O port reads: weak, but independent of
 * the CPU's generator and free. */
static void mix_jitter(struct lk_rng *rng)
{
	lk_u8 buf[JITTER_SAMPLES];
	lk_u64 prev = cpu_rdtsc(), first = prev;

	for (int i = 0; i < JITTER_SAMPLES; i++) {
		lk_u64 now;
		lk_u8 junk;

		__asm__ volatile("inb $0x80, %0" : "=a"(junk));
		now = cpu_rdtsc();
		buf[i] = (lk_u8)(now - prev) ^ (lk_u8)(now >> 8);
		prev = now;
	}
	if (prev == first)
		stand_print("warning: the TSC does not advance: no timing jitter");
	lk_rng_mix(rng, buf, sizeof(buf));
	lk_wipe(buf, sizeof(buf));
}

void stand_seed(struct stand *s, struct lk_rng *rng)
{
	lk_u64 t = cpu_rdtsc();

	if (s->cfg.debug_seed_len) {
		stand_print("WARNING: debug_seed is set: the layout is FIXED and "
			    "NOT secret (debugging only)");
		lk_rng_init(rng, s->cfg.debug_seed, s->cfg.debug_seed_len);
		return;
	}
	lk_rng_init(rng, &t, sizeof(t));
	mix_cpu(rng, "RDSEED", cpu_has_rdseed(), cpu_rdseed);
	mix_cpu(rng, "RDRAND", cpu_has_rdrand(), cpu_rdrand);
	mix_seed_file(s, rng);
	mix_jitter(rng);
	lk_wipe(&t, sizeof(t));
}
