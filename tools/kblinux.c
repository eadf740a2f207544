/*
 * `linkkit create --linux DIR`: the inputs of a Linux x86-64 build tree as
 * `make` leaves it, in the order scripts/link-vmlinux.sh (6.1) links
 * vmlinux:
 *
 *   --whole-archive vmlinux.a .vmlinux.export.o init/version-timestamp.o
 *   --no-whole-archive --start-group $(KBUILD_VMLINUX_LIBS) --end-group
 *   .tmp_vmlinux.kallsymsN.o
 *
 * vmlinux.a is a thin archive (`ar cDPrST`): its members are read here from
 * the archive's own member table, in order, each a path relative to DIR.
 * The script is DIR/arch/x86/kernel/vmlinux.lds, unchanged. Each object is
 * named in the kit by that relative path (Linux reuses basenames: core.o,
 * ...), so `linkkit link --print-layout` gives paths an ld command line
 * run in DIR takes as they are.
 *
 * Refused, with one line each: builds linked from one vmlinux.o (Clang LTO,
 * IBT: link-vmlinux.sh uses vmlinux.o instead of vmlinux.a, and objtool has
 * run on the whole), builds without CONFIG_MODULES (lib.a members are then
 * pulled by need from a --start-group, which this reader does not
 * resolve), BTF (resolve_btfids patches the linked vmlinux) and
 * BUILDTIME_MCOUNT_SORT (__mcount_loc sorted by sorttable: not done at
 * boot yet).
 *
 * The built-in policy (kb_linux_policy below) pins the head objects,
 * keeps the order-sensitive tables in link order and asks for the tables
 * scripts/sorttable sorts to be sorted after every link.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kb.h"

/* scripts/head-object-list.txt (6.1), the x86-64 entries, in that order:
 * the kernel's Makefile moves them to the front of vmlinux.a. head_64.o's
 * startup_64 must be the first byte of .text (_text; the decompressor
 * and phys_startup_64 enter there). */
static const char *const lx_head[] = {
	"arch/x86/kernel/head_64.o",
	"arch/x86/kernel/head64.o",
	"arch/x86/kernel/ebda.o",
	"arch/x86/kernel/platform-quirks.o",
};

/*
 * Input sections whose order is behaviour: the kernel walks them from
 * start to stop symbol and either calls every entry in turn or takes the
 * first that matches (the consumer, in Linux 6.1's sources, beside each
 * line; order-insensitive ones kept too where a duplicate name would
 * make the first match win: __param, .builtin_fw). Everything else
 * bracketed by start/stop symbols in vmlinux.lds is looked up, sorted at
 * boot (__jump_table, .static_call_sites), sorted by the script
 * (SORT(___ksymtab+*)) or sorted after the link (`sort-tables linux`:
 * __ex_table, ORC).
 */
static const char lx_keep[] =
	"keep-order .initcall*\n"          /* do_initcalls, per level */
	"keep-order .con_initcall.init\n"  /* console_init */
	"keep-order .init.setup\n"         /* do_early_param, obsolete_checksetup */
	"keep-order .apicdrivers\n"        /* default_acpi_madt_oem_check, ... */
	"keep-order .x86_cpu_dev.init\n"   /* early_cpu_init: cpu_devs[] */
	"keep-order .pci_fixup_*\n"        /* pci_do_fixups: every match, in order */
	"keep-order __earlycon_table\n"    /* setup_earlycon: first match */
	"keep-order .lsm_info.init .early_lsm_info.init\n" /* LSM init order */
	"keep-order __irqchip_acpi_probe_table\n" /* acpi_probe_device_table */
	"keep-order __timer_acpi_probe_table\n" /* the same, for timers */
	"keep-order __governor_thermal_table\n" /* thermal_register_governors */
	"keep-order .kunit_test_suites\n"  /* kunit_run_all_tests, in order */
	"keep-order __param\n"             /* parse_args: first match */
	"keep-order __dyndbg __dyndbg_classes\n" /* one run per module */
	"keep-order _ftrace_events _ftrace_eval_map\n" /* registration order */
	"keep-order .builtin_fw\n";         /* first match by name */

/* The text after "CONFIG_X=" on its line of the build's configuration,
 * or NULL when the option is not set. */
static const char *cfg_value(const char *cfg, const char *opt)
{
	size_t n = strlen(opt);

	for (const char *l = cfg; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, opt, n) && l[n] == '=')
			return l + n + 1;
	return NULL;
}

/* CONFIG_X=y. */
static int cfg_y(const char *cfg, const char *opt)
{
	const char *v = cfg_value(cfg, opt);

	return v && v[0] == 'y' && (v[1] == '\n' || v[1] == '\0');
}

struct lx_list {
	char **v;
	size_t n;
};

static void lx_add(struct lx_list *l, char *s)
{
	l->v = kb_xgrow(l->v, l->n, sizeof(*l->v));
	l->v[l->n++] = s;
}

/* A member path as a thin archive of a kernel tree holds it: relative,
 * no `..`, no empty component, printable, ending in .o. */
static const char *bad_member(const char *s, size_t n)
{
	if (!n || n > 4096)
		return "empty or too long";
	if (s[0] == '/')
		return "an absolute path";
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e)
			return "a name with spaces or control bytes";
	for (size_t i = 0; i < n;) {
		size_t k = i;

		while (k < n && s[k] != '/')
			k++;
		if (k == i || (k - i == 2 && s[i] == '.' && s[i + 1] == '.') ||
		    (k - i == 1 && s[i] == '.'))
			return "a path with an empty, `.` or `..` component";
		i = k + 1;
	}
	if (n < 3 || memcmp(s + n - 2, ".o", 2))
		return "not an object (*.o; nested archives are not supported)";
	return NULL;
}

/* A decimal header field, space-padded; `slash`: a trailing `/` is
 * allowed too (GNU ar leaves one in the last byte of some long-name
 * references of thin archives: "/6719          /"). */
static long field(const uint8_t *h, size_t off, size_t len, int slash)
{
	long v = 0;
	size_t i = 0;

	while (i < len && h[off + i] == ' ')
		i++;
	if (i == len)
		return -1;
	for (; i < len && h[off + i] != ' ' && h[off + i] != '/'; i++) {
		if (h[off + i] < '0' || h[off + i] > '9' || v > 1000000000L)
			return -1;
		v = v * 10 + (h[off + i] - '0');
	}
	for (; i < len; i++)
		if (h[off + i] != ' ' && !(slash && h[off + i] == '/' && i == len - 1))
			return -1;
	return v;
}

/*
 * The members of a GNU thin archive, in order. Layout (ar(5) as GNU ar
 * writes it with T): "!<thin>\n", then 60-byte headers {name[16],
 * date[12], uid[6], gid[6], mode[8], size[10], "`\n"}. The symbol tables
 * ("/", "/SYM64/") and the long-name table ("//") carry their bytes (each
 * padded to an even size); a member carries none. A member's name is
 * "/OFFSET" into the long-name table, whose entries end with "/\n", or a
 * short "NAME/".
 */
int kb_thin_members(const char *path, char ***out, size_t *nout)
{
	size_t len, pos = 8;
	uint8_t *a = kb_slurp(path, &len, (size_t)1 << 30);
	const char *names = NULL;
	size_t names_len = 0;
	struct lx_list l = { 0 };

	if (!a) {
		fprintf(stderr, "linkkit: %s: cannot read\n", path);
		return -1;
	}
	if (len < 8 || memcmp(a, "!<thin>\n", 8)) {
		fprintf(stderr, "linkkit: %s: not a thin archive (`!<thin>` magic missing)\n",
			path);
		free(a);
		return -1;
	}
	while (pos < len) {
		const uint8_t *h = a + pos;
		long size;
		const char *nm;
		size_t nlen;
		const char *why;

		if (len - pos < 60 || h[58] != '`' || h[59] != '\n' ||
		    (size = field(h, 48, 10, 0)) < 0) {
			fprintf(stderr, "linkkit: %s: bad member header at offset %zu\n", path,
				pos);
			goto bad;
		}
		pos += 60;
		if (!memcmp(h, "/               ", 16) || !memcmp(h, "/SYM64/         ", 16) ||
		    !memcmp(h, "//              ", 16)) {
			if ((size_t)size > len - pos) {
				fprintf(stderr, "linkkit: %s: table at offset %zu runs past the end\n",
					path, pos - 60);
				goto bad;
			}
			if (h[1] == '/') {
				names = (const char *)a + pos;
				names_len = (size_t)size;
			}
			pos += (size_t)size + ((size_t)size & 1);
			continue;
		}
		if (h[0] == '/') {
			long off = field(h, 1, 15, 1);

			if (off < 0 || !names || (size_t)off >= names_len) {
				fprintf(stderr, "linkkit: %s: member at offset %zu: bad long-name "
						"reference\n", path, pos - 60);
				goto bad;
			}
			nm = names + off;
			for (nlen = 0; off + nlen + 1 < names_len &&
				       !(nm[nlen] == '/' && nm[nlen + 1] == '\n');
			     nlen++)
				;
			if (off + nlen + 1 >= names_len) {
				fprintf(stderr, "linkkit: %s: member at offset %zu: long name not "
						"terminated\n", path, pos - 60);
				goto bad;
			}
		} else {
			nm = (const char *)h;
			for (nlen = 0; nlen < 16 && nm[nlen] != '/'; nlen++)
				;
			if (nlen == 16) {
				fprintf(stderr, "linkkit: %s: member at offset %zu: short name "
						"without `/`\n", path, pos - 60);
				goto bad;
			}
		}
		if ((why = bad_member(nm, nlen))) {
			fprintf(stderr, "linkkit: %s: member '%.*s': %s\n", path,
				(int)(nlen > 200 ? 200 : nlen), nm, why);
			goto bad;
		}
		for (size_t i = 0; i < l.n; i++)
			if (strlen(l.v[i]) == nlen && !memcmp(l.v[i], nm, nlen)) {
				fprintf(stderr, "linkkit: %s: member '%s' is listed twice\n", path,
					l.v[i]);
				goto bad;
			}
		{
			char *s = kb_xcalloc(nlen + 1, 1);

			memcpy(s, nm, nlen);
			lx_add(&l, s);
		}
	}
	if (!l.n) {
		fprintf(stderr, "linkkit: %s: no members\n", path);
		goto bad;
	}
	free(a);
	*out = l.v;
	*nout = l.n;
	return 0;
bad:
	for (size_t i = 0; i < l.n; i++)
		free(l.v[i]);
	free(l.v);
	free(a);
	return -1;
}

/* The configuration the build used: include/config/auto.conf (what make
 * reads), else .config. One line when refused. */
/* What the build's configuration decides for the kit. */
struct lx_cfg {
	int sort, modules, kallsyms;
	unsigned long long base_step; /* random-base: CONFIG_PHYSICAL_ALIGN, 0: none */
};

/* CONFIG_X=NUMBER in the configuration text, or 0. */
static unsigned long long cfg_num(const char *cfg, const char *opt)
{
	const char *v = cfg_value(cfg, opt);

	return v ? strtoull(v, NULL, 0) : 0;
}

static int check_config(const char *dir, struct lx_cfg *x)
{
	static const struct {
		const char *opt, *why;
	} refuse[] = {
		{ "CONFIG_LTO_CLANG", "vmlinux is linked from one vmlinux.o (LTO): "
				      "there are no objects to shuffle" },
		{ "CONFIG_X86_KERNEL_IBT", "vmlinux is linked from one vmlinux.o (IBT: "
					   "objtool ran on the whole)" },
		{ "CONFIG_DEBUG_INFO_BTF", "resolve_btfids patches the linked vmlinux, "
					   "which a relink would undo" },
		{ "CONFIG_BUILDTIME_MCOUNT_SORT", "__mcount_loc is sorted by scripts/sorttable, "
						  "which the boot side does not do yet" },
	};
	char *a = kb_join(dir, "include/config/auto.conf"), *c = kb_join(dir, ".config");
	const char *used = kb_is_file(a) ? a : c;
	size_t len;
	char *cfg = (char *)kb_slurp(used, &len, (size_t)16 << 20);
	int rc = -1;

	if (!cfg) {
		fprintf(stderr, "linkkit: %s: cannot read (the build's configuration)\n", used);
		goto out;
	}
	if (!cfg_y(cfg, "CONFIG_X86_64")) {
		fprintf(stderr, "linkkit: %s: CONFIG_X86_64 is not set: only x86-64 kernels "
				"are supported\n", used);
		goto out;
	}
	for (size_t i = 0; i < sizeof(refuse) / sizeof(refuse[0]); i++)
		if (cfg_y(cfg, refuse[i].opt)) {
			fprintf(stderr, "linkkit: %s: %s=y: %s; not supported\n", used,
				refuse[i].opt, refuse[i].why);
			goto out;
		}
	/* The boot side's kallsyms (linkkit/linux_kallsyms.h) is 6.1's
	 * --all-symbols --absolute-percpu --base-relative. */
	x->kallsyms = cfg_y(cfg, "CONFIG_KALLSYMS");
	if (x->kallsyms &&
	    (!cfg_y(cfg, "CONFIG_KALLSYMS_ALL") || !cfg_y(cfg, "CONFIG_KALLSYMS_BASE_RELATIVE") ||
	     !cfg_y(cfg, "CONFIG_KALLSYMS_ABSOLUTE_PERCPU"))) {
		fprintf(stderr, "linkkit: %s: CONFIG_KALLSYMS without CONFIG_KALLSYMS_ALL, "
				"_BASE_RELATIVE or _ABSOLUTE_PERCPU: which symbols kallsyms "
				"lists would depend on the layout; not supported\n", used);
		goto out;
	}
	x->modules = cfg_y(cfg, "CONFIG_MODULES");
	if (!x->modules) {
		fprintf(stderr, "linkkit: %s: CONFIG_MODULES is not set: lib/lib.a members are "
				"then linked by need from a --start-group; not supported\n", used);
		goto out;
	}
	x->sort = cfg_y(cfg, "CONFIG_BUILDTIME_TABLE_SORT");
	/* The kernel moves itself (its decompressor's KASLR) only with
	 * these; then so may the link. */
	if (cfg_y(cfg, "CONFIG_RANDOMIZE_BASE") && cfg_y(cfg, "CONFIG_RELOCATABLE"))
		x->base_step = cfg_num(cfg, "CONFIG_PHYSICAL_ALIGN");
	rc = 0;
out:
	free(cfg);
	free(a);
	free(c);
	return rc;
}

static char *make_policy(const struct kb_options *o, const struct lx_cfg *x)
{
	struct kb_buf b = { 0 };
	static const char nul = 0;

	kb_buf_add(&b, "protocol linux\ngranularity object\npin", 37);
	for (size_t i = 0; i < sizeof(lx_head) / sizeof(lx_head[0]); i++)
		for (size_t k = 0; k < o->nobjs; k++)
			if (!strcmp(o->names[k], lx_head[i])) {
				kb_buf_add(&b, " ", 1);
				kb_buf_add(&b, lx_head[i], strlen(lx_head[i]));
			}
	kb_buf_add(&b, "\n", 1);
	kb_buf_add(&b, lx_keep, sizeof(lx_keep) - 1);
	if (x->sort)
		kb_buf_add(&b, "sort-tables linux\n", 18);
	/* KASLR at link time: _text anywhere the decompressor could have put
	 * it, 2 MiB steps from 16 MiB, _end within KERNEL_IMAGE_SIZE (1 GiB
	 * with RANDOMIZE_BASE) of __START_KERNEL_map (vmlinux.lds ASSERTs
	 * it too). */
	if (x->base_step >= 4096 && !(x->base_step & (x->base_step - 1))) {
		char line[96];
		int n = snprintf(line, sizeof(line), "random-base %#llx 0xffffffffc0000000 _end\n",
				 x->base_step);
		kb_buf_add(&b, line, (size_t)n);
	}
	/* Kbuild links vmlinux with --build-id=sha1 (LDFLAGS_vmlinux). */
	kb_buf_add(&b, "build-id\n", 9);
	kb_buf_add(&b, &nul, 1);
	return (char *)b.p;
}

/*
 * Fills o->script_path, o->objs and o->names (and, without -P, the
 * built-in policy text): free with kb_linux_free.
 */
int kb_linux_inputs(const char *dir, struct kb_options *o)
{
	char *ar = kb_join(dir, "vmlinux.a"), *vo = kb_join(dir, "vmlinux.o");
	char **mem = NULL;
	size_t nmem = 0, n = 0;
	struct lx_cfg x = { 0 };
	int bad = 0, last = 0;
	char kall[64];

	o->script_path = kb_join(dir, "arch/x86/kernel/vmlinux.lds");
	if (check_config(dir, &x))
		goto fail;
	if (!kb_is_file(ar)) {
		fprintf(stderr, "linkkit: %s: missing%s\n", ar,
			kb_is_file(vo) ? " (a single vmlinux.o cannot be relinked)"
				    : " (not a built Linux tree?)");
		goto fail;
	}
	if (!kb_is_file(o->script_path)) {
		fprintf(stderr, "linkkit: %s: missing (the kernel's linker script)\n",
			o->script_path);
		goto fail;
	}
	if (kb_thin_members(ar, &mem, &nmem))
		goto fail;
	/* The last kallsyms pass link-vmlinux.sh made (2, or 3 after an
	 * extra pass); none without CONFIG_KALLSYMS. */
	for (int k = 1; k <= 3; k++) {
		char *p;

		snprintf(kall, sizeof(kall), ".tmp_vmlinux.kallsyms%d.o", k);
		p = kb_join(dir, kall);
		if (kb_is_file(p))
			last = k;
		free(p);
	}
	o->objs = kb_xcalloc(nmem + 3, sizeof(*o->objs));
	o->names = kb_xcalloc(nmem + 3, sizeof(*o->names));
	for (size_t i = 0; i < nmem; i++)
		o->names[n++] = mem[i];
	free(mem);
	if (x.modules)
		o->names[n++] = kb_xstrdup(".vmlinux.export.o");
	o->names[n++] = kb_xstrdup("init/version-timestamp.o");
	if (last) {
		snprintf(kall, sizeof(kall), ".tmp_vmlinux.kallsyms%d.o", last);
		o->names[n++] = kb_xstrdup(kall);
	}
	if (x.kallsyms && !last) {
		fprintf(stderr, "linkkit: %s: no .tmp_vmlinux.kallsyms[123].o although "
				"CONFIG_KALLSYMS is set (the build did not finish?)\n", dir);
		bad = 1;
	} else if (x.kallsyms) {
		o->ksyms_obj = o->names[n - 1];
		o->ksyms_map = kb_join(dir, "System.map");
	}
	o->nobjs = n;
	for (size_t i = 0; i < n; i++) {
		o->objs[i] = kb_join(dir, o->names[i]);
		if (!kb_is_file(o->objs[i])) {
			fprintf(stderr, "linkkit: %s: missing (%s)\n", o->objs[i],
				i < nmem ? "a member of vmlinux.a" : "linked after vmlinux.a");
			bad = 1;
		}
	}
	if (n && strcmp(o->names[0], lx_head[0])) {
		fprintf(stderr, "linkkit: %s: the first member is %s, not %s (whose startup_64 "
				"begins .text)\n", ar, o->names[0], lx_head[0]);
		bad = 1;
	}
	if (!bad && !o->policy_path)
		o->policy_text = make_policy(o, &x);
	free(ar);
	free(vo);
	return bad ? -1 : 0;
fail:
	free(ar);
	free(vo);
	return -1;
}

void kb_linux_free(struct kb_options *o)
{
	for (size_t i = 0; i < o->nobjs; i++) {
		free((char *)o->objs[i]);
		free((char *)o->names[i]);
	}
	free(o->objs);
	free(o->names);
	free((char *)o->script_path);
	free((char *)o->ksyms_map);
	o->ksyms_map = o->ksyms_obj = NULL;
	if (!o->policy_path)
		free((char *)o->policy_text);
	o->objs = o->names = NULL;
	o->script_path = o->policy_text = NULL;
	o->nobjs = 0;
}
