/*
 * The sequence itself and the console discipline: while a kernel is being
 * prepared, the first error line is kept as the reason and printed once,
 * on the `relinkboot: fallback: REASON` line.
 */
#include "boot.h"
#include "../cpu.h"
#include "../proto/obsd_opts.h"

void lk_boot_print(struct lk_boot *b, const char *fmt, ...)
{
	char msg[260], line[300];
	__builtin_va_list ap;

	__builtin_va_start(ap, fmt);
	lk_vsnprintf(msg, sizeof(msg), fmt, ap);
	__builtin_va_end(ap);
	lk_snprintf(line, sizeof(line), "relinkboot: %s", msg);
	b->ops->print(b, line);
}

void lk_boot_fail(struct lk_boot *b, const char *fmt, ...)
{
	__builtin_va_list ap;

	if (b->reason[0])
		return;
	__builtin_va_start(ap, fmt);
	lk_vsnprintf(b->reason, sizeof(b->reason), fmt, ap);
	__builtin_va_end(ap);
}

void lk_boot_log(void *ctx, int level, const char *line)
{
	struct lk_boot *b = ctx;

	if (level == LK_LOG_ERROR && b->capture) {
		if (!b->reason[0])
			lk_boot_fail(b, "%s", line);
		else if (b->cfg.verbose)
			lk_boot_print(b, "error: %s", line);
		return;
	}
	if (level == LK_LOG_ERROR)
		lk_boot_print(b, "error: %s", line);
	else if (level == LK_LOG_WARN)
		lk_boot_print(b, "warning: %s", line);
	else
		lk_boot_print(b, "%s", line);
}

/* The core's entropy callback (the generator itself is seeded by
 * lk_boot_seed): RDSEED, then RDRAND; nothing else counts as random. */
static lk_size lk_boot_cpu_entropy(void *ctx, void *buf, lk_size len)
{
	lk_size got = lk_cpu_random(1, buf, len);

	(void)ctx;
	if (got < len)
		got += lk_cpu_random(0, (lk_u8 *)buf + got, len - got);
	return got;
}

void lk_boot_host(struct lk_boot *b, void *(*alloc)(void *ctx, lk_size size),
		  void (*release)(void *ctx, void *ptr, lk_size size))
{
	b->host.ctx = b;
	b->host.alloc = alloc;
	b->host.free = release;
	b->host.log = lk_boot_log;
	b->host.entropy = lk_boot_cpu_entropy;
	b->host.log_level = LK_LOG_INFO;
}

void lk_boot_phase(struct lk_boot *b, const char *name)
{
	lk_u64 now = lk_cpu_rdtsc();

	if (b->cfg.verbose >= 1)
		lk_boot_print(b, "phase %s %llu cycles", name, now - b->t);
	b->t = lk_cpu_rdtsc();
}

void lk_boot_mp_report(struct lk_boot *b, const char *what, lk_u32 n,
		       const char *items, lk_u32 by_ap, lk_u32 aps)
{
	if (b->cfg.verbose >= 1 && aps)
		lk_boot_print(b, "%s: %u %s, %u of them by %u application "
				 "processor%s",
			      what, n, items, by_ap, aps, aps == 1 ? "" : "s");
}

int lk_boot_build_info(struct lk_boot *b, const struct lk_kernel *k,
		       const struct lk_machine *m, void *buf, lk_u32 cap,
		       struct lk_entry *out)
{
	struct lk_handover ho;

	ho.k = k;
	ho.m = m;
	ho.cmdline = b->cfg.cmdline;
	ho.obsd = &b->cfg.obsd;
	ho.good_seed = b->good_seed;
	ho.ucode_addr = b->ucode_addr;
	ho.ucode_size = b->ucode_size;
	lk_memset(out, 0, sizeof(*out)); /* mode LK_ENTRY_PM32 unless set */
	return k->proto->build(&b->host, &ho, buf, cap, out);
}

static void lk_boot_load_config(struct lk_boot *b)
{
	void *text = LK_NULL;
	lk_u64 size = 0;
	int rc;

	lk_config_defaults(&b->cfg);
	b->capture = 1;
	rc = b->ops->read_file(b, LK_BOOT_CONFIG_PATH, 1, &text, &size);
	b->capture = 0;
	if (rc) {
		lk_boot_print(b, "warning: %s; using defaults", b->reason);
		b->reason[0] = 0;
		return;
	}
	lk_config_parse(&b->host, LK_BOOT_CONFIG_PATH, text, (lk_size)size,
			&b->cfg);
	b->ops->free_big(b, text, size); /* wiped: it may hold a seed */
}

/* The stage's own console follows `tty`/`stty` (RELINK.CFG, boot.conf,
 * the prompt) as boot(8)'s does: comN at its speed (115200 unless set);
 * without tty, COM1 at com0's speed. */
void lk_boot_console(struct lk_boot *b)
{
	const struct lk_obsd_opts *o = &b->cfg.obsd;
	lk_u32 unit = o->tty_set ? o->tty_unit : 0;
	lk_u32 speed = o->com_speed[unit] ? o->com_speed[unit] : 115200;
	lk_u32 port = lk_obsd_com_port(unit);

	if (!b->ops->console || (port == b->con_port && speed == b->con_speed))
		return;
	b->con_port = port;
	b->con_speed = speed;
	b->ops->console(b, port, speed);
}

/* After the Secure Boot policy, which may have refused verbose = 2. */
static void lk_boot_apply_verbose(struct lk_boot *b)
{
	if (b->cfg.verbose < 2)
		return;
	b->host.log_level = LK_LOG_DEBUG;
	lk_boot_print(b, "INSECURE: verbose=2 prints the kernel layout");
}

static int lk_boot_choose_key(struct lk_boot *b)
{
	b->have_key = lk_config_pubkey(&b->cfg, b->builtin_key, &b->key);
	if (b->have_key >= 0)
		return 0;
	lk_boot_print(b, "error: the built-in public key is malformed");
	return -1;
}

static void lk_boot_try_fallback(struct lk_boot *b)
{
	if (!b->reason[0])
		lk_boot_fail(b, "%s: unexplained failure", b->cfg.kit);
	lk_boot_print(b, "fallback: %s", b->reason);
	b->reason[0] = 0;
	lk_boot_fallback(b);
	if (!b->reason[0])
		lk_boot_fail(b, "%s: unexplained failure", b->cfg.fallback);
	b->ops->release(b);
	lk_boot_print(b, "fallback failed: %s", b->reason);
}

/* What to boot first: the relinked kernel, or what the prompt or
 * boot.conf chose. Returns only when it could not be booted. */
static void lk_boot_first(struct lk_boot *b)
{
	if (lk_boot_conf(b) != LK_CMD_BOOT)
		lk_boot_prompt(b);
	if (b->want_fallback)
		lk_boot_fail(b, "chosen at the boot prompt");
	else if (b->image[0])
		lk_boot_kernel_file(b, b->image);
	else
		lk_boot_relink(b);
}

void lk_boot_main(struct lk_boot *b)
{
	b->host.ctx = b;
	b->host.log = lk_boot_log;
	b->t = lk_cpu_rdtsc();
	lk_boot_load_config(b);
	if (b->ops->secure_boot_policy)
		b->ops->secure_boot_policy(b);
	lk_boot_apply_verbose(b);
	lk_boot_console(b);
	if (lk_boot_choose_key(b) == 0) {
		lk_boot_first(b);
		lk_boot_try_fallback(b);
	}
	lk_config_wipe(&b->cfg);
	b->ops->give_up(b);
}
