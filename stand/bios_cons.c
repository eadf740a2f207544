/* Console of the BIOS stage: a UART (COM1 at 115200 8N1 until `tty` or
 * `stty` say otherwise) and the VGA text screen. */
#include "bios.h"
#include "../linkkit/uart.h"

#define COM1 0x3f8
#define VGA ((volatile lk_u16 *)0xb8000)
#define VGA_COLS 80
#define VGA_ROWS 25
#define VGA_ATTR 0x0700

static int vga_row, vga_col;
static lk_u32 com = COM1;

void cons_set_uart(lk_u32 port, lk_u32 speed)
{
	com = port;
	lk_uart_init(com, speed);
}

void cons_init(void)
{
	lk_uart_init(COM1, 115200);
	vga_row = VGA_ROWS - 1; /* below whatever the BIOS printed */
	vga_col = 0;
	/* The BIOS may leave its last line open ("Booting from Hard Disk...");
	 * our lines must start at column 0 for whoever reads the serial log. */
	cons_puts("\n");
}

static void serial_putc(char c)
{
	lk_uart_putc(com, c);
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

int cons_getc(void)
{
	return lk_uart_getc(com);
}
