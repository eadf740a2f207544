/*
 * OpenBSD amd64 boot-argument list and entry arguments (see obsd_boot.h).
 * Same overflow discipline as mb2.c: keep counting `need` so a caller can
 * report how much room the list wanted.
 */
#include "obsd_boot.h"
#include "linkkit.h"

#define LK_OBSD_HDR 12u /* type, size, next */

static lk_u8 *lk_obsd_record(struct lk_obsd *o, lk_i32 type, lk_u32 body)
{
	lk_u32 size = LK_OBSD_HDR + body;
	lk_i32 isize = (lk_i32)size, zero = 0;
	lk_u8 *r;

	if (body > LK_OBSD_MAX_LIST || o->need + size > 0x7fffffffu) {
		o->error = 1;
		return LK_NULL;
	}
	o->need += size;
	if (o->error || o->len + size > o->cap) {
		o->error = 1;
		return LK_NULL;
	}
	r = o->buf + o->len;
	lk_memcpy(r, &type, 4);
	lk_memcpy(r + 4, &isize, 4);
	lk_memcpy(r + 8, &zero, 4);
	o->len += size;
	return r + LK_OBSD_HDR;
}

void lk_obsd_begin(struct lk_obsd *o, void *buf, lk_u32 cap)
{
	o->buf = buf;
	o->cap = buf ? cap : 0;
	o->len = 0;
	o->need = 0;
	o->error = 0;
}

void lk_obsd_memmap(struct lk_obsd *o, const struct lk_mb2_mmap_entry *e,
		    lk_u32 n)
{
	struct lk_obsd_memmap m;
	lk_u8 *p;
	lk_u32 i;

	if (n >= LK_OBSD_MAX_LIST / sizeof(m)) {
		o->error = 1;
		return;
	}
	p = lk_obsd_record(o, LK_OBSD_BOOTARG_MEMMAP, (n + 1) * sizeof(m));
	if (!p)
		return;
	for (i = 0; i < n; i++) {
		m.addr = e[i].addr;
		m.size = e[i].len;
		/* OpenBSD has no bad-RAM type: anything else is reserved. */
		m.type = e[i].type >= 1 && e[i].type <= 4 ? e[i].type : 2;
		lk_memcpy(p + i * sizeof(m), &m, sizeof(m));
	}
	lk_memset(&m, 0, sizeof(m)); /* BIOS_MAP_END */
	lk_memcpy(p + n * sizeof(m), &m, sizeof(m));
}

void lk_obsd_consdev_com(struct lk_obsd *o, lk_u32 unit, lk_u32 speed,
			 lk_u64 port)
{
	struct lk_obsd_consdev c;
	lk_u8 *p = lk_obsd_record(o, LK_OBSD_BOOTARG_CONSDEV, sizeof(c));

	if (!p)
		return;
	lk_memset(&c, 0, sizeof(c));
	c.consdev = (lk_i32)(LK_OBSD_DEV_COM0 | (unit & 0xff));
	c.conspeed = (lk_i32)speed;
	c.consaddr = port;
	lk_memcpy(p, &c, sizeof(c));
}

void lk_obsd_efiinfo(struct lk_obsd *o, const struct lk_obsd_efiinfo *ei)
{
	lk_u8 *p = lk_obsd_record(o, LK_OBSD_BOOTARG_EFIINFO, sizeof(*ei));

	if (p)
		lk_memcpy(p, ei, sizeof(*ei));
}

int lk_obsd_end(struct lk_obsd *o)
{
	lk_i32 end = LK_OBSD_BOOTARG_END;

	o->need += 4;
	if (o->error || o->len + 4 > o->cap) {
		o->error = 1;
		return LK_ERR_NOMEM;
	}
	lk_memcpy(o->buf + o->len, &end, 4);
	o->len += 4;
	/* A longer list would be cut by the kernel's one-page copy. */
	return o->len > LK_OBSD_MAX_LIST ? LK_ERR_NOMEM : LK_OK;
}

int lk_obsd_serial_unit(const char *cmdline)
{
	static const char key[] = "console=com";
	const char *p;
	lk_u32 i;

	for (p = cmdline; p && *p; p++) {
		for (i = 0; key[i] && p[i] == key[i]; i++)
			;
		if (!key[i] && (p == cmdline || p[-1] == ' ') &&
		    p[i] >= '0' && p[i] <= '3')
			return p[i] - '0';
	}
	return -1;
}

int lk_obsd_wants_serial(const char *cmdline)
{
	return lk_obsd_serial_unit(cmdline) >= 0;
}

void lk_obsd_args_fill(struct lk_obsd_args *a, const struct lk_obsd *o,
		       lk_u32 list_addr, lk_u64 kernel_end,
		       const struct lk_mb2_mmap_entry *e, lk_u32 n)
{
	lk_u32 lower = 0, upper = 0;

	lk_mb2_meminfo_from_map(e, n, &lower, &upper);
	a->apiver = LK_OBSD_APIVER;
	a->end = (lk_u32)((kernel_end + 7u) & ~(lk_u64)7u);
	a->extmem = upper;
	a->cnvmem = lower;
	a->ac = o->len;
	a->av = list_addr;
}

/* MAKEBOOTDEV: magic | adaptor << 24 | controller << 20 | unit << 16 |
 * partition << 8 | type; types wd 0, fd 2; partition a is 0. */
lk_u32 lk_obsd_bootdev_bios(lk_u8 drive)
{
	if (drive & 0x80)
		return LK_OBSD_BOOTDEV_WD0A | ((lk_u32)(drive & 0x7f) << 16);
	return LK_OBSD_BOOTDEV_WD0A | ((lk_u32)drive << 16) | 2u;
}

void lk_obsd_bootduid(struct lk_obsd *o, const lk_u8 *duid)
{
	lk_u8 *p = lk_obsd_record(o, LK_OBSD_BOOTARG_BOOTDUID, 8);

	if (p)
		lk_memcpy(p, duid, 8);
}

void lk_obsd_ucode(struct lk_obsd *o, lk_u64 addr, lk_u64 size)
{
	lk_u8 *p = lk_obsd_record(o, LK_OBSD_BOOTARG_UCODE, 16);

	if (p) {
		lk_memcpy(p, &addr, 8);
		lk_memcpy(p + 8, &size, 8);
	}
}

lk_u32 lk_obsd_dev_type(lk_u32 d_type)
{
	return d_type == 4 /* DTYPE_SCSI */ ? LK_OBSD_DEV_SD : LK_OBSD_DEV_WD;
}

lk_u32 lk_obsd_bootdev_disk(lk_u32 type, lk_u32 unit)
{
	return LK_OBSD_BOOTDEV_WD0A | (unit & 0xf) << 16 | (type & 0xff);
}

void lk_obsd_stack(lk_u32 *words, const struct lk_obsd_args *a)
{
	words[0] = 0;
	lk_memcpy(words + 1, a, sizeof(*a));
}
