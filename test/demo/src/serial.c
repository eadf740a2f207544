/* COM1 console, 115200 8N1: the only output channel of the demo kernel. */
#include "demo.h"

#define COM1 0x3f8

DEMO_OBJECT(serial)
DEMO_IDENT(serial)

static inline void serial_outb(u16 port, u8 v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline u8 serial_inb(u16 port)
{
	u8 v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static int serial_ready;

static void serial_init(void)
{
	serial_outb(COM1 + 1, 0x00); /* no interrupts */
	serial_outb(COM1 + 3, 0x80); /* DLAB */
	serial_outb(COM1 + 0, 0x01); /* divisor 1: 115200 */
	serial_outb(COM1 + 1, 0x00);
	serial_outb(COM1 + 3, 0x03); /* 8N1 */
	serial_outb(COM1 + 2, 0xc7); /* FIFO on, cleared */
	serial_outb(COM1 + 4, 0x03); /* DTR, RTS */
	serial_ready = 1;
}
DEMO_INIT(serial_init);

void serial_putc(char c)
{
	int spin = 100000;

	if (!serial_ready)
		serial_init();
	if (c == '\n')
		serial_putc('\r');
	/* A missing UART must not hang the kernel: bounded wait. */
	while (!(serial_inb(COM1 + 5) & 0x20) && --spin)
		;
	serial_outb(COM1, (u8)c);
}

void serial_puts(const char *s)
{
	while (*s)
		serial_putc(*s++);
}
