/*
 * RELINK.CFG parser (see config.h). The file comes from disk and is
 * untrusted: every line is bounded, every value is length-checked, and a
 * problem costs one warning line, never the boot.
 */
#include "config.h"
#include "kit_format.h"
#include "linkkit.h"
#include "proto/obsd_opts.h"
#include "proto/proto.h"

#define LK_CFG_DEFAULT_KIT "\\RELINK\\KERNEL.KIT"
#define LK_CFG_DEFAULT_FALLBACK "\\RELINK\\FALLBACK.ELF"

/* A slice of the input; never NUL-terminated. */
struct lk_cfg_str {
	const char *p;
	lk_size n;
};

struct lk_cfg_ctx {
	const struct lk_host *h;
	const char *name;
	lk_u32 line;
	int warnings;
};

static void lk_cfg_copy_str(char *dst, const char *src, lk_size cap)
{
	lk_size n = lk_strnlen(src, cap - 1);

	lk_memcpy(dst, src, n);
	dst[n] = 0;
}

void lk_config_defaults(struct lk_config *c)
{
	lk_memset(c, 0, sizeof(*c));
	lk_cfg_copy_str(c->kit, LK_CFG_DEFAULT_KIT, sizeof(c->kit));
	lk_cfg_copy_str(c->fallback, LK_CFG_DEFAULT_FALLBACK,
			sizeof(c->fallback));
	c->protocol = LK_PROTO_MULTIBOOT2;
}

void lk_config_wipe(struct lk_config *c)
{
	lk_wipe(c, sizeof(*c));
}

static int lk_cfg_is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' ||
	       ch == '\v';
}

static struct lk_cfg_str lk_cfg_trim(struct lk_cfg_str s)
{
	while (s.n && lk_cfg_is_space(s.p[0])) {
		s.p++;
		s.n--;
	}
	while (s.n && lk_cfg_is_space(s.p[s.n - 1]))
		s.n--;
	return s;
}

static int lk_cfg_eq(struct lk_cfg_str s, const char *lit)
{
	lk_size n = lk_strlen(lit);

	return s.n == n && lk_memcmp(s.p, lit, n) == 0;
}

/* Key names are logged, so only show a bounded printable prefix of them. */
static void lk_cfg_printable(struct lk_cfg_str s, char *out, lk_size cap)
{
	lk_size i;

	for (i = 0; i < s.n && i + 1 < cap; i++) {
		char ch = s.p[i];
		out[i] = (ch >= 0x20 && ch < 0x7f) ? ch : '?';
	}
	out[i] = 0;
}

static void lk_cfg_warn(struct lk_cfg_ctx *x, const char *what,
			struct lk_cfg_str key)
{
	char k[40];

	lk_cfg_printable(key, k, sizeof(k));
	lk_log(x->h, LK_LOG_WARN, "%s:%u: %s '%s'", x->name, x->line, what,
	       k);
	x->warnings++;
}

/* A value's `#` comment starts only after whitespace, so `a#b` survives. */
static struct lk_cfg_str lk_cfg_strip_comment(struct lk_cfg_str v)
{
	lk_size i;

	for (i = 0; i < v.n; i++) {
		if (v.p[i] == '#' && (i == 0 || lk_cfg_is_space(v.p[i - 1]))) {
			v.n = i;
			break;
		}
	}
	return lk_cfg_trim(v);
}

static int lk_cfg_has_ctrl(struct lk_cfg_str v)
{
	lk_size i;

	for (i = 0; i < v.n; i++)
		if ((unsigned char)v.p[i] < 0x20 || v.p[i] == 0x7f)
			return 1;
	return 0;
}

static int lk_cfg_set_string(char *dst, lk_size cap, struct lk_cfg_str v)
{
	if (v.n >= cap || lk_cfg_has_ctrl(v))
		return -1;
	lk_memcpy(dst, v.p, v.n);
	dst[v.n] = 0;
	return 0;
}

/* Stores a path with `\` separators and a leading `\`. */
static int lk_cfg_set_path(char *dst, lk_size cap, struct lk_cfg_str v)
{
	lk_size i, o = 0;

	if (v.n == 0 || lk_cfg_has_ctrl(v))
		return -1;
	if (v.p[0] != '\\' && v.p[0] != '/')
		dst[o++] = '\\';
	if (o + v.n >= cap)
		return -1;
	for (i = 0; i < v.n; i++)
		dst[o++] = v.p[i] == '/' ? '\\' : v.p[i];
	dst[o] = 0;
	return 0;
}

static int lk_cfg_parse_u32(struct lk_cfg_str v, lk_u32 max, lk_u32 *out)
{
	lk_u32 val = 0;
	lk_size i;

	if (v.n == 0 || v.n > 10)
		return -1;
	for (i = 0; i < v.n; i++) {
		lk_u32 d;
		if (v.p[i] < '0' || v.p[i] > '9')
			return -1;
		d = (lk_u32)(v.p[i] - '0');
		if (d > max || val > (max - d) / 10)
			return -1;
		val = val * 10 + d;
	}
	*out = val;
	return 0;
}

static int lk_cfg_hex_digit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static int lk_cfg_parse_seed(struct lk_cfg_str v, struct lk_config *c)
{
	lk_u8 tmp[LK_CFG_SEED_MAX];
	lk_size i;

	if (v.n == 0 || (v.n & 1) || v.n / 2 > LK_CFG_SEED_MAX)
		return -1;
	for (i = 0; i < v.n; i += 2) {
		int hi = lk_cfg_hex_digit(v.p[i]);
		int lo = lk_cfg_hex_digit(v.p[i + 1]);
		if (hi < 0 || lo < 0) {
			lk_wipe(tmp, sizeof(tmp));
			return -1;
		}
		tmp[i / 2] = (lk_u8)(hi << 4 | lo);
	}
	lk_memcpy(c->debug_seed, tmp, v.n / 2);
	c->debug_seed_len = (lk_u32)(v.n / 2);
	lk_wipe(tmp, sizeof(tmp));
	return 0;
}

static int lk_cfg_parse_protocol(struct lk_cfg_str v, lk_u32 *out)
{
	const struct lk_proto *p = lk_proto_by_name(v.p, v.n);

	if (!p)
		return -1;
	*out = p->id;
	return 0;
}

/* Returns 0 if applied, -1 for a bad value, -2 for an unknown key. */
static int lk_cfg_parse_pubkey(struct lk_cfg_str v, struct lk_config *c)
{
	struct lk_pubkey pk;

	if (lk_pubkey_parse(v.p, v.n, &pk))
		return -1;
	lk_memcpy(c->pubkey_keynum, pk.keynum, 8);
	lk_memcpy(c->pubkey, pk.key, 32);
	c->pubkey_set = 1;
	return 0;
}

int lk_config_pubkey(const struct lk_config *c, const char *builtin,
		     struct lk_pubkey *out)
{
	if (builtin && builtin[0])
		return lk_pubkey_parse(builtin, lk_strlen(builtin), out) ? -1 : 1;
	if (!c->pubkey_set)
		return 0;
	lk_memcpy(out->keynum, c->pubkey_keynum, 8);
	lk_memcpy(out->key, c->pubkey, 32);
	return 1;
}

static int lk_cfg_apply(struct lk_config *c, struct lk_cfg_str k,
			struct lk_cfg_str v)
{
	if (lk_cfg_eq(k, "kit"))
		return lk_cfg_set_path(c->kit, sizeof(c->kit), v);
	if (lk_cfg_eq(k, "fallback"))
		return lk_cfg_set_path(c->fallback, sizeof(c->fallback), v);
	if (lk_cfg_eq(k, "seed_file"))
		return lk_cfg_set_path(c->seed_file, sizeof(c->seed_file), v);
	if (lk_cfg_eq(k, "initrd"))
		return lk_cfg_set_path(c->initrd, sizeof(c->initrd), v);
	if (lk_cfg_eq(k, "cmdline"))
		return lk_cfg_set_string(c->cmdline, sizeof(c->cmdline), v);
	if (lk_cfg_eq(k, "protocol"))
		return lk_cfg_parse_protocol(v, &c->protocol);
	if (lk_cfg_eq(k, "timeout"))
		return lk_cfg_parse_u32(v, 3600, &c->timeout);
	if (lk_cfg_eq(k, "verbose"))
		return lk_cfg_parse_u32(v, 2, &c->verbose);
	if (lk_cfg_eq(k, "debug_seed"))
		return lk_cfg_parse_seed(v, c);
	if (lk_cfg_eq(k, "pubkey"))
		return lk_cfg_parse_pubkey(v, c);
	if (lk_cfg_eq(k, "howto"))
		return lk_obsd_parse_howto(v.p, v.n, &c->obsd.howto);
	if (lk_cfg_eq(k, "root"))
		return lk_obsd_parse_root(v.p, v.n, &c->obsd);
	if (lk_cfg_eq(k, "tty"))
		return lk_obsd_parse_tty(v.p, v.n, &c->obsd);
	if (lk_cfg_eq(k, "stty"))
		return lk_obsd_parse_stty(v.p, v.n, &c->obsd);
	return -2;
}

static void lk_cfg_line(struct lk_cfg_ctx *x, struct lk_config *c,
			struct lk_cfg_str line)
{
	struct lk_cfg_str k, v;
	lk_size eq;
	int r;

	line = lk_cfg_trim(line);
	if (line.n == 0 || line.p[0] == '#')
		return;
	for (eq = 0; eq < line.n && line.p[eq] != '='; eq++)
		;
	if (eq == line.n) {
		lk_cfg_warn(x, "ignored line without '=':", line);
		return;
	}
	k = lk_cfg_trim((struct lk_cfg_str){ line.p, eq });
	v = lk_cfg_strip_comment(
		(struct lk_cfg_str){ line.p + eq + 1, line.n - eq - 1 });
	r = lk_cfg_apply(c, k, v);
	if (r == -2)
		lk_cfg_warn(x, "ignored unknown key", k);
	else if (r != 0)
		lk_cfg_warn(x, "ignored bad value for", k);
}

int lk_config_parse(const struct lk_host *h, const char *name,
		    const void *text, lk_size len, struct lk_config *c)
{
	struct lk_cfg_ctx x = { h, name, 0, 0 };
	const char *p = text;
	lk_size pos = 0;

	while (pos < len) {
		lk_size end = pos;
		while (end < len && p[end] != '\n')
			end++;
		x.line++;
		if (end - pos > LK_CFG_LINE_MAX)
			lk_cfg_warn(&x, "ignored overlong line, starts",
				    (struct lk_cfg_str){ p + pos, 16 });
		else
			lk_cfg_line(&x, c, (struct lk_cfg_str){ p + pos,
								end - pos });
		pos = end + 1;
	}
	return x.warnings;
}
