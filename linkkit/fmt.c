/*
 * A small printf for log lines: %s %c %d %i %u %x %X %p %%, the l/ll/z
 * length modifiers, the '0' and '-' flags, a width (digits or '*') and a
 * precision for %s (digits or '*', for names that are not NUL-terminated).
 * 64-bit numbers are converted without 64-bit division (i386 has no libgcc).
 */
#include "linkkit.h"

struct lk_out {
	char *buf;
	lk_size size; /* capacity including the NUL */
	lk_size len;  /* bytes stored so far */
};

struct lk_spec {
	int zero, left, is_signed, upper;
	unsigned width;
	int prec; /* -1: none */
	int lmod; /* 0 int, 1 long, 2 long long, 3 size_t */
};

static void lk_put(struct lk_out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len++] = c;
}

static void lk_pad(struct lk_out *o, char c, unsigned n)
{
	while (n--)
		lk_put(o, c);
}

/* Divides *n by 10 in 16-bit steps so every division is 32-bit. */
static unsigned lk_div10(lk_u64 *n)
{
	lk_u32 hi = (lk_u32)(*n >> 32), lo = (lk_u32)*n;
	lk_u32 qhi = hi / 10, r = hi % 10, t, q1, q0;

	t = (r << 16) | (lo >> 16);
	q1 = t / 10;
	r = t % 10;
	t = (r << 16) | (lo & 0xffff);
	q0 = t / 10;
	r = t % 10;
	*n = ((lk_u64)qhi << 32) | ((lk_u64)q1 << 16) | q0;
	return r;
}

/* Digits in reverse order into tmp; returns how many. */
static unsigned lk_digits(char *tmp, lk_u64 v, unsigned base, int upper)
{
	const char *dig = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	unsigned n = 0;

	do {
		if (base == 16) {
			tmp[n++] = dig[v & 15];
			v >>= 4;
		} else {
			tmp[n++] = dig[lk_div10(&v)];
		}
	} while (v);
	return n;
}

static void lk_emit_num(struct lk_out *o, const struct lk_spec *sp, lk_u64 v,
			int neg, unsigned base, const char *prefix)
{
	char tmp[24];
	unsigned n = lk_digits(tmp, v, base, sp->upper);
	unsigned plen = (unsigned)lk_strlen(prefix) + (neg ? 1 : 0);
	unsigned fill = sp->width > n + plen ? sp->width - n - plen : 0;

	if (!sp->left && !sp->zero)
		lk_pad(o, ' ', fill);
	if (neg)
		lk_put(o, '-');
	while (*prefix)
		lk_put(o, *prefix++);
	if (!sp->left && sp->zero)
		lk_pad(o, '0', fill);
	while (n)
		lk_put(o, tmp[--n]);
	if (sp->left)
		lk_pad(o, ' ', fill);
}

static void lk_emit_str(struct lk_out *o, const struct lk_spec *sp,
			const char *s)
{
	lk_size n, fill;

	if (!s)
		s = "(null)";
	n = sp->prec >= 0 ? lk_strnlen(s, (lk_size)sp->prec) : lk_strlen(s);
	fill = sp->width > n ? sp->width - n : 0;
	if (!sp->left)
		lk_pad(o, ' ', (unsigned)fill);
	while (n--)
		lk_put(o, *s++);
	if (sp->left)
		lk_pad(o, ' ', (unsigned)fill);
}

/* Parses flags, width, precision and length; returns the conversion. */
static const char *lk_parse_spec(const char *f, struct lk_spec *sp,
				 __builtin_va_list *ap)
{
	int w;

	lk_memset(sp, 0, sizeof(*sp));
	sp->prec = -1;
	for (;; f++) {
		if (*f == '0')
			sp->zero = 1;
		else if (*f == '-')
			sp->left = 1;
		else
			break;
	}
	if (*f == '*') {
		w = __builtin_va_arg(*ap, int);
		sp->left |= w < 0;
		sp->width = w < 0 ? 0u - (unsigned)w : (unsigned)w;
		f++;
	}
	for (; *f >= '0' && *f <= '9'; f++)
		sp->width = sp->width * 10 + (unsigned)(*f - '0');
	if (*f == '.') {
		sp->prec = 0;
		if (*++f == '*') {
			sp->prec = __builtin_va_arg(*ap, int);
			f++;
		}
		for (; *f >= '0' && *f <= '9'; f++)
			sp->prec = sp->prec * 10 + (*f - '0');
	}
	if (sp->width > 256)
		sp->width = 256; /* a log line never needs more */
	for (; *f == 'l' && sp->lmod < 2; f++)
		sp->lmod++;
	if (*f == 'z') {
		sp->lmod = 3;
		f++;
	}
	return f;
}

static lk_u64 lk_arg_unsigned(const struct lk_spec *sp, __builtin_va_list *ap)
{
	switch (sp->lmod) {
	case 1:
		return __builtin_va_arg(*ap, unsigned long);
	case 2:
		return __builtin_va_arg(*ap, unsigned long long);
	case 3:
		return __builtin_va_arg(*ap, lk_size);
	default:
		return __builtin_va_arg(*ap, unsigned int);
	}
}

static lk_i64 lk_arg_signed(const struct lk_spec *sp, __builtin_va_list *ap)
{
	switch (sp->lmod) {
	case 1:
		return __builtin_va_arg(*ap, long);
	case 2:
		return __builtin_va_arg(*ap, long long);
	case 3:
		return (lk_i64) __builtin_va_arg(*ap, lk_size);
	default:
		return __builtin_va_arg(*ap, int);
	}
}

static void lk_convert(struct lk_out *o, struct lk_spec *sp, char conv,
		       __builtin_va_list *ap)
{
	lk_i64 sv;

	switch (conv) {
	case 'd':
	case 'i':
		sv = lk_arg_signed(sp, ap);
		/* Negate in unsigned arithmetic so INT64_MIN works. */
		lk_emit_num(o, sp, sv < 0 ? 0 - (lk_u64)sv : (lk_u64)sv, sv < 0,
			    10, "");
		break;
	case 'u':
		lk_emit_num(o, sp, lk_arg_unsigned(sp, ap), 0, 10, "");
		break;
	case 'X':
		sp->upper = 1;
		/* fall through */
	case 'x':
		lk_emit_num(o, sp, lk_arg_unsigned(sp, ap), 0, 16, "");
		break;
	case 'p':
		lk_emit_num(o, sp, (lk_uptr) __builtin_va_arg(*ap, void *), 0,
			    16, "0x");
		break;
	case 'c':
		lk_put(o, (char)__builtin_va_arg(*ap, int));
		break;
	case 's':
		lk_emit_str(o, sp, __builtin_va_arg(*ap, const char *));
		break;
	default: /* '%' and unknown conversions print themselves */
		lk_put(o, conv);
		break;
	}
}

int lk_vsnprintf(char *buf, lk_size size, const char *fmt, __builtin_va_list ap)
{
	struct lk_out o = { buf, size, 0 };
	struct lk_spec sp;
	__builtin_va_list aq;

	__builtin_va_copy(aq, ap);
	while (*fmt) {
		if (*fmt != '%') {
			lk_put(&o, *fmt++);
			continue;
		}
		fmt = lk_parse_spec(fmt + 1, &sp, &aq);
		if (!*fmt)
			break;
		lk_convert(&o, &sp, *fmt++, &aq);
	}
	__builtin_va_end(aq);
	if (size)
		buf[o.len] = '\0';
	return (int)o.len;
}

int lk_snprintf(char *buf, lk_size size, const char *fmt, ...)
{
	__builtin_va_list ap;
	int n;

	__builtin_va_start(ap, fmt);
	n = lk_vsnprintf(buf, size, fmt, ap);
	__builtin_va_end(ap);
	return n;
}

/* Names in log lines come from untrusted kits, ELF files and configs: a
 * control byte there (newline, CR, ESC) could split the line or forge
 * console output such as a fake "demo: PASS" (found by fuzz/). */
static void lk_log_sanitize(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
			*s = '?';
}

void lk_log(const struct lk_host *h, int level, const char *fmt, ...)
{
	char line[256];
	__builtin_va_list ap;

	if (!h || !h->log || level > h->log_level)
		return;
	__builtin_va_start(ap, fmt);
	lk_vsnprintf(line, sizeof(line), fmt, ap);
	__builtin_va_end(ap);
	lk_log_sanitize(line);
	h->log(h->ctx, level, line);
}
