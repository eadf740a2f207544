/*
 * The BIOS stage is the shared boot sequence (linkkit/boot/) with these
 * hooks, after the machine set-up only it needs: the heap in the highest
 * E820 range, the boot drive, the ESP.
 */
#include "bios.h"
#include "../linkkit/uart.h"
#include "stand.h"

static struct stand st;

/* RELINK_PUBKEY=path.pub at build time (linkkit/rules.mk). */
#include "relink-pubkey.h"
#ifdef RELINK_PUBKEY_B64
#define BUILTIN_KEY RELINK_PUBKEY_B64
#else
#define BUILTIN_KEY LK_NULL
#endif

/* Nothing but this stage is left to run. */
static void stand_give_up(struct lk_boot *b)
{
	(void)b;
	stand_halt("nothing to boot");
}

/* Everything is freed as it goes; the heap holds nothing else but the
 * application processors' stacks, when a failed relink left them up. */
static void stand_release(struct lk_boot *b)
{
	stand_mp_stop(b);
}

/* The boot drive, whole, for the OpenBSD root. */
static int stand_boot_disk(struct lk_boot *b, struct lk_blockdev *dev)
{
	(void)b;
	dev->ctx = &boot_drive;
	dev->read = disk_read_on;
	dev->sectors = disk_sectors();
	return 0;
}

static void stand_put(struct lk_boot *b, const char *str)
{
	(void)b;
	cons_puts(str);
}

/* `machine memory`: the E820 map as the BIOS gave it. */
static void stand_memory(struct lk_boot *b)
{
	for (lk_u32 i = 0; i < e820_count; i++)
		lk_boot_print(b, "memory: 0x%llx-0x%llx type %u",
			      (unsigned long long)e820_map[i].addr,
			      (unsigned long long)(e820_map[i].addr +
						   e820_map[i].len),
			      e820_map[i].type);
}

/* The keyboard controller's reset line, then the chipset's reset
 * control register (0xcf9: boards without an 8042), then a triple fault
 * (no IDT left to catch it). */
static void stand_reboot(struct lk_boot *b)
{
	static const struct {
		lk_u16 limit;
		lk_u32 base;
	} __attribute__((packed)) no_idt = { 0, 0 };

	(void)b;
	lk_outb(0x64, 0xfe);
	stand_delay_us(b, 50000);
	lk_outb(0xcf9, 0x02);
	lk_outb(0xcf9, 0x06);
	stand_delay_us(b, 50000);
	__asm__ volatile("lidt %0; int3" : : "m"(no_idt));
	stand_halt("reset failed");
}

static void stand_console(struct lk_boot *b, lk_u32 port, lk_u32 speed)
{
	(void)b;
	cons_set_uart(port, speed);
}

static const struct lk_boot_ops stand_ops = {
	.read_file = stand_read_file,
	.alloc_big = stand_alloc_big,
	.free_big = stand_free_big,
	.alloc_kept = stand_alloc_kept,
	.alloc_kept_below = stand_alloc_kept_below,
	.console = stand_console,
	.place = stand_place,
	.inflate = stand_inflate,
	.inflate_rest = stand_mp_inflate_rest,
	.write = stand_mp_write,
	.place_any = stand_place_any,
	.settle = stand_settle,
	.print = stand_print_line,
	.poll_key = stand_poll_key,
	.delay_us = stand_delay_us,
	.put = stand_put,
	.machine_memory = stand_memory,
	.reboot = stand_reboot,
	.boot_disk = stand_boot_disk,
	.enter = stand_enter_kernel,
	.release = stand_release,
	.give_up = stand_give_up,
};

static void stand_mount_esp(struct stand *s)
{
	struct lk_blockdev dev = {LK_NULL, disk_read, 0};
	lk_u64 esp_lba, esp_count;

	dev.sectors = disk_sectors();
	if (lk_fat_find_esp(&s->boot.host, &dev, &esp_lba, &esp_count) ||
	    lk_fs_mount(&s->fs, &lk_fs_fat, &s->boot.host, &dev, esp_lba,
			esp_count))
		stand_halt("cannot read the ESP");
}

void stand_main(lk_u32 drive)
{
	struct stand *s = &st;
	lk_u32 lo, hi;

	cons_init();
	s->boot.ops = &stand_ops;
	s->boot.stage = s;
	s->boot.builtin_key = BUILTIN_KEY;
	s->boot.con_port = 0x3f8; /* cons_init's COM1 at 115200 */
	s->boot.con_speed = 115200;
	stand_host_init(s);
	if (mem_top_region(&lo, &hi))
		stand_halt("no usable RAM above 1 MiB in the E820 map");
	heap_init(&s->heap, lo, hi);
	stand_mp_init(s); /* INIT now: no wait before the STARTUP later */
	if (disk_init((lk_u8)drive))
		stand_halt("no INT 13h extensions on the boot drive");
	stand_mount_esp(s);
	lk_boot_main(&s->boot);
	stand_halt("nothing to boot");
}
