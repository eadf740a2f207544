/*
 * /etc/boot.conf from the OpenBSD root, as boot(8) reads it: a file owned
 * by root and not writable by others (else one line and it is ignored:
 * anyone who could write it could choose the kernel), run line by line
 * as prompt commands. Read after RELINK.CFG, so for what both set (howto,
 * tty, stty, timeout) boot.conf wins, as on OpenBSD; the kit, the
 * fallback, the keys and the seed are RELINK.CFG's alone. An executable
 * /bsd.upgrade is chosen first, as boot(8) chooses it.
 */
#include "boot.h"

#define LK_BOOTCONF "/etc/boot.conf"
#define LK_BOOTCONF_MAX 65536u

static int lk_bootconf_run(struct lk_boot *b, const char *text, lk_u64 size)
{
	lk_u64 pos = 0;

	while (pos < size) {
		lk_u64 end = pos;

		while (end < size && text[end] != '\n')
			end++;
		if (lk_boot_command(b, text + pos, (lk_size)(end - pos)) ==
		    LK_CMD_BOOT)
			return LK_CMD_BOOT;
		pos = end + 1;
	}
	return LK_CMD_DONE;
}

/*
 * sysupgrade's unattended upgrade: an executable /bsd.upgrade is booted
 * instead (before boot.conf, which may still choose otherwise), as
 * boot(8) does. boot(8) then clears its x bits so that a failed upgrade
 * is not started again; this stage never writes, so what ends it is the
 * installer removing the file once it has mounted the root (README).
 */
static void lk_boot_upgrade(struct lk_boot *b)
{
	static const char path[] = "/bsd.upgrade";
	struct lk_file f;

	if (lk_boot_root_stat(b, path, &f) ||
	    (f.mode & LK_S_IFMT) != LK_S_IFREG)
		return;
	if (!(f.mode & LK_S_IXUSR)) {
		lk_boot_print(b, "%s is not u+x", path);
		return;
	}
	lk_snprintf(b->image, sizeof(b->image), "%s", path);
	lk_boot_print(b, "upgrade detected: switching to %s", path);
}

int lk_boot_conf(struct lk_boot *b)
{
	struct lk_file f;
	void *text = LK_NULL;
	lk_u64 size = 0;
	int rc;

	lk_boot_upgrade(b);
	if (lk_boot_root_stat(b, LK_BOOTCONF, &f))
		return LK_CMD_DONE; /* absent: no line, as boot(8) */
	if (f.uid != 0 || (f.mode & 0002) || f.size > LK_BOOTCONF_MAX) {
		lk_boot_print(b, "warning: %s ignored: it must be owned by "
				 "root, not writable by others, at most 64 KiB",
			      LK_BOOTCONF);
		return LK_CMD_DONE;
	}
	b->capture = 1;
	rc = lk_boot_read(b, LK_BOOTCONF, 0, &text, &size);
	b->capture = 0;
	if (rc) {
		lk_boot_print(b, "warning: %s", b->reason);
		b->reason[0] = 0;
		return LK_CMD_DONE;
	}
	rc = lk_bootconf_run(b, text, size);
	b->ops->free_big(b, text, size);
	return rc;
}
