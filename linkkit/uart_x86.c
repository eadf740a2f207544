/* 16550 UART access by I/O port (linkkit/uart.h). */
#include "uart.h"

#if defined(__x86_64__) || defined(__i386__)

void lk_outb(lk_u32 port, lk_u8 v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"((lk_u16)port));
}

lk_u8 lk_inb(lk_u32 port)
{
	lk_u8 v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"((lk_u16)port));
	return v;
}

/* A port whose transmitter did not become empty within the bound: while
 * it stays full, later characters are dropped after one look at the line
 * status instead of each waiting out the bound (~0.1 s: a boot's log
 * would take minutes). It lives again once the transmitter empties (a
 * terminal that sent XOFF, a slow line) or the port is set up again. */
static lk_u32 lk_uart_dead;

void lk_uart_init(lk_u32 port, lk_u32 speed)
{
	lk_u32 div = speed && speed <= 115200 ? 115200 / speed : 1;

	if (port == lk_uart_dead)
		lk_uart_dead = 0;
	lk_outb(port + 1, 0x00); /* no interrupts: polled */
	lk_outb(port + 3, 0x80); /* DLAB: the divisor follows */
	lk_outb(port + 0, (lk_u8)div);
	lk_outb(port + 1, (lk_u8)(div >> 8));
	lk_outb(port + 3, 0x03); /* 8N1 */
	lk_outb(port + 2, 0xc7); /* FIFO on, cleared */
	lk_outb(port + 4, 0x03);
}

void lk_uart_putc(lk_u32 port, char c)
{
	lk_u32 i;

	if (port == lk_uart_dead) {
		if (!(lk_inb(port + 5) & 0x20))
			return;
		lk_uart_dead = 0;
	}
	for (i = 0; i < 100000 && !(lk_inb(port + 5) & 0x20); i++)
		;
	if (i == 100000)
		lk_uart_dead = port;
	lk_outb(port, (lk_u8)c);
}

/* A received byte, 0xff for a NUL; 0 when none waits. A byte with a
 * break, framing or parity error (LSR bits 2-4: a line left floating or
 * a console server's break) is no key press: dropped, so that noise
 * cannot stop an unattended boot at the prompt. (An overrun, bit 1,
 * lost a later byte; this one is good.) */
int lk_uart_getc(lk_u32 port)
{
	lk_u8 lsr = lk_inb(port + 5), c;

	if (lsr == 0xff || !(lsr & 0x01))
		return 0;
	c = lk_inb(port);
	if (lsr & 0x1c)
		return 0;
	return c ? c : 0xff;
}

#else

void lk_uart_init(lk_u32 port, lk_u32 speed)
{
	(void)port;
	(void)speed;
}

void lk_uart_putc(lk_u32 port, char c)
{
	(void)port;
	(void)c;
}

int lk_uart_getc(lk_u32 port)
{
	(void)port;
	return 0;
}

#endif
