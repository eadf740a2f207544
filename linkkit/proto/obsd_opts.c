/* boot(8)'s option words for the OpenBSD hand-over (obsd_opts.h). */
#include "obsd_opts.h"
#include "../linkkit.h"
#include "../obsd_boot.h"

int lk_obsd_parse_howto(const char *p, lk_size n, lk_u32 *howto)
{
	lk_u32 v = 0;
	lk_size i;

	if (n < 2 || p[0] != '-')
		return -1;
	for (i = 1; i < n; i++) {
		switch (p[i]) {
		case 'a': v |= LK_RB_ASKNAME; break;
		case 'c': v |= LK_RB_CONFIG; break;
		case 's': v |= LK_RB_SINGLE; break;
		case 'd': v |= LK_RB_KDB; break;
		default: return -1;
		}
	}
	*howto = v;
	return 0;
}

static int lk_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* 16 hex digits, '.', a partition letter: the DUID as fstab(5) has it. */
static int lk_obsd_root_duid(const char *p, lk_size n, struct lk_obsd_opts *o)
{
	lk_u8 duid[8];
	lk_u32 i, nz = 0;

	if (n != 18 || p[16] != '.' || p[17] < 'a' || p[17] > 'p')
		return -1;
	for (i = 0; i < 16; i++) {
		int d = lk_hexval(p[i]);
		if (d < 0)
			return -1;
		duid[i / 2] = (lk_u8)(i & 1 ? duid[i / 2] | d : d << 4);
	}
	for (i = 0; i < 8; i++)
		nz |= duid[i];
	if (!nz)
		return -1; /* the kernel reads an all-zero DUID as none */
	lk_memcpy(o->root_duid, duid, 8);
	o->root_part = (lk_u32)(p[17] - 'a');
	o->root_set = LK_OBSD_ROOT_DUID;
	return 0;
}

/* wd or sd, a unit 0..15, a partition letter: bootdev's fields. */
static int lk_obsd_root_dev(const char *p, lk_size n, struct lk_obsd_opts *o)
{
	lk_u32 type, unit = 0;
	lk_size i;

	if (n < 4 || n > 5 || p[1] != 'd' || (p[0] != 'w' && p[0] != 's'))
		return -1;
	type = p[0] == 's' ? LK_OBSD_DEV_SD : LK_OBSD_DEV_WD;
	for (i = 2; i + 1 < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		unit = unit * 10 + (lk_u32)(p[i] - '0');
	}
	if (unit > 15 || p[n - 1] < 'a' || p[n - 1] > 'p')
		return -1;
	o->root_type = type;
	o->root_unit = unit;
	o->root_part = (lk_u32)(p[n - 1] - 'a');
	o->root_set = LK_OBSD_ROOT_DEV;
	return 0;
}

int lk_obsd_parse_root(const char *p, lk_size n, struct lk_obsd_opts *o)
{
	if (lk_obsd_root_duid(p, n, o) == 0)
		return 0;
	return lk_obsd_root_dev(p, n, o);
}

static int lk_obsd_com_unit(const char *p, lk_size n, lk_u32 *unit)
{
	if (n != 4 || lk_memcmp(p, "com", 3) || p[3] < '0' || p[3] > '3')
		return -1;
	*unit = (lk_u32)(p[3] - '0');
	return 0;
}

int lk_obsd_parse_tty(const char *p, lk_size n, struct lk_obsd_opts *o)
{
	lk_u32 unit;

	if (lk_obsd_com_unit(p, n, &unit))
		return -1;
	o->tty_set = 1;
	o->tty_unit = unit;
	return 0;
}

/* "comN SPEED" with a speed com(4) accepts. */
int lk_obsd_parse_stty(const char *p, lk_size n, struct lk_obsd_opts *o)
{
	static const lk_u32 ok[] = { 1200, 2400, 4800, 9600, 19200, 38400,
				     57600, 115200 };
	lk_u32 unit, speed = 0, i;
	lk_size j = 5;

	if (n < 6 || p[4] != ' ' || lk_obsd_com_unit(p, 4, &unit))
		return -1;
	while (j < n && p[j] == ' ')
		j++;
	for (; j < n && speed < 1000000; j++) {
		if (p[j] < '0' || p[j] > '9')
			return -1;
		speed = speed * 10 + (lk_u32)(p[j] - '0');
	}
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (ok[i] == speed) {
			o->com_speed[unit] = speed;
			return 0;
		}
	}
	return -1;
}

lk_u32 lk_obsd_com_port(lk_u32 unit)
{
	static const lk_u32 port[4] = { 0x3f8, 0x2f8, 0x3e8, 0x2e8 };

	return port[unit & 3];
}
