/*
 * Disk reads through INT 13h extensions. The BIOS can only DMA below
 * 1 MiB, so every read goes through the low bounce buffer and is copied
 * to its destination, which may be anywhere in the 4 GiB space.
 */
#include "bios.h"
#include "../linkkit/linkkit.h"

struct dap {
	lk_u8 size, zero;
	lk_u16 count;
	lk_u16 off, seg;
	lk_u64 lba;
} __attribute__((packed));

static lk_u8 disk_drive;
static struct dap disk_dap __attribute__((aligned(16)));

int disk_init(lk_u8 drive)
{
	struct bios_regs r = {0};

	disk_drive = drive;
	r.eax = 0x4100;
	r.ebx = 0x55aa;
	r.edx = drive;
	bios_call(0x13, &r);
	if ((r.eflags & BIOS_CF) || (r.ebx & 0xffff) != 0xaa55 || !(r.ecx & 1))
		return -1;
	return 0;
}

/* Drive parameters (AH=48h): the sector count bounds every read and the
 * partition tables. 0 when the BIOS does not say (reads still work). */
lk_u64 disk_sectors(void)
{
	struct bios_regs r = {0};
	lk_u8 *p = (lk_u8 *)(lk_uptr)STAND_BOUNCE;
	lk_u64 n;

	lk_memset(p, 0, 0x1e);
	p[0] = 0x1e; /* buffer size: v2 result */
	r.eax = 0x4800;
	r.edx = disk_drive;
	r.esi = STAND_BOUNCE & 0xf;
	r.ds = STAND_BOUNCE >> 4;
	bios_call(0x13, &r);
	if ((r.eflags & BIOS_CF) || (p[0] | p[1] << 8) < 0x1a)
		return 0;
	lk_memcpy(&n, p + 0x10, 8);
	/* Some BIOSes report all-ones for "unknown". */
	if ((p[0x18] | p[0x19] << 8) != 512 || n == ~0ull)
		return 0;
	return n;
}

static int disk_read_low(lk_u8 drive, lk_u64 lba, lk_u32 count)
{
	for (int tries = 0; tries < 3; tries++) {
		struct bios_regs r = {0};

		disk_dap.size = sizeof(disk_dap);
		disk_dap.zero = 0;
		disk_dap.count = (lk_u16)count;
		disk_dap.off = STAND_BOUNCE & 0xf;
		disk_dap.seg = STAND_BOUNCE >> 4;
		disk_dap.lba = lba;
		r.eax = 0x4200;
		r.edx = drive;
		r.esi = (lk_u32)(lk_uptr)&disk_dap & 0xf;
		r.ds = (lk_u16)((lk_u32)(lk_uptr)&disk_dap >> 4);
		bios_call(0x13, &r);
		if (!(r.eflags & BIOS_CF))
			return 0;
		r = (struct bios_regs){0};
		r.edx = drive; /* AH=0: reset, then retry */
		bios_call(0x13, &r);
	}
	return -1;
}

/* The bounce buffer held file contents (kit, seed): gone before the jump. */
void disk_wipe_bounce(void)
{
	lk_wipe((void *)(lk_uptr)STAND_BOUNCE, STAND_BOUNCE_SECTORS * 512u);
}

static int disk_read_drive(lk_u8 drive, lk_u64 lba, lk_u32 count, void *buf)
{
	lk_u8 *dst = buf;

	while (count) {
		lk_u32 n = count < STAND_BOUNCE_SECTORS ? count
							: STAND_BOUNCE_SECTORS;
		if (disk_read_low(drive, lba, n))
			return -1;
		lk_memcpy(dst, (const void *)(lk_uptr)STAND_BOUNCE, n * 512u);
		dst += n * 512u;
		lba += n;
		count -= n;
	}
	return 0;
}

/* ctx unused: one boot drive. Returns 0 or -1 (the caller names the file). */
int disk_read(void *ctx, lk_u64 lba, lk_u32 count, void *buf)
{
	(void)ctx;
	return disk_read_drive(disk_drive, lba, count, buf);
}

/* ctx points at a BIOS drive number: the OpenBSD hand-over reads the
 * labels of the hard disks before the boot drive to number it. */
int disk_read_on(void *ctx, lk_u64 lba, lk_u32 count, void *buf)
{
	return disk_read_drive(*(const lk_u8 *)ctx, lba, count, buf);
}
