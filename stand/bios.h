/* Machine-dependent interface of the BIOS stage (start.S, bios_*.c). */
#ifndef STAND_BIOS_H
#define STAND_BIOS_H

#include "../linkkit/lk_types.h"

/* Register block of the real-mode thunk; the layout is fixed by start.S. */
struct bios_regs {
	lk_u32 eax, ebx, ecx, edx, esi, edi, ebp, eflags;
	lk_u32 reserved;
	lk_u16 ds, es;
};
_Static_assert(sizeof(struct bios_regs) == 40, "bios_regs layout");

#define BIOS_CF 0x1u

/* Runs INT intno in real mode; buffers must lie below 1 MiB. */
void bios_call(int intno, struct bios_regs *r);
/* Wipes the low area and the stage, then jumps; never returns. */
__attribute__((noreturn)) void stand_enter(lk_u32 entry, lk_u32 info,
					   lk_u32 magic, lk_u32 wipe_lo,
					   lk_u32 wipe_len, lk_u32 kernel_esp);
/* The same wipe, then Linux's entry (boot.rst): GDT __BOOT_CS 0x10,
 * __BOOT_DS 0x18, ESI/RSI = info; mode LK_ENTRY_LINUX32 in protected
 * mode, LK_ENTRY_LONG64 in long mode on the page tables at cr3. */
__attribute__((noreturn)) void stand_enter_linux(lk_u32 entry, lk_u32 info,
						 lk_u32 mode, lk_u32 wipe_lo,
						 lk_u32 wipe_len, lk_u32 cr3);

/* E820 entries as read by start.S before leaving real mode. */
struct e820_entry {
	lk_u64 addr;
	lk_u64 len;
	lk_u32 type;
	lk_u32 attr;
};
extern struct e820_entry e820_map[];
extern lk_u16 e820_count;
extern lk_u8 boot_drive;

/* Linker-script symbols: the stage occupies [0x8000, _stage_end). */
extern char _start[], _stage_end[];
/*
 * Low memory: 0x1000..0x7c00 the application processors' trampoline at
 * 0x1000 (stand/mp.c), real-mode stack and the final stub (wiped by the
 * stub), 0x8000.._stage_end the stage, 0x70000..0x80000 the disk
 * bounce buffer: 127 sectors per INT 13h call (the most some BIOSes take)
 * keeps the mode switches per MiB low. stage.ld keeps the stage below it.
 */
#define STAND_BOUNCE 0x70000u
#define STAND_BOUNCE_SECTORS 127u

/* bios_cons.c: COM1 115200 8N1 and VGA text. */
void cons_init(void);
/* Moves the console's serial side to the UART at port, speed baud. */
void cons_set_uart(lk_u32 port, lk_u32 speed);
void cons_puts(const char *s);
/* A byte waiting on COM1 (0xff for NUL), or 0 when none waits. */
int cons_getc(void);

/* bios_disk.c: 512-byte sectors through INT 13h AH=42h. */
int disk_init(lk_u8 drive);
int disk_read(void *ctx, lk_u64 lba, lk_u32 count, void *buf);
int disk_read_on(void *ctx, lk_u64 lba, lk_u32 count, void *buf);
void disk_wipe_bounce(void);
lk_u64 disk_sectors(void);

/* bios_mem.c: E820 queries. */
int e820_valid(const struct e820_entry *e);
/* Non-zero when [lo, hi) lies entirely in type-1 (usable) E820 RAM. */
int mem_is_usable(lk_u64 lo, lk_u64 hi);
/* Highest usable range below 4 GiB and above 1 MiB: [*lo, *hi). */
int mem_top_region(lk_u32 *lo, lk_u32 *hi);

/* bios_acpi.c: RSDP from the EBDA or 0xE0000..0xFFFFF. */
const void *acpi_find_rsdp(int *v2, lk_u32 *len);
lk_u32 acpi_cpu_ids(lk_u8 *ids, lk_u32 max);

#endif
