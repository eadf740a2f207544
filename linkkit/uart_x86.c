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

void lk_uart_init(lk_u32 port, lk_u32 speed)
{
	lk_u32 div = speed && speed <= 115200 ? 115200 / speed : 1;

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
	for (lk_u32 i = 0; i < 100000 && !(lk_inb(port + 5) & 0x20); i++)
		;
	lk_outb(port, (lk_u8)c);
}

int lk_uart_getc(lk_u32 port)
{
	lk_u8 lsr = lk_inb(port + 5), c;

	if (lsr == 0xff || !(lsr & 0x01))
		return 0;
	c = lk_inb(port);
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
