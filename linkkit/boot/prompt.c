/*
 * The countdown and the boot> prompt, in boot(8)'s manner. With
 * `timeout = N` the stage counts N seconds; any key stops the count and
 * opens the prompt (`f` at the count is the shortcut for the fallback).
 * With timeout 0 only a key already waiting opens it. At the prompt the
 * commands of cmd.c run until one boots.
 */
#include "boot.h"

#define LK_POLL_US 50000u /* 20 polls per second */
#define LK_LINE_MAX 128

static void lk_put(struct lk_boot *b, const char *s)
{
	if (b->ops->put)
		b->ops->put(b, s);
}

/* One line with echo and backspace; ends at CR or LF. */
static lk_size lk_read_line(struct lk_boot *b, char *line)
{
	lk_size n = 0;
	char echo[2] = { 0, 0 };

	for (;;) {
		int c = b->ops->poll_key(b);

		if (!c) {
			b->ops->delay_us(b, 10000);
			continue;
		}
		if (c == '\r' || c == '\n') {
			lk_put(b, "\r\n");
			return n;
		}
		if ((c == 8 || c == 127) && n) {
			n--;
			lk_put(b, "\b \b");
		} else if (c >= 0x20 && c < 0x7f && n + 1 < LK_LINE_MAX) {
			line[n++] = (char)c;
			echo[0] = (char)c;
			lk_put(b, echo);
		}
	}
}

static void lk_boot_interact(struct lk_boot *b)
{
	char line[LK_LINE_MAX];

	lk_boot_print(b, "boot(8) commands here; help lists them, boot boots");
	for (;;) {
		lk_size n;
		int rc;

		lk_put(b, "boot> ");
		n = lk_read_line(b, line);
		rc = lk_boot_command(b, line, n);
		if (rc == LK_CMD_BOOT)
			break;
		if (rc == LK_CMD_REBOOT && b->ops->reboot)
			b->ops->reboot(b);
		else if (rc == LK_CMD_REBOOT)
			lk_boot_print(b, "reboot: not available here");
	}
	lk_wipe(line, sizeof(line));
}

/* The key that stopped the countdown, or 0 when it ran out. */
static int lk_countdown(struct lk_boot *b)
{
	lk_u32 polls = b->cfg.timeout * (1000000u / LK_POLL_US);
	int c = 0;

	lk_boot_print(b,
		      "press f for the fallback kernel, any other key for the "
		      "boot> prompt (%u s)",
		      (unsigned)b->cfg.timeout);
	for (lk_u32 i = 0; i < polls && !c; i++) {
		c = b->ops->poll_key(b);
		if (!c)
			b->ops->delay_us(b, LK_POLL_US);
	}
	return c;
}

void lk_boot_prompt(struct lk_boot *b)
{
	int c = b->cfg.timeout ? lk_countdown(b) : b->ops->poll_key(b);

	if (!c)
		return;
	if (b->cfg.timeout && (c == 'f' || c == 'F')) {
		b->want_fallback = 1;
		return;
	}
	lk_boot_interact(b);
}
