/* Minimal printf: %c %s %d %u %x %p with '0' flag, width and 'l'. */
#include "demo.h"

DEMO_OBJECT(kprintf)
DEMO_IDENT(kprintf)

struct kprintf_out {
	char *buf; /* NULL: straight to the console */
	size_t cap;
	size_t len;
};

static void kprintf_put(struct kprintf_out *o, char c)
{
	if (!o->buf)
		serial_putc(c);
	else if (o->len + 1 < o->cap)
		o->buf[o->len] = c;
	o->len++;
}

static void kprintf_num(struct kprintf_out *o, u64 v, u32 base, int width,
			char pad, int neg)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (neg)
		tmp[n++] = '-';
	while (width-- > n)
		kprintf_put(o, pad);
	while (n)
		kprintf_put(o, tmp[--n]);
}

static void kprintf_conv(struct kprintf_out *o, char c, int lng, int width,
			 char pad, __builtin_va_list *ap)
{
	const char *s;
	long sv;

	switch (c) {
	case 'c':
		kprintf_put(o, (char)__builtin_va_arg(*ap, int));
		break;
	case 's':
		s = __builtin_va_arg(*ap, const char *);
		for (s = s ? s : "(null)"; *s; s++)
			kprintf_put(o, *s);
		break;
	case 'd':
		sv = lng ? __builtin_va_arg(*ap, long)
			 : __builtin_va_arg(*ap, int);
		kprintf_num(o, sv < 0 ? -(u64)sv : (u64)sv, 10, width, pad,
			    sv < 0);
		break;
	case 'u':
		kprintf_num(o,
			    lng ? __builtin_va_arg(*ap, u64)
				: __builtin_va_arg(*ap, u32),
			    10, width, pad, 0);
		break;
	case 'x':
		kprintf_num(o,
			    lng ? __builtin_va_arg(*ap, u64)
				: __builtin_va_arg(*ap, u32),
			    16, width, pad, 0);
		break;
	case 'p':
		kprintf_put(o, '0');
		kprintf_put(o, 'x');
		kprintf_num(o, (uptr) __builtin_va_arg(*ap, void *), 16, 16,
			    '0', 0);
		break;
	case '%':
		kprintf_put(o, '%');
		break;
	default:
		kprintf_put(o, '?');
		break;
	}
}

static void kprintf_run(struct kprintf_out *o, const char *fmt,
			__builtin_va_list ap0)
{
	__builtin_va_list ap;

	/* A va_list parameter is an array decayed to a pointer: work on a
	 * real copy so its address has the type kprintf_conv expects. */
	__builtin_va_copy(ap, ap0);
	for (; *fmt; fmt++) {
		int width = 0, lng = 0;
		char pad = ' ';

		if (*fmt != '%') {
			kprintf_put(o, *fmt);
			continue;
		}
		if (*++fmt == '0')
			pad = '0';
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		while (*fmt == 'l')
			lng = 1, fmt++;
		if (!*fmt)
			break;
		kprintf_conv(o, *fmt, lng, width, pad, &ap);
	}
	__builtin_va_end(ap);
	if (o->buf && o->cap)
		o->buf[o->len < o->cap ? o->len : o->cap - 1] = '\0';
}

void kprintf(const char *fmt, ...)
{
	struct kprintf_out o = {NULL, 0, 0};
	__builtin_va_list ap;

	__builtin_va_start(ap, fmt);
	kprintf_run(&o, fmt, ap);
	__builtin_va_end(ap);
}

int ksnprintf(char *buf, size_t cap, const char *fmt, ...)
{
	struct kprintf_out o = {buf, cap, 0};
	__builtin_va_list ap;

	__builtin_va_start(ap, fmt);
	kprintf_run(&o, fmt, ap);
	__builtin_va_end(ap);
	return (int)o.len;
}
