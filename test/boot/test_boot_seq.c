/*
 * The shared boot sequence (linkkit/boot/) against a fake stage table,
 * without QEMU: every refusal and every hook failing gives exactly one
 * `relinkboot: fallback: REASON` line and then the fallback is entered,
 * or the documented give-up. The kits are the demo kernel's (real
 * linkkit create output), passed on the command line:
 *   test_boot_seq KERNEL.KIT FALLBACK.ELF NONE.KIT
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "proto/obsd_opts.h"
#include "tap.h"

#define MAX_FILES 8
#define MAX_LINES 64
#define MAX_BIG 64

struct file {
	const char *path;
	unsigned char *data;
	size_t size;
};

struct fake {
	struct lk_boot boot;
	struct file files[MAX_FILES];
	int nfiles;
	/* Failure injection: the nth call (1-based) fails; 0: never. */
	int fail_big, fail_place, fail_settle, fail_enter, fail_kept;
	int nbig, nplace, nsettle, nenter;
	int fw_rng; /* bytes the firmware RNG gives, or -1: no such hook */
	const char *keys; /* what poll_key returns, one key a call */
	void *big[MAX_BIG];
	char lines[MAX_LINES][300];
	int nlines;
	/* What was entered. */
	int entered, gave_up, leaked_at_enter;
	struct lk_kernel k;
	struct lk_entry e;
	char loader[64];
	unsigned char *image;
	size_t image_size;
	unsigned char *image_copy; /* the entered kernel's bytes */
	void *kept[8];
	int nkept;
	jmp_buf jump;
};

/* A stage's inflate that returns once the tables are in (efi/mp.c):
 * the payload's first lk_link_prefix bytes, the rest 0xa5 until
 * inflate_rest; bad_order counts a place or a free of the payload or the
 * kit before that. */
static struct early {
	int on, pending, rest_calls, bad_order, fail_rest;
	unsigned char *whole, *dst;
	const void *kit;
	lk_u64 size, prefix;
} early;

static struct fake *F(struct lk_boot *b)
{
	return b->stage;
}

static int fake_read(struct lk_boot *b, const char *path, int secret,
		     void **data, lk_u64 *size)
{
	struct fake *f = F(b);

	(void)secret;
	for (int i = 0; i < f->nfiles; i++) {
		if (strcmp(f->files[i].path, path))
			continue;
		*data = b->ops->alloc_big(b, f->files[i].size, secret);
		if (!*data) {
			lk_log(&b->host, LK_LOG_ERROR, "%s: no memory", path);
			return -1;
		}
		memcpy(*data, f->files[i].data, f->files[i].size);
		*size = f->files[i].size;
		return 0;
	}
	lk_log(&b->host, LK_LOG_ERROR, "%s: file not found", path);
	return -1;
}

static void *fake_alloc_big(struct lk_boot *b, lk_u64 size, int secret)
{
	struct fake *f = F(b);

	(void)secret;
	if (++f->nbig == f->fail_big)
		return NULL;
	for (int i = 0; i < MAX_BIG; i++) {
		if (f->big[i])
			continue;
		f->big[i] = calloc(1, size ? size : 1);
		return f->big[i];
	}
	return NULL;
}

static void fake_free_big(struct lk_boot *b, void *p, lk_u64 size)
{
	struct fake *f = F(b);

	(void)size;
	early.bad_order += early.pending && (p == early.dst || p == early.kit);
	for (int i = 0; i < MAX_BIG; i++) {
		if (f->big[i] == p) {
			free(p);
			f->big[i] = NULL;
			return;
		}
	}
	fprintf(stderr, "free_big of a buffer it never gave\n");
	abort();
}

static int fake_outstanding(const struct fake *f)
{
	int n = 0;

	for (int i = 0; i < MAX_BIG; i++)
		n += f->big[i] != NULL;
	return n;
}

static void *fake_alloc_kept(struct lk_boot *b, lk_u64 size)
{
	struct fake *f = F(b);

	if (f->fail_kept || f->nkept == 8)
		return NULL;
	f->kept[f->nkept] = calloc(1, size ? size : 1);
	return f->kept[f->nkept++];
}


static void *fake_place(struct lk_boot *b, lk_u64 lo, lk_u64 hi)
{
	struct fake *f = F(b);

	early.bad_order += early.pending;
	if (++f->nplace == f->fail_place) {
		lk_log(&b->host, LK_LOG_ERROR, "fake: no room at 0x%llx", lo);
		return NULL;
	}
	free(f->image);
	f->image_size = hi - lo;
	f->image = calloc(1, f->image_size);
	return f->image;
}

static int fake_settle(struct lk_boot *b, struct lk_kernel *k, const void *hdr,
		       lk_u64 hdr_size)
{
	struct fake *f = F(b);

	(void)k;
	(void)hdr;
	(void)hdr_size;
	if (++f->nsettle == f->fail_settle) {
		lk_log(&b->host, LK_LOG_ERROR, "fake: cannot settle");
		return -1;
	}
	return 0;
}

static lk_size fake_fw_rng(struct lk_boot *b, void *buf, lk_size len)
{
	struct fake *f = F(b);
	lk_size n = (lk_size)f->fw_rng < len ? (lk_size)f->fw_rng : len;

	memset(buf, 0x5a, n);
	return n;
}

static void fake_print(struct lk_boot *b, const char *line)
{
	struct fake *f = F(b);

	if (f->nlines < MAX_LINES)
		snprintf(f->lines[f->nlines++], sizeof(f->lines[0]), "%s",
			 line);
}

static int fake_poll(struct lk_boot *b)
{
	struct fake *f = F(b);

	if (!f->keys || !*f->keys)
		return 0;
	return (unsigned char)*f->keys++;
}

static void fake_delay(struct lk_boot *b, lk_u32 us)
{
	(void)b;
	(void)us;
}

/* On success it does not return, as a real jump does not. */
/* Memory with addresses below 4 GiB (the Linux zero page and initrd are
 * passed by physical address): one low arena, bumped. */
static unsigned char *fake_low(lk_u64 size)
{
	static unsigned char *arena;
	static lk_u64 used;

	if (!arena) {
		arena = mmap(NULL, 8 << 20, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
		if (arena == MAP_FAILED)
			abort();
	}
	size = (size + 4095) & ~4095ull;
	if (size > (8u << 20) - used)
		used = 0; /* earlier tests' memory is done with */
	used += size;
	return arena + used - size;
}

static void *fake_alloc_kept_below(struct lk_boot *b, lk_u64 size,
				   lk_u64 limit)
{
	(void)b;
	(void)limit;
	return size <= (4u << 20) ? fake_low(size) : NULL;
}

static void fake_enter(struct lk_boot *b, const struct lk_kernel *k)
{
	unsigned char *info = fake_low(65536);
	struct fake *f = F(b);
	struct lk_machine m;
	struct lk_mb2_mmap_entry map[2] = { { 0, 0x9f000, 1, 0 },
					    { 0x100000, 0x7f00000, 1, 0 } };

	if (++f->nenter == f->fail_enter) {
		lk_log(&b->host, LK_LOG_ERROR, "fake: ExitBootServices failed");
		return;
	}
	memset(&m, 0, sizeof(m));
	m.map = map;
	m.nmap = 2;
	if (lk_boot_build_info(b, k, &m, info, 65536, &f->e))
		return;
	f->entered = 1;
	f->k = *k;
	snprintf(f->loader, sizeof(f->loader), "%s", k->loader_name);
	f->leaked_at_enter = fake_outstanding(f);
	f->image_copy = malloc(f->image_size);
	memcpy(f->image_copy, f->image, f->image_size);
	longjmp(f->jump, 1);
}

static void fake_release(struct lk_boot *b)
{
	(void)b;
}

static void fake_give_up(struct lk_boot *b)
{
	F(b)->gave_up = 1;
}

static void *host_alloc(void *ctx, lk_size size)
{
	(void)ctx;
	return calloc(1, size ? size : 1);
}

static void host_free(void *ctx, void *p, lk_size size)
{
	(void)ctx;
	(void)size;
	free(p);
}

static int fake_inflate_early(struct lk_boot *b, const struct lk_kit *kit,
			      const char *name, void *dst, lk_u64 size)
{
	if (lk_kit_verify(&b->host, kit, name))
		return LK_ERR_HASH;
	early.whole = malloc(size);
	if (lk_kit_inflate(&b->host, kit, name, early.whole, size)) {
		free(early.whole);
		early.whole = NULL;
		return LK_ERR_INFLATE;
	}
	early.prefix = lk_link_prefix(early.whole, size, size);
	memcpy(dst, early.whole, early.prefix);
	memset((unsigned char *)dst + early.prefix, 0xa5, size - early.prefix);
	early.dst = dst;
	early.kit = (const unsigned char *)kit->zdata - 64;
	early.size = size;
	early.pending = 1;
	return LK_BOOT_INFLATE_EARLY;
}

static int fake_inflate_rest(struct lk_boot *b)
{
	early.rest_calls++;
	early.pending = 0;
	memcpy(early.dst + early.prefix, early.whole + early.prefix,
	       early.size - early.prefix);
	free(early.whole);
	early.whole = NULL;
	if (early.fail_rest) {
		lk_log(&b->host, LK_LOG_ERROR, "fake: segment 3 did not inflate");
		return -1;
	}
	return 0;
}

static struct lk_boot_ops fake_ops = {
	.read_file = fake_read,
	.alloc_big = fake_alloc_big,
	.free_big = fake_free_big,
	.alloc_kept = fake_alloc_kept,
	.alloc_kept_below = fake_alloc_kept_below,
	.place = fake_place,
	.settle = fake_settle,
	.fw_rng_name = "FAKE_RNG",
	.print = fake_print,
	.poll_key = fake_poll,
	.delay_us = fake_delay,
	.enter = fake_enter,
	.release = fake_release,
	.give_up = fake_give_up,
};

static struct file kit, fallback, none_kit;

static struct fake *fake_new(void)
{
	struct fake *f = calloc(1, sizeof(*f));

	f->boot.ops = &fake_ops;
	f->boot.stage = f;
	lk_boot_host(&f->boot, host_alloc, host_free);
	f->fw_rng = 64;
	return f;
}

static void fake_file(struct fake *f, const char *path, const void *data,
		      size_t size)
{
	f->files[f->nfiles].path = path;
	f->files[f->nfiles].data = malloc(size ? size : 1);
	memcpy(f->files[f->nfiles].data, data, size);
	f->files[f->nfiles].size = size;
	f->nfiles++;
}

static void fake_cfg(struct fake *f, const char *text)
{
	fake_file(f, LK_BOOT_CONFIG_PATH, text, strlen(text));
}

static void fake_standard(struct fake *f)
{
	fake_file(f, "\\RELINK\\KERNEL.KIT", kit.data, kit.size);
	fake_file(f, "\\RELINK\\FALLBACK.ELF", fallback.data, fallback.size);
}

static void fake_run(struct fake *f)
{
	/* fake_ops is shared: the firmware and inflate hooks are per test. */
	fake_ops.firmware_rng = f->fw_rng >= 0 ? fake_fw_rng : NULL;
	fake_ops.inflate = early.on ? fake_inflate_early : NULL;
	fake_ops.inflate_rest = early.on ? fake_inflate_rest : NULL;
	if (setjmp(f->jump) == 0)
		lk_boot_main(&f->boot);
}

static void fake_free(struct fake *f)
{
	for (int i = 0; i < f->nfiles; i++)
		free(f->files[i].data);
	for (int i = 0; i < MAX_BIG; i++)
		free(f->big[i]);
	for (int i = 0; i < f->nkept; i++)
		free(f->kept[i]);
	free(f->image);
	free(f->image_copy);
	free(f);
}

static int count_prefix(const struct fake *f, const char *prefix)
{
	int n = 0;

	for (int i = 0; i < f->nlines; i++)
		n += strncmp(f->lines[i], prefix, strlen(prefix)) == 0;
	return n;
}

static const char *find_prefix(const struct fake *f, const char *prefix)
{
	for (int i = 0; i < f->nlines; i++)
		if (strncmp(f->lines[i], prefix, strlen(prefix)) == 0)
			return f->lines[i];
	return "(none)";
}

static const char *all_lines(const struct fake *f)
{
	static char buf[4096];
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; i < f->nlines && n < sizeof(buf) - 1; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "[%s] ",
				      f->lines[i]);
	return buf;
}

/* The relinked kernel entered, nothing left allocated, no fallback. */
static void expect_relinked(struct fake *f, const char *name)
{
	tap_check(f->entered && !strcmp(f->loader, "relinkboot relinked") &&
			  count_prefix(f, "relinkboot: fallback") == 0 &&
			  f->leaked_at_enter == 0,
		  name, "entered %d loader '%s', %d buffers left, lines %s",
		  f->entered, f->loader, f->leaked_at_enter, all_lines(f));
}

/* Exactly one fallback line, equal to want, then the fallback entered. */
static void expect_fallback(struct fake *f, const char *name, const char *want)
{
	const char *got = find_prefix(f, "relinkboot: fallback: ");

	tap_check(f->entered && !strcmp(f->loader, "relinkboot fallback") &&
			  count_prefix(f, "relinkboot: fallback: ") == 1 &&
			  !strcmp(got, want) && f->leaked_at_enter == 0 &&
			  !f->gave_up,
		  name,
		  "entered %d loader '%s', %d buffers left, want '%s', "
		  "lines %s",
		  f->entered, f->loader, f->leaked_at_enter, want,
		  all_lines(f));
}

static void test_relink_ok(void)
{
	struct fake *f = fake_new();

	fake_standard(f);
	fake_cfg(f, "timeout = 0\n");
	fake_run(f);
	expect_relinked(f, "seq-relinked");
	tap_check(f->e.magic == LK_MB2_BOOT_MAGIC && f->e.esp == 0 &&
			  f->k.shdrs != NULL && f->boot.rng == NULL,
		  "seq-relinked-multiboot2-entry",
		  "magic 0x%x esp 0x%x shdrs %p rng %p", f->e.magic, f->e.esp,
		  f->k.shdrs, (void *)f->boot.rng);
	fake_free(f);
}

static void test_no_config(void)
{
	struct fake *f = fake_new();

	fake_standard(f);
	fake_run(f);
	expect_relinked(f, "seq-no-config-relinked");
	tap_check(!strcmp(find_prefix(f, "relinkboot: warning: "),
			  "relinkboot: warning: \\EFI\\BOOT\\RELINK.CFG: file "
			  "not found; using defaults"),
		  "seq-no-config-line", "lines %s", all_lines(f));
	fake_free(f);
}

static void test_missing_kit(void)
{
	struct fake *f = fake_new();

	fake_file(f, "\\RELINK\\FALLBACK.ELF", fallback.data, fallback.size);
	fake_run(f);
	expect_fallback(f, "seq-missing-kit",
			"relinkboot: fallback: \\RELINK\\KERNEL.KIT: file not "
			"found");
	fake_free(f);
}

static void test_corrupt_kit(void)
{
	struct fake *f = fake_new();
	unsigned char *bad = malloc(kit.size);

	memcpy(bad, kit.data, kit.size);
	bad[64 + (kit.size - 64) / 2] ^= 0x55;
	fake_file(f, "\\RELINK\\KERNEL.KIT", bad, kit.size);
	fake_file(f, "\\RELINK\\FALLBACK.ELF", fallback.data, fallback.size);
	fake_run(f);
	expect_fallback(f, "seq-corrupt-kit",
			find_prefix(f, "relinkboot: fallback: "));
	tap_check(strstr(find_prefix(f, "relinkboot: fallback: "),
			 "KERNEL.KIT") != NULL,
		  "seq-corrupt-kit-named", "lines %s", all_lines(f));
	free(bad);
	fake_free(f);
}

/* A hook failing on its first call (the int at offset off of struct
 * fake): one line naming it, then the fallback, whose own call works. */
static void test_hook(const char *name, size_t off, const char *want)
{
	struct fake *f = fake_new();

	fake_standard(f);
	*(int *)((char *)f + off) = 1;
	fake_run(f);
	expect_fallback(f, name, want);
	fake_free(f);
}

static void test_big_fails(const char *name, const char *line_name, int nth,
			   const char *want_part)
{
	struct fake *f = fake_new();
	const char *got;

	fake_standard(f);
	f->fail_big = nth;
	fake_run(f);
	got = find_prefix(f, "relinkboot: fallback: ");
	expect_fallback(f, name, got);
	tap_check(strstr(got, want_part) != NULL, line_name,
		  "want '%s' in '%s'", want_part, got);
	fake_free(f);
}

static void test_hooks(void)
{
	struct fake *f;
	const char *got;

	test_hook("seq-place-fails", offsetof(struct fake, fail_place),
		  "relinkboot: fallback: fake: no room at 0x1000000");
	test_hook("seq-settle-fails", offsetof(struct fake, fail_settle),
		  "relinkboot: fallback: fake: cannot settle");
	test_hook("seq-enter-fails", offsetof(struct fake, fail_enter),
		  "relinkboot: fallback: fake: ExitBootServices failed");
	/* alloc_big, no config file: 1 the kit, 2 the generator, 3 the
	 * payload. */
	test_big_fails("seq-kit-alloc-fails", "seq-kit-alloc-line", 1,
		       "KERNEL.KIT: no memory");
	test_big_fails("seq-rng-alloc-fails", "seq-rng-alloc-line", 2,
		       "cannot allocate the generator");
	test_big_fails("seq-payload-alloc-fails", "seq-payload-alloc-line", 3,
		       "for the payload");
	f = fake_new();
	fake_standard(f);
	f->fail_kept = 1;
	fake_run(f);
	got = find_prefix(f, "relinkboot: fallback: ");
	tap_check(!f->entered && f->gave_up &&
			  count_prefix(f, "relinkboot: fallback: ") == 1 &&
			  strstr(got, "for the ELF sections") &&
			  count_prefix(f, "relinkboot: fallback failed: cannot "
					  "place the ELF sections") == 1 &&
			  fake_outstanding(f) == 0,
		  "seq-kept-alloc-fails", "lines %s", all_lines(f));
	fake_free(f);
}

static void test_nothing_bootable(void)
{
	struct fake *f = fake_new();

	fake_run(f);
	tap_check(
		!f->entered && f->gave_up &&
			count_prefix(f, "relinkboot: fallback: ") == 1 &&
			!strcmp(find_prefix(f, "relinkboot: fallback failed: "),
				"relinkboot: fallback failed: "
				"\\RELINK\\FALLBACK.ELF: file not found"),
		"seq-nothing-bootable", "lines %s", all_lines(f));
	tap_check(fake_outstanding(f) == 0, "seq-nothing-bootable-freed",
		  "%d buffers left", fake_outstanding(f));
	fake_free(f);
}

static void test_bad_fallback(void)
{
	struct fake *f = fake_new();
	static const char junk[] = "\177ELF but not really";

	fake_file(f, "\\RELINK\\FALLBACK.ELF", junk, sizeof(junk));
	fake_run(f);
	tap_check(!f->entered && f->gave_up &&
			  count_prefix(f, "relinkboot: fallback failed: "
					  "\\RELINK\\FALLBACK.ELF") == 1 &&
			  fake_outstanding(f) == 0,
		  "seq-bad-fallback", "lines %s", all_lines(f));
	fake_free(f);
}

static struct fake *prompt_run(const char *cfg, const char *keys)
{
	struct fake *f = fake_new();

	fake_standard(f);
	fake_cfg(f, cfg);
	f->keys = keys;
	fake_run(f);
	return f;
}

static void test_prompt(void)
{
	struct fake *f;

	f = prompt_run("timeout = 3\n", "f");
	expect_fallback(f, "seq-prompt-f",
			"relinkboot: fallback: chosen at the boot prompt");
	fake_free(f);
	f = prompt_run("timeout = 3\n", "");
	expect_relinked(f, "seq-prompt-timeout");
	fake_free(f);
	/* Any other key stops the count and opens boot>. */
	f = prompt_run("timeout = 3\n", "xboot\r");
	expect_relinked(f, "seq-prompt-other-key");
	tap_check(count_prefix(f, "relinkboot: boot(8) commands here") == 1,
		  "seq-prompt-opens", "lines %s", all_lines(f));
	fake_free(f);
	/* timeout 0: a key already waiting opens it too. */
	f = prompt_run("timeout = 0\n", "\rbogus\rboot fallback\r");
	expect_fallback(f, "seq-prompt-boot-fallback",
			"relinkboot: fallback: chosen at the boot prompt");
	tap_check(count_prefix(f, "relinkboot: unknown or bad command: bogus") == 1,
		  "seq-prompt-bad-command", "lines %s", all_lines(f));
	fake_free(f);
	f = prompt_run("", "xset tty com1\rboot -s\r");
	expect_relinked(f, "seq-prompt-boot-s");
	tap_check(f->boot.cfg.obsd.howto == 0x2 && f->boot.cfg.obsd.tty_set &&
			  f->boot.cfg.obsd.tty_unit == 1,
		  "seq-prompt-boot-s-howto", "howto 0x%x tty %u",
		  f->boot.cfg.obsd.howto, f->boot.cfg.obsd.tty_unit);
	fake_free(f);
	f = prompt_run("", "xboot /bsd\r");
	expect_fallback(f, "seq-prompt-boot-root-path",
			"relinkboot: fallback: /bsd: no OpenBSD root: the boot "
			"disk cannot be read");
	fake_free(f);
}

static void test_bad_builtin_key(void)
{
	struct fake *f = fake_new();

	fake_standard(f);
	f->boot.builtin_key = "not base64 at all!";
	fake_run(f);
	tap_check(!f->entered && f->gave_up &&
			  count_prefix(f, "relinkboot: fallback") == 0 &&
			  count_prefix(f, "relinkboot: error: the built-in "
					  "public key is malformed") == 1,
		  "seq-bad-builtin-key", "lines %s", all_lines(f));
	fake_free(f);
}

/* A key configured: the unsigned kit and the unsigned fallback are
 * each refused with their line, and nothing boots. */
static void test_unsigned(void)
{
	struct fake *f = fake_new();
	/* "Ed", an 8-byte key number and 32 key bytes, in base64. */
	static const char cfg[] =
		"pubkey = "
		"RWQBAgMEBQYHCAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f\n";

	fake_standard(f);
	fake_cfg(f, cfg);
	fake_run(f);
	tap_check(
		!f->entered && f->gave_up &&
			strstr(find_prefix(f, "relinkboot: fallback: "),
			       "KERNEL.KIT: not signed") &&
			!strcmp(find_prefix(f, "relinkboot: fallback failed: "),
				"relinkboot: fallback failed: "
				"\\RELINK\\FALLBACK.ELF: not signed "
				"(\\RELINK\\FALLBACK.SIG: file not found), and "
				"a "
				"public key is configured"),
		"seq-unsigned-refused", "lines %s", all_lines(f));
	fake_free(f);
}

static void test_protocol_none(void)
{
	struct fake *f = fake_new();

	fake_file(f, "\\RELINK\\KERNEL.KIT", none_kit.data, none_kit.size);
	fake_file(f, "\\RELINK\\FALLBACK.ELF", fallback.data, fallback.size);
	fake_run(f);
	expect_relinked(f, "seq-none-relinked");
	tap_check(f->k.proto == &lk_proto_none && f->e.magic == 0 &&
			  f->e.info == 0 && f->e.esp == 0 && f->k.shdrs == NULL,
		  "seq-none-entry", "proto %s magic 0x%x info 0x%x shdrs %p",
		  f->k.proto ? f->k.proto->name : "?", f->e.magic, f->e.info,
		  f->k.shdrs);
	fake_free(f);
}

/* A fixed seed links the same image twice; firmware entropy changes it. */
static void test_seeds(void)
{
	struct fake *f[3];
	int warn;

	for (int i = 0; i < 3; i++) {
		f[i] = fake_new();
		fake_standard(f[i]);
		if (i < 2)
			fake_cfg(f[i], "debug_seed = "
				       "00112233445566778899aabbccddeeff\n");
		fake_run(f[i]);
	}
	tap_check(f[0]->entered && f[1]->entered &&
			  f[0]->image_size == f[1]->image_size &&
			  !memcmp(f[0]->image_copy, f[1]->image_copy,
				  f[0]->image_size) &&
			  count_prefix(f[0],
				       "relinkboot: INSECURE: debug_seed is "
				       "set: the layout is fixed and known") ==
				  1,
		  "seq-debug-seed-repeatable", "lines %s", all_lines(f[0]));
	tap_check(f[2]->entered &&
			  (f[2]->image_size != f[0]->image_size ||
			   memcmp(f[2]->image_copy, f[0]->image_copy,
				  f[0]->image_size)) &&
			  f[2]->boot.good_seed,
		  "seq-real-seed-differs", "good_seed %d",
		  f[2]->boot.good_seed);
	for (int i = 0; i < 3; i++)
		fake_free(f[i]);
	f[0] = fake_new();
	fake_standard(f[0]);
	f[0]->fw_rng = 0;
	fake_run(f[0]);
	warn = count_prefix(f[0], "relinkboot: warning: no FAKE_RNG entropy");
	expect_relinked(f[0], "seq-fw-rng-empty-boots");
	tap_check(warn == 1, "seq-fw-rng-empty-warns", "%d warnings: %s", warn,
		  all_lines(f[0]));
	fake_free(f[0]);
}

/* The flow parses and lays out with only the tables inflated (the
 * contents still garbage), then waits for the rest before it places the
 * image or frees the payload and the kit: the same kernel as a whole
 * inflate, for one debug seed. */
static void test_inflate_early(void)
{
	const char *cfg = "debug_seed = 00112233445566778899aabbccddeeff\n";
	struct fake *f[2];

	for (int i = 0; i < 2; i++) {
		memset(&early, 0, sizeof(early));
		early.on = i;
		f[i] = fake_new();
		fake_standard(f[i]);
		fake_cfg(f[i], cfg);
		fake_run(f[i]);
	}
	expect_relinked(f[1], "seq-inflate-early-relinked");
	tap_check(early.prefix > 0 && early.prefix < early.size &&
			  early.rest_calls == 1 && early.bad_order == 0 &&
			  f[0]->entered && f[1]->image_size == f[0]->image_size &&
			  !memcmp(f[1]->image_copy, f[0]->image_copy,
				  f[0]->image_size),
		  "seq-inflate-early-same-kernel",
		  "prefix %llu of %llu, %d rest calls, %d out of order",
		  (unsigned long long)early.prefix,
		  (unsigned long long)early.size, early.rest_calls,
		  early.bad_order);
	fake_free(f[0]);
	fake_free(f[1]);
	memset(&early, 0, sizeof(early));
	early.on = early.fail_rest = 1;
	f[0] = fake_new();
	fake_standard(f[0]);
	fake_run(f[0]);
	expect_fallback(f[0], "seq-inflate-rest-fails",
			"relinkboot: fallback: fake: segment 3 did not inflate");
	tap_check(early.rest_calls == 1 && early.bad_order == 0,
		  "seq-inflate-rest-fails-order", "%d rest calls, %d out of order",
		  early.rest_calls, early.bad_order);
	fake_free(f[0]);
	memset(&early, 0, sizeof(early));
}

static int slurp(const char *path, struct file *out)
{
	FILE *fp = fopen(path, "rb");
	long n;

	if (!fp)
		return -1;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	out->data = malloc(n > 0 ? (size_t)n : 1);
	out->size = fread(out->data, 1, (size_t)n, fp);
	fclose(fp);
	out->path = path;
	return out->size == (size_t)n ? 0 : -1;
}

/* A bzImage of the shape boot.rst gives (setup header 2.15, 4 KiB of
 * protected-mode code after one setup sector). */
static unsigned char *linux_bz(size_t *len)
{
	unsigned char *d = calloc(1, 2 * 512 + 4096);
	uint32_t v;

	d[0x1f1] = 1;
	d[0x1fe] = 0x55;
	d[0x1ff] = 0xaa;
	d[0x200] = 0xeb;
	d[0x201] = 0x6a;
	memcpy(d + 0x202, "HdrS", 4);
	d[0x206] = 0x0f;
	d[0x207] = 0x02;
	d[0x211] = 1; /* LOADED_HIGH */
	v = 4096 / 16;
	memcpy(d + 0x1f4, &v, 4);
	v = 0x7fffffff;
	memcpy(d + 0x22c, &v, 4);
	v = 0x200000;
	memcpy(d + 0x230, &v, 4);
	d[0x234] = 1;
	d[0x236] = 1; /* XLF_KERNEL_64 */
	v = 2047;
	memcpy(d + 0x238, &v, 4);
	v = 0x1000000;
	memcpy(d + 0x258, &v, 4);
	v = 0x100000;
	memcpy(d + 0x260, &v, 4);
	memset(d + 1024, 0x90, 4096);
	*len = 2 * 512 + 4096;
	return d;
}

/* issue 26: a bzImage as the fallback of a missing kit, with its initrd:
 * the Linux row, loaded at its pref_address, the initrd page-aligned in
 * kept memory, the zero page naming both; a missing initrd and a broken
 * setup header each one `fallback failed:` line. */
static void test_linux(void)
{
	static const char initrd[] = "initrd bytes";
	const char *cfg = "initrd = \\RELINK\\INITRD.IMG\ncmdline = console=ttyS0\n";
	size_t n;
	unsigned char *bz = linux_bz(&n);
	const unsigned char *zp;
	struct fake *f = fake_new();

	fake_file(f, "\\RELINK\\FALLBACK.ELF", bz, n);
	fake_file(f, "\\RELINK\\INITRD.IMG", initrd, sizeof(initrd));
	fake_cfg(f, cfg);
	fake_run(f);
	expect_fallback(f, "seq-linux-bzimage",
			"relinkboot: fallback: \\RELINK\\KERNEL.KIT: file not "
			"found");
	zp = (const unsigned char *)(uintptr_t)f->e.info;
	tap_check(f->entered && f->k.proto == &lk_proto_linux &&
			  f->e.mode == LK_ENTRY_LINUX32 &&
			  f->e.entry == 0x1000000 && f->k.load_lo == 0x1000000 &&
			  f->image_size == 0x100000 &&
			  !memcmp(f->image, bz + 1024, 4096) &&
			  f->k.initrd_size == sizeof(initrd) &&
			  !(f->k.initrd_addr & 4095) &&
			  !memcmp((void *)(uintptr_t)f->k.initrd_addr, initrd,
				  sizeof(initrd)) &&
			  zp && !memcmp(zp + 0x202, "HdrS", 4) &&
			  !memcmp(zp + 0x218, &f->k.initrd_addr, 4),
		  "seq-linux-loaded", "mode %u entry 0x%x load 0x%llx size %zu "
		  "initrd 0x%llx+%llu", f->e.mode, f->e.entry,
		  (unsigned long long)f->k.load_lo, f->image_size,
		  (unsigned long long)f->k.initrd_addr,
		  (unsigned long long)f->k.initrd_size);
	fake_free(f);

	f = fake_new();
	fake_file(f, "\\RELINK\\FALLBACK.ELF", bz, n);
	fake_cfg(f, cfg);
	fake_run(f);
	tap_check(!f->entered && f->gave_up &&
			  count_prefix(f, "relinkboot: fallback failed: ") == 1 &&
			  !strcmp(find_prefix(f, "relinkboot: fallback failed: "),
				  "relinkboot: fallback failed: "
				  "\\RELINK\\INITRD.IMG: file not found"),
		  "seq-linux-initrd-missing", "lines %s", all_lines(f));
	fake_free(f);

	f = fake_new();
	bz[0x206] = 0x09;
	fake_file(f, "\\RELINK\\FALLBACK.ELF", bz, n);
	fake_run(f);
	tap_check(!f->entered && f->gave_up &&
			  !strcmp(find_prefix(f, "relinkboot: fallback failed: "),
				  "relinkboot: fallback failed: "
				  "\\RELINK\\FALLBACK.ELF: setup header: boot "
				  "protocol 2.09 is older than 2.12"),
		  "seq-linux-bad-header", "lines %s", all_lines(f));
	fake_free(f);
	free(bz);
}

int main(int argc, char **argv)
{
	if (argc != 4 || slurp(argv[1], &kit) || slurp(argv[2], &fallback) ||
	    slurp(argv[3], &none_kit)) {
		printf("not ok seq-setup: usage: test_boot_seq KIT FALLBACK "
		       "NONE.KIT (readable files)\n");
		return 1;
	}
	test_relink_ok();
	test_no_config();
	test_missing_kit();
	test_corrupt_kit();
	test_hooks();
	test_nothing_bootable();
	test_bad_fallback();
	test_prompt();
	test_bad_builtin_key();
	test_unsigned();
	test_protocol_none();
	test_seeds();
	test_inflate_early();
	test_linux();
	free(kit.data);
	free(fallback.data);
	free(none_kit.data);
	return tap_failed;
}
