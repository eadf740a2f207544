/* COM1 at 115200 8N1 and the isa-debug-exit port. */
#include "obsd.h"

#define COM1 0x3f8

static void outb(u16 port, u8 v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static u8 inb(u16 port)
{
	u8 v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

void cons_init(void)
{
	outb(COM1 + 1, 0x00);
	outb(COM1 + 3, 0x80);
	outb(COM1 + 0, 0x01);
	outb(COM1 + 1, 0x00);
	outb(COM1 + 3, 0x03);
	outb(COM1 + 2, 0xc7);
	outb(COM1 + 4, 0x03);
}

static void cons_putc(char c)
{
	int spin = 100000;

	while (!(inb(COM1 + 5) & 0x20) && --spin)
		;
	outb(COM1, (u8)c);
}

void cons_puts(const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			cons_putc('\r');
		cons_putc(*s);
	}
}

void cons_hex(u64 v)
{
	char b[19];
	int i;

	b[0] = '0';
	b[1] = 'x';
	for (i = 0; i < 16; i++)
		b[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 15];
	b[18] = 0;
	cons_puts(b);
}

void cons_dec(u64 v)
{
	char b[21];
	int i = 20;

	b[i] = 0;
	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	cons_puts(b + i);
}

void cons_exit(int pass)
{
	outb(0xf4, pass ? 0x10 : 0x11);
	for (;;)
		__asm__ volatile("cli; hlt");
}
