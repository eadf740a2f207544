/* Console of the BIOS stage: COM1 (115200 8N1) and the VGA text screen. */
#include "bios.h"

#define COM1 0x3f8
#define VGA ((volatile lk_u16 *)0xb8000)
#define VGA_COLS 80
#define VGA_ROWS 25
#define VGA_ATTR 0x0700

static int vga_row, vga_col;

static inline void outb(lk_u16 port, lk_u8 v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline lk_u8 inb(lk_u16 port)
{
	lk_u8 v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

void cons_init(void)
{
	outb(COM1 + 1, 0x00); /* no interrupts: we poll */
	outb(COM1 + 3, 0x80); /* DLAB to set the divisor */
	outb(COM1 + 0, 0x01); /* 115200 baud */
	outb(COM1 + 1, 0x00);
	outb(COM1 + 3, 0x03); /* 8N1 */
	outb(COM1 + 2, 0xc7); /* FIFO on, cleared */
	outb(COM1 + 4, 0x03);
	vga_row = VGA_ROWS - 1; /* below whatever the BIOS printed */
	vga_col = 0;
	/* The BIOS may leave its last line open ("Booting from Hard Disk...");
	 * our lines must start at column 0 for whoever reads the serial log. */
	cons_puts("\n");
}

static void serial_putc(char c)
{
	/* Bounded: a missing UART reads 0xff, a stuck one must not hang us. */
	for (lk_u32 i = 0; i < 100000 && !(inb(COM1 + 5) & 0x20); i++)
		;
	outb(COM1, (lk_u8)c);
}

static void vga_scroll(void)
{
	for (int i = 0; i < VGA_COLS * (VGA_ROWS - 1); i++)
		VGA[i] = VGA[i + VGA_COLS];
	for (int i = 0; i < VGA_COLS; i++)
		VGA[VGA_COLS * (VGA_ROWS - 1) + i] = VGA_ATTR | ' ';
}

static void vga_putc(char c)
{
	if (c == '\n') {
		vga_col = 0;
		vga_scroll();
		return;
	}
	if (vga_col >= VGA_COLS) {
		vga_col = 0;
		vga_scroll();
	}
	VGA[vga_row * VGA_COLS + vga_col++] = VGA_ATTR | (lk_u8)c;
}

void cons_puts(const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			serial_putc('\r');
		serial_putc(*s);
		vga_putc(*s);
	}
}

/* A byte waiting on COM1, or 0. A missing UART reads 0xff everywhere. */
int cons_getc(void)
{
	lk_u8 lsr = inb(COM1 + 5), c;

	if (lsr == 0xff || !(lsr & 0x01))
		return 0;
	c = inb(COM1);
	return c ? c : 0xff;
}
