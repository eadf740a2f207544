/*
 * The boot prompt (config `timeout = N`): for N seconds the operator can
 * pick the prelinked fallback kernel by hand, from the serial line or
 * the keyboard. Any other key, or the timeout, boots the relinked kernel.
 */
#include "bios.h"
#include "stand.h"

#define POLL_US 50000u /* 20 polls per second */

/* INT 15h AH=86h: wait CX:DX microseconds (SeaBIOS, every PC BIOS). */
static void bios_wait_us(lk_u32 us)
{
	struct bios_regs r = { 0 };

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

int stand_prompt_fallback(const struct lk_config *cfg)
{
	lk_u32 polls = cfg->timeout * (1000000u / POLL_US);
	int c = 0;

	if (!cfg->timeout)
		return 0;
	stand_print("press f for the fallback kernel, any other key to boot "
		    "now (%u s)",
		    (unsigned)cfg->timeout);
	for (lk_u32 i = 0; i < polls && !c; i++) {
		c = cons_getc();
		if (!c)
			c = kbd_poll();
		if (!c)
			bios_wait_us(POLL_US);
	}
	return c == 'f' || c == 'F';
}
