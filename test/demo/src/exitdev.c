/* Ends the QEMU run through isa-debug-exit (iobase 0xf4). */
#include "demo.h"

DEMO_OBJECT(exitdev)
DEMO_IDENT(exitdev)

void exitdev_exit(int pass)
{
	u8 v = pass ? 0x10 : 0x11;

	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"((u16)0xf4));
	/* Not under QEMU with the device: stop here. */
	for (;;)
		__asm__ volatile("cli; hlt");
}
