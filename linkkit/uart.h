/*
 * The PC's 16550 serial ports, polled (both stages' serial console: the
 * BIOS stage's only one, the UEFI stage's when `tty` names a port the
 * firmware does not write). Bounded waits: a missing UART reads 0xff and
 * a stuck one must not hang the boot.
 */
#ifndef LK_UART_H
#define LK_UART_H

#include "lk_types.h"

/* 8N1 at speed baud (a divisor of 115200), FIFO on, no interrupts. */
/* x86 port I/O (the UART, the BIOS stage's PIT). */
void lk_outb(lk_u32 port, lk_u8 v);
lk_u8 lk_inb(lk_u32 port);
void lk_uart_init(lk_u32 port, lk_u32 speed);
void lk_uart_putc(lk_u32 port, char c);
/* A waiting byte (0 read as 0xff), or 0 when none or no UART. */
int lk_uart_getc(lk_u32 port);

#endif
