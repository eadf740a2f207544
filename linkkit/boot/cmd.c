/*
 * boot(8)'s commands, for the boot> prompt and /etc/boot.conf: `boot
 * [IMAGE] [-acsd]`, `set howto|tty|timeout|image`, `stty comN SPEED`,
 * `machine memory`, `help`, `reboot`. IMAGE is `fallback`, a path on the
 * OpenBSD root (/bsd, /bsd.rd), or nothing (the relinked kernel). Each
 * bad command is one line; nothing is changed by it.
 */
#include "boot.h"
#include "../proto/obsd_opts.h"

struct lk_words {
	const char *w[4];
	lk_size n[4];
	lk_u32 count;
};

static int lk_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* At most 4 words; more is an error (-1). */
static int lk_split(const char *p, lk_size n, struct lk_words *w)
{
	lk_size i = 0;

	w->count = 0;
	while (i < n) {
		while (i < n && lk_is_blank(p[i]))
			i++;
		if (i == n || p[i] == '#')
			break;
		if (w->count == 4)
			return -1;
		w->w[w->count] = p + i;
		while (i < n && !lk_is_blank(p[i]))
			i++;
		w->n[w->count] = (lk_size)(p + i - w->w[w->count]);
		w->count++;
	}
	return 0;
}

static int lk_word_is(const struct lk_words *w, lk_u32 i, const char *s)
{
	return i < w->count && w->n[i] == lk_strlen(s) &&
	       lk_memcmp(w->w[i], s, w->n[i]) == 0;
}

/* IMAGE: `fallback`, or an absolute root path of a sane length. */
static int lk_set_image(struct lk_boot *b, const char *p, lk_size n)
{
	if (n == 8 && lk_memcmp(p, "fallback", 8) == 0) {
		b->image[0] = 0;
		b->want_fallback = 1;
		return 0;
	}
	if (n < 2 || n >= sizeof(b->image) || p[0] != '/')
		return -1;
	for (lk_size i = 0; i < n; i++)
		if (p[i] < 0x21 || p[i] > 0x7e)
			return -1;
	lk_memcpy(b->image, p, n);
	b->image[n] = 0;
	b->want_fallback = 0;
	return 0;
}

static int lk_cmd_boot(struct lk_boot *b, const struct lk_words *w)
{
	lk_u32 i;

	for (i = 1; i < w->count; i++) {
		if (w->w[i][0] == '-') {
			if (lk_obsd_parse_howto(w->w[i], w->n[i],
						&b->cfg.obsd.howto))
				return -1;
		} else if (lk_set_image(b, w->w[i], w->n[i])) {
			return -1;
		}
	}
	return LK_CMD_BOOT;
}

static int lk_cmd_set(struct lk_boot *b, const struct lk_words *w)
{
	struct lk_obsd_opts *o = &b->cfg.obsd;
	lk_u32 t = 0;
	lk_size i;

	if (w->count != 3)
		return -1;
	if (lk_word_is(w, 1, "howto"))
		return lk_obsd_parse_howto(w->w[2], w->n[2], &o->howto);
	if (lk_word_is(w, 1, "tty"))
		return lk_obsd_parse_tty(w->w[2], w->n[2], o);
	if (lk_word_is(w, 1, "image"))
		return lk_set_image(b, w->w[2], w->n[2]);
	if (lk_word_is(w, 1, "timeout")) {
		for (i = 0; i < w->n[2]; i++) {
			char c = w->w[2][i];
			if (c < '0' || c > '9' || t > 3600)
				return -1;
			t = t * 10 + (lk_u32)(c - '0');
		}
		if (t > 3600)
			return -1;
		b->cfg.timeout = t;
		return 0;
	}
	return -1;
}

static int lk_cmd_stty(struct lk_boot *b, const struct lk_words *w)
{
	if (w->count != 3)
		return -1;
	/* obsd_opts wants "comN SPEED" as one string: the words are
	 * adjacent in the line, blanks between them. */
	return lk_obsd_parse_stty(w->w[1],
				  (lk_size)(w->w[2] + w->n[2] - w->w[1]),
				  &b->cfg.obsd);
}

static void lk_cmd_help(struct lk_boot *b)
{
	lk_boot_print(b, "commands: boot [fallback|/bsd|/bsd.rd] [-acsd], "
			 "set howto -acsd, set tty comN, set timeout N, "
			 "set image IMAGE, stty comN SPEED, machine memory, "
			 "help, reboot");
}

int lk_boot_command(struct lk_boot *b, const char *line, lk_size n)
{
	struct lk_words w;
	int rc = -1;

	if (lk_split(line, n, &w))
		rc = -1;
	else if (w.count == 0)
		return LK_CMD_DONE;
	else if (lk_word_is(&w, 0, "boot"))
		rc = lk_cmd_boot(b, &w);
	else if (lk_word_is(&w, 0, "set"))
		rc = lk_cmd_set(b, &w);
	else if (lk_word_is(&w, 0, "stty"))
		rc = lk_cmd_stty(b, &w);
	else if (lk_word_is(&w, 0, "help") && w.count == 1) {
		lk_cmd_help(b);
		return LK_CMD_DONE;
	} else if (lk_word_is(&w, 0, "reboot") && w.count == 1)
		return LK_CMD_REBOOT;
	else if (lk_word_is(&w, 0, "machine") && lk_word_is(&w, 1, "memory") &&
		 w.count == 2) {
		if (b->ops->machine_memory)
			b->ops->machine_memory(b);
		else
			lk_boot_print(b, "machine memory: not available here");
		return LK_CMD_DONE;
	}
	if (rc < 0) {
		lk_boot_print(b, "unknown or bad command: %.*s (help lists "
				 "them)", (int)(n > 60 ? 60 : n), line);
		return LK_CMD_BAD;
	}
	lk_boot_console(b); /* set tty, stty: at once, as boot(8) */
	return rc == LK_CMD_BOOT ? LK_CMD_BOOT : LK_CMD_DONE;
}
