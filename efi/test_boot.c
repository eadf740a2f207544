/*
 * Host unit test for the boot-protocol code shared by both stages:
 * linkkit/config.c (RELINK.CFG) and linkkit/mb2.c (Multiboot2 info).
 * Built with ASan+UBSan, so out-of-bounds reads on hostile input fail too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linkkit/config.h"
#include "../linkkit/kit_format.h"
#include "../linkkit/linkkit.h"
#include "../linkkit/mb2.h"

static int failures;
static char last_log[512];
static int nlogs;

static void check(int cond, const char *name, const char *why)
{
	if (cond) {
		printf("ok %s\n", name);
	} else {
		printf("not ok %s: %s\n", name, why);
		failures++;
	}
}

static void test_log(void *ctx, int level, const char *line)
{
	(void)ctx;
	(void)level;
	snprintf(last_log, sizeof(last_log), "%s", line);
	nlogs++;
}

static const struct lk_host host = { .log = test_log, .log_level = 3 };

static int parse(const char *text, lk_size len, struct lk_config *c)
{
	lk_config_defaults(c);
	nlogs = 0;
	last_log[0] = 0;
	return lk_config_parse(&host, "RELINK.CFG", text, len, c);
}

static int parse_str(const char *text, struct lk_config *c)
{
	return parse(text, strlen(text), c);
}

static void test_defaults(void)
{
	struct lk_config c;
	int w = parse_str("", &c);

	check(w == 0 && nlogs == 0 && !strcmp(c.kit, "\\RELINK\\KERNEL.KIT") &&
		      !strcmp(c.fallback, "\\RELINK\\FALLBACK.ELF") &&
		      c.seed_file[0] == 0 && c.cmdline[0] == 0 &&
		      c.protocol == LK_PROTO_MULTIBOOT2 && c.timeout == 0 &&
		      c.verbose == 0 && c.debug_seed_len == 0,
	      "config_defaults", "defaults wrong");
}

static void test_all_keys(void)
{
	struct lk_config c;
	const char *t = "# full config\r\n"
			"kit = /A/B.KIT\r\n"
			"  fallback=\\X\\FB.ELF   # trailing comment\n"
			"\n"
			"cmdline = console=com0 a#b  # c\n"
			"protocol = openbsd\n"
			"timeout = 5\n"
			"verbose = 2\n"
			"seed_file = RELINK/SEED.BIN\n"
			"debug_seed = 00112233445566778899aAbBcCdDeEfF"; /* no \n */
	int w = parse_str(t, &c);
	static const lk_u8 seed[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
					0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb,
					0xcc, 0xdd, 0xee, 0xff };

	check(w == 0, "config_all_keys_clean", last_log);
	check(!strcmp(c.kit, "\\A\\B.KIT"), "config_kit_path_slashes", c.kit);
	check(!strcmp(c.fallback, "\\X\\FB.ELF"), "config_fallback_comment",
	      c.fallback);
	check(!strcmp(c.cmdline, "console=com0 a#b"), "config_cmdline",
	      c.cmdline);
	check(c.protocol == LK_PROTO_OPENBSD, "config_protocol", "not openbsd");
	check(c.timeout == 5 && c.verbose == 2, "config_numbers", "values");
	check(!strcmp(c.seed_file, "\\RELINK\\SEED.BIN"),
	      "config_seed_file_leading_sep", c.seed_file);
	check(c.debug_seed_len == 16 && !memcmp(c.debug_seed, seed, 16),
	      "config_debug_seed_no_newline", "seed bytes");
	parse_str("protocol=none\nprotocol = multiboot2", &c);
	check(c.protocol == LK_PROTO_MULTIBOOT2, "config_protocol_last_wins",
	      "protocol");
}

struct bad_case {
	const char *name, *text, *expect_in_log;
};

static void test_bad_lines(void)
{
	static const struct bad_case cases[] = {
		{ "config_unknown_key", "colour = blue\n", "colour" },
		{ "config_no_equals", "just words\n", "without '='" },
		{ "config_bad_protocol", "protocol = netbsd\n", "protocol" },
		{ "config_verbose_range", "verbose = 3\n", "verbose" },
		{ "config_timeout_overflow", "timeout = 99999999999\n",
		  "timeout" },
		{ "config_timeout_not_number", "timeout = 1x\n", "timeout" },
		{ "config_seed_odd", "debug_seed = 123\n", "debug_seed" },
		{ "config_seed_nonhex", "debug_seed = zz\n", "debug_seed" },
		{ "config_empty_path", "kit =\n", "kit" },
		{ "config_ctrl_char", "cmdline = a\001b\n", "cmdline" },
		{ "config_nonprint_key", "\x80\x81 = 1\n", "??" },
	};
	struct lk_config c;
	lk_size i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int w = parse_str(cases[i].text, &c);
		char why[600];
		snprintf(why, sizeof(why), "warnings %d logs %d last '%s'", w,
			 nlogs, last_log);
		check(w == 1 && nlogs == 1 &&
			      strstr(last_log, cases[i].expect_in_log) &&
			      strstr(last_log, "RELINK.CFG:1:"),
		      cases[i].name, why);
	}
	/* A bad value leaves the default in place. */
	parse_str("verbose = 7\nkit = \n", &c);
	check(c.verbose == 0 && !strcmp(c.kit, "\\RELINK\\KERNEL.KIT"),
	      "config_bad_keeps_default", "default overwritten");
	parse_str("a\nb\nfoo = 1\n", &c);
	check(strstr(last_log, "RELINK.CFG:3:") != NULL,
	      "config_line_numbers", last_log);
}

static void test_huge(void)
{
	struct lk_config c;
	lk_size n = 200000, i;
	char *t = malloc(n);
	char path[LK_CFG_PATH_MAX + 20];
	int w;

	memset(t, 'k', n);
	memcpy(t + n - 12, "\nverbose = 1", 12);
	w = parse(t, n, &c);
	check(w == 1 && c.verbose == 1, "config_huge_line_then_valid",
	      last_log);
	/* A path one byte too long is refused, one that fits is kept. */
	memcpy(path, "kit = ", 6);
	for (i = 0; i < LK_CFG_PATH_MAX; i++)
		path[6 + i] = 'A';
	path[6 + LK_CFG_PATH_MAX - 2] = 0; /* 126 chars + added '\' */
	w = parse_str(path, &c);
	check(w == 0 && strlen(c.kit) == LK_CFG_PATH_MAX - 1,
	      "config_path_max_fits", last_log);
	path[6 + LK_CFG_PATH_MAX - 2] = 'A';
	path[6 + LK_CFG_PATH_MAX - 1] = 0;
	w = parse_str(path, &c);
	check(w == 1 && !strcmp(c.kit, "\\RELINK\\KERNEL.KIT"),
	      "config_path_too_long", last_log);
	/* Random bytes: must never crash (ASan/UBSan watch). */
	srand(1);
	for (i = 0; i < n; i++)
		t[i] = (char)(rand() % 7 == 0 ? '\n' : rand());
	parse(t, n, &c);
	check(strlen(c.cmdline) < LK_CFG_CMDLINE_MAX, "config_random_bytes",
	      "cmdline");
	/* Embedded NUL inside a value is a control character. */
	w = parse("cmdline = a\0b\n", 14, &c);
	check(w == 1 && c.cmdline[0] == 0, "config_embedded_nul", last_log);
	free(t);
	lk_config_wipe(&c);
	check(c.kit[0] == 0 && c.debug_seed_len == 0, "config_wipe", "kept");
}

/* ---- mb2 ---- */

static lk_u32 rd32(const lk_u8 *p)
{
	lk_u32 v;
	memcpy(&v, p, 4);
	return v;
}

static lk_u64 rd64(const lk_u8 *p)
{
	lk_u64 v;
	memcpy(&v, p, 8);
	return v;
}

/* Walks the tags; returns the number seen or -1 if the layout is wrong. */
static int walk(const lk_u8 *b, lk_u32 total, const lk_u8 **tags, int max)
{
	lk_u32 off = 8;
	int n = 0;

	if (rd32(b) != total || rd32(b + 4) != 0)
		return -1;
	while (off + 8 <= total) {
		lk_u32 type = rd32(b + off), size = rd32(b + off + 4);
		if ((off & 7) || size < 8 || off + size > total)
			return -1;
		if (n < max)
			tags[n] = b + off;
		n++;
		if (type == 0)
			return (size == 8 && off + 8 == total) ? n : -1;
		off += (size + 7) & ~7u;
	}
	return -1;
}

static void build(struct lk_mb2 *m, void *buf, lk_u32 cap)
{
	static const struct lk_mb2_mmap_entry map[2] = {
		{ 0, 0x9f000, 1, 0 }, { 0x100000, 0x7f00000, 1, 0 }
	};
	lk_u8 rsdp[36], shdrs[3 * 64], efimap[48 * 3];
	int i;

	for (i = 0; i < 36; i++)
		rsdp[i] = (lk_u8)i;
	memset(shdrs, 0x5a, sizeof(shdrs));
	memset(efimap, 0x33, sizeof(efimap));
	lk_mb2_begin(m, buf, cap);
	lk_mb2_cmdline(m, "console=com0");
	lk_mb2_loader_name(m, "relinkboot relinked");
	lk_mb2_basic_meminfo(m, 636, 130048);
	lk_mb2_mmap(m, map, 2);
	lk_mb2_acpi_rsdp(m, 1, rsdp, 36);
	lk_mb2_elf_sections(m, 3, 64, 2, shdrs);
	lk_mb2_efi64(m, 0x7fe12345ull);
	lk_mb2_efi_mmap(m, 48, 1, efimap, sizeof(efimap));
	lk_mb2_load_base(m, 0x1000000);
}

static void test_mb2_layout(void)
{
	static lk_u8 buf[4096] __attribute__((aligned(8)));
	const lk_u8 *t[16];
	struct lk_mb2 m;
	int r, n;

	memset(buf, 0xee, sizeof(buf));
	build(&m, buf, sizeof(buf));
	r = lk_mb2_end(&m);
	n = walk(buf, m.len, t, 16);
	check(r == 0 && n == 10 && m.need == m.len, "mb2_tags_aligned_and_sized",
	      "tag walk failed");
	if (n != 10)
		return;
	check(rd32(t[0]) == 1 && rd32(t[0] + 4) == 8 + 13 &&
		      !strcmp((const char *)t[0] + 8, "console=com0") &&
		      t[0][8 + 13] == 0 && t[0][8 + 14] == 0 && t[0][8 + 15] == 0,
	      "mb2_cmdline_tag", "cmdline tag / zeroed padding");
	check(rd32(t[1]) == 2 &&
		      !strcmp((const char *)t[1] + 8, "relinkboot relinked"),
	      "mb2_loader_name_tag", "loader");
	check(rd32(t[2]) == 4 && rd32(t[2] + 4) == 16 && rd32(t[2] + 8) == 636 &&
		      rd32(t[2] + 12) == 130048,
	      "mb2_meminfo_tag", "meminfo");
	check(rd32(t[3]) == 6 && rd32(t[3] + 4) == 16 + 48 &&
		      rd32(t[3] + 8) == 24 && rd32(t[3] + 12) == 0 &&
		      rd64(t[3] + 16 + 24) == 0x100000 &&
		      rd64(t[3] + 16 + 32) == 0x7f00000 &&
		      rd32(t[3] + 16 + 40) == 1,
	      "mb2_mmap_tag", "mmap");
	check(rd32(t[4]) == 15 && rd32(t[4] + 4) == 44 && t[4][8 + 35] == 35,
	      "mb2_rsdp_v2_tag", "rsdp");
	check(rd32(t[5]) == 9 && rd32(t[5] + 4) == 20 + 192 &&
		      rd32(t[5] + 8) == 3 && rd32(t[5] + 12) == 64 &&
		      rd32(t[5] + 16) == 2 && t[5][20] == 0x5a &&
		      t[5][20 + 191] == 0x5a,
	      "mb2_elf_sections_tag", "elf sections");
	check(rd32(t[6]) == 12 && rd32(t[6] + 4) == 16 &&
		      rd64(t[6] + 8) == 0x7fe12345ull,
	      "mb2_efi64_tag", "efi64");
	check(rd32(t[7]) == 17 && rd32(t[7] + 4) == 16 + 144 &&
		      rd32(t[7] + 8) == 48 && rd32(t[7] + 12) == 1,
	      "mb2_efi_mmap_tag", "efi mmap");
	check(rd32(t[8]) == 21 && rd32(t[8] + 4) == 12 &&
		      rd32(t[8] + 8) == 0x1000000,
	      "mb2_load_base_tag", "load base");
}

static void test_mb2_overflow(void)
{
	static lk_u8 big[4096] __attribute__((aligned(8)));
	struct lk_mb2 m;
	lk_u8 *small = malloc(256);
	lk_u32 need;

	build(&m, big, sizeof(big));
	lk_mb2_end(&m);
	need = m.len;
	build(&m, small, 256);
	check(lk_mb2_end(&m) != 0 && m.need == need && m.len <= 256,
	      "mb2_overflow_reports_need", "overflow not reported");
	free(small);
	lk_mb2_begin(&m, big + 4, 100);
	lk_mb2_cmdline(&m, "x");
	check(lk_mb2_end(&m) != 0, "mb2_rejects_misaligned", "accepted");
}

static void test_mb2_map(void)
{
	struct lk_mb2_mmap_entry e[6] = {
		{ 0x100000, 0x100000, 1, 7 }, { 0, 0x9f000, 1, 0 },
		{ 0x200000, 0x300000, 1, 0 }, { 0x9f000, 0x1000, 2, 0 },
		{ 0x500000, 0, 1, 0 },	      { 0x600000, 0x1000, 3, 0 },
	};
	lk_u32 lo, hi, n = lk_mb2_map_normalize(e, 6);

	check(n == 4 && e[0].addr == 0 && e[1].addr == 0x9f000 &&
		      e[2].addr == 0x100000 && e[2].len == 0x400000 &&
		      e[2].zero == 0 && e[3].type == 3,
	      "mb2_map_normalize", "sort/merge");
	lk_mb2_meminfo_from_map(e, n, &lo, &hi);
	check(lo == 636 && hi == 4 * 1024, "mb2_meminfo_from_map", "values");
	check(lk_mb2_type_from_efi(7) == 1 && lk_mb2_type_from_efi(4) == 1 &&
		      lk_mb2_type_from_efi(9) == 3 &&
		      lk_mb2_type_from_efi(10) == 4 &&
		      lk_mb2_type_from_efi(0) == 2 &&
		      lk_mb2_type_from_efi(11) == 2,
	      "mb2_type_from_efi", "mapping");
}

static lk_u8 *read_self(long *size)
{
	FILE *f = fopen("/proc/self/exe", "rb");
	lk_u8 *p;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*size = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc(*size);
	if (fread(p, 1, *size, f) != (size_t)*size) {
		free(p);
		p = NULL;
	}
	fclose(f);
	return p;
}

static void test_elf_view(void)
{
	long size;
	lk_u8 *f = read_self(&size), *out;
	lk_u32 num, ent, shndx, i, found = 0;
	lk_u64 used;
	int r;

	if (!f) {
		printf("skip mb2_elf_view: cannot read /proc/self/exe\n");
		return;
	}
	r = lk_mb2_elf_view_from_file(f, size, NULL, 0, 0, &num, &ent, &shndx,
				      &used);
	check(r == 0 && num > 3 && ent == 64 && used > num * 64u,
	      "mb2_elf_view_measure", "measure failed");
	out = malloc(used);
	r = lk_mb2_elf_view_from_file(f, size, out, used - 1, 0x400000, &num,
				      &ent, &shndx, &used);
	check(r != 0, "mb2_elf_view_too_small", "accepted short buffer");
	r = lk_mb2_elf_view_from_file(f, size, out, used, 0x400000, &num, &ent,
				      &shndx, &used);
	for (i = 0; r == 0 && i < num; i++) {
		const lk_u8 *sh = out + i * 64;
		lk_u64 addr = rd64(sh + 0x10), sz = rd64(sh + 0x20);
		if (rd32(sh + 4) != 2) /* SHT_SYMTAB */
			continue;
		found = addr >= 0x400000 && addr - 0x400000 + sz <= used &&
			(addr & 7) == 0 &&
			!memcmp(out + (addr - 0x400000),
				f + rd64(f + rd64(f + 0x28) + i * 64 + 0x18), sz);
	}
	check(r == 0 && found, "mb2_elf_view_symtab_copied",
	      "symtab missing or wrong");
	/* Debug sections stay behind: the view is smaller than them all. */
	found = 0;
	for (i = 0; r == 0 && i < num; i++) {
		const lk_u8 *sh = out + i * 64;
		if (rd32(sh + 4) == 1 && !(rd64(sh + 8) & 2) &&
		    rd64(sh + 0x20) > 0 && rd64(sh + 0x10) != 0)
			found++;
	}
	check(r == 0 && found == 0, "mb2_elf_view_skips_debug",
	      "a non-allocated PROGBITS section was given an address");
	/* Truncated file: section data past the end must be refused. */
	r = lk_mb2_elf_view_from_file(f, size / 2, NULL, 0, 0, &num, &ent,
				      &shndx, &used);
	check(r != 0, "mb2_elf_view_truncated", "accepted truncated ELF");
	f[0] = 0;
	r = lk_mb2_elf_view_from_file(f, size, NULL, 0, 0, &num, &ent, &shndx,
				      &used);
	check(r != 0, "mb2_elf_view_bad_magic", "accepted");
	free(out);
	free(f);
}

/* A Multiboot2 header at off in buf: magic, arch, length, checksum, then
 * the tags given (already 8-aligned), then the end tag. */
static lk_u32 put_mb2_header(lk_u8 *buf, lk_u32 off, const lk_u8 *tags,
			     lk_u32 tlen)
{
	lk_u32 w[4] = { 0xe85250d6u, 0, 16 + tlen + 8, 0 };
	static const lk_u8 end[8] = { 0, 0, 0, 0, 8, 0, 0, 0 };

	w[3] = 0u - (w[0] + w[1] + w[2]);
	memcpy(buf + off, w, 16);
	memcpy(buf + off + 16, tags, tlen);
	memcpy(buf + off + 16 + tlen, end, 8);
	return w[2];
}

static void test_mb2_header_reloc(void)
{
	static lk_u8 buf[40000];
	/* entry tag (3, 12 bytes padded to 16), then tag 10 */
	lk_u8 tags[40] = { 3, 0, 0, 0, 12, 0, 0, 0, 0,	0, 0, 1,
			   0, 0, 0, 0, 10, 0, 1, 0, 24, 0, 0, 0 };
	lk_u32 r10[4] = { 0x200000, 0x40000000, 0x200000, 0 };
	struct lk_mb2_reloc r;
	lk_u32 len;

	memcpy(tags + 24, r10, 16);
	memset(buf, 0, sizeof(buf));
	len = put_mb2_header(buf, 4096, tags, 40);
	check(lk_mb2_header_reloc(buf, sizeof(buf), &r) == 1 &&
		      r.min_addr == 0x200000 && r.max_addr == 0x40000000 &&
		      r.align == 0x200000 && r.preference == 0,
	      "mb2_header_reloc_found", "tag 10 not read back");
	check(lk_mb2_header_reloc(buf, 4096 + len - 1, &r) == 0,
	      "mb2_header_reloc_truncated", "header past the buffer accepted");
	tags[20] = 16; /* tag 10 of the wrong size */
	put_mb2_header(buf, 4096, tags, 40);
	check(lk_mb2_header_reloc(buf, sizeof(buf), &r) == 0,
	      "mb2_header_reloc_bad_size", "16-byte tag 10 accepted");
	tags[20] = 24;
	r10[2] = 0x300000; /* not a power of two */
	memcpy(tags + 24, r10, 16);
	put_mb2_header(buf, 4096, tags, 40);
	check(lk_mb2_header_reloc(buf, sizeof(buf), &r) == 0,
	      "mb2_header_reloc_bad_align", "align 0x300000 accepted");
	r10[2] = 0x1000;
	r10[0] = 0x50000000; /* min above max */
	memcpy(tags + 24, r10, 16);
	put_mb2_header(buf, 4096, tags, 40);
	check(lk_mb2_header_reloc(buf, sizeof(buf), &r) == 0,
	      "mb2_header_reloc_min_above_max", "min > max accepted");
	tags[4] = 200; /* the entry tag runs past the header's end */
	r10[0] = 0x200000;
	memcpy(tags + 24, r10, 16);
	put_mb2_header(buf, 4096, tags, 40);
	check(lk_mb2_header_reloc(buf, sizeof(buf), &r) == 0,
	      "mb2_header_reloc_tag_overrun", "tag past the header accepted");
	tags[4] = 12;
	memset(buf, 0, sizeof(buf));
	put_mb2_header(buf, 4096, tags, 16); /* entry tag only */
	check(lk_mb2_header_reloc(buf, sizeof(buf), &r) == 0,
	      "mb2_header_reloc_absent", "no tag 10 but found");
	memset(buf, 0, sizeof(buf));
	put_mb2_header(buf, 32768, tags, 40); /* past the first 32 KiB */
	check(lk_mb2_header_reloc(buf, sizeof(buf), &r) == 0,
	      "mb2_header_reloc_too_late", "header after 32 KiB used");
}

int main(void)
{
	test_defaults();
	test_all_keys();
	test_bad_lines();
	test_huge();
	test_mb2_layout();
	test_mb2_overflow();
	test_mb2_map();
	test_elf_view();
	test_mb2_header_reloc();
	return failures != 0;
}
