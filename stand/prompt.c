/* Key polling (serial line and keyboard) and delays for the shared
 * boot prompt. */
#include "bios.h"
#include "stand.h"

/* INT 15h AH=86h: wait CX:DX microseconds (SeaBIOS, every PC BIOS). */
void stand_delay_us(struct lk_boot *b, lk_u32 us)
{
	struct bios_regs r = { 0 };

	(void)b;
	r.eax = 0x8600;
	r.ecx = us >> 16;
	r.edx = us & 0xffff;
	bios_call(0x15, &r);
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
