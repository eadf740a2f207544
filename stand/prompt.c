/* Key polling (serial line and keyboard) and delays for the shared
 * boot prompt. */
#include "../linkkit/cpu.h"
#include "bios.h"
#include "../linkkit/uart.h"
#include "stand.h"

#define PIT_KHZ 1193u /* 1.193182 MHz */
/* A count of 50 ms that has not ended after 2^32 TSC ticks (over 1 s
 * below 4 GHz) never will. */
#define PIT_GIVE_UP_TICKS (1ull << 32)

/*
 * PIT channel 2 as a one-shot (mode 0; gate on, speaker off): OUT2, port
 * 0x61 bit 5, rises at the terminal count, at most 50 ms per count. For
 * a BIOS whose INT 15h AH=86h fails. A count that never ends (no PIT)
 * gives the PIT up for good: a delay may then be short, never endless.
 */
static void pit_delay_us(lk_u32 us)
{
	static int no_pit;
	lk_u32 step, count;
	lk_u64 t0;

	for (; us && !no_pit; us -= step) {
		step = us < 50000 ? us : 50000;
		count = step * PIT_KHZ / 1000 + 1;
		lk_outb(0x61, (lk_inb(0x61) & 0xfc) | 0x01);
		lk_outb(0x43, 0xb0); /* channel 2, low then high byte, mode 0 */
		lk_outb(0x42, count & 0xff);
		lk_outb(0x42, count >> 8);
		t0 = lk_cpu_rdtsc();
		while (!(lk_inb(0x61) & 0x20) && !no_pit)
			no_pit = lk_cpu_rdtsc() - t0 > PIT_GIVE_UP_TICKS;
	}
}

/* INT 15h AH=86h: wait CX:DX microseconds (SeaBIOS, every PC BIOS);
 * where it fails (CF), the PIT. */
void stand_delay_us(struct lk_boot *b, lk_u32 us)
{
	struct bios_regs r = { 0 };

	(void)b;
	r.eax = 0x8600;
	r.ecx = us >> 16;
	r.edx = us & 0xffff;
	bios_call(0x15, &r);
	if (r.eflags & 1)
		pit_delay_us(us);
}

/* INT 16h AH=01h/00h: a waiting keystroke's ASCII (0xff for a non-ASCII
 * key), or 0 when none waits. */
static int kbd_poll(void)
{
	struct bios_regs r = { 0 };

	r.eax = 0x0100;
	bios_call(0x16, &r);
	if (r.eflags & 0x40) /* ZF: no key */
		return 0;
	r = (struct bios_regs){ 0 };
	bios_call(0x16, &r);
	return (r.eax & 0xff) ? (int)(r.eax & 0xff) : 0xff;
}

int stand_poll_key(struct lk_boot *b)
{
	int c = cons_getc();

	(void)b;
	return c ? c : kbd_poll();
}
