/*
 * BOOTX64.EFI: the UEFI stage is the shared boot sequence
 * (linkkit/boot/) with these hooks; nothing here decides what boots.
 */
#include "efiboot.h"

/* RELINK_PUBKEY=path.pub at build time (linkkit/rules.mk). */
#include "relink-pubkey.h"
#ifdef RELINK_PUBKEY_B64
#define EB_BUILTIN_KEY RELINK_PUBKEY_B64
#else
#define EB_BUILTIN_KEY LK_NULL
#endif

static void eb_give_up(struct lk_boot *b)
{
	struct eb_state *s = eb_of(b);

	eb_release_all(s);
	eb_mp_settle(s);
	eb_watchdog(s, 0); /* back to the firmware (efi_main returns) */
}

static const struct lk_boot_ops eb_ops = {
	.read_file = eb_read_file,
	.alloc_big = eb_alloc_big,
	.free_big = eb_free_big,
	.alloc_kept = eb_alloc_kept,
	.alloc_kept_below = eb_alloc_kept_below,
	.place_any = eb_place_any,
	.console = eb_console,
	.place = eb_place_kernel,
	.settle = eb_settle_kernel,
	.inflate = eb_inflate_kit,
	.inflate_rest = eb_inflate_rest,
	.write = eb_write_image,
	.firmware_rng = eb_firmware_rng,
	.fw_rng_name = "EFI_RNG_PROTOCOL",
	.print = eb_print_line,
	.poll_key = eb_poll_key,
	.delay_us = eb_delay_us,
	.secure_boot_policy = eb_secure_boot_policy,
	.put = eb_put,
	.machine_memory = eb_memory,
	.reboot = eb_reboot,
	.boot_disk = eb_boot_blockdev,
	.enter = eb_enter,
	.release = eb_release,
	.give_up = eb_give_up,
};

/* Static, not on the stack: it must outlive the stack wipe's reach and
 * is wiped explicitly (the config) before the jump. */
static struct eb_state eb_s;

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
	struct eb_state *s = &eb_s;

	s->image = image;
	s->st = st;
	s->stack_hi = (lk_u64)(lk_uptr)__builtin_frame_address(0);
	s->boot.ops = &eb_ops;
	s->boot.stage = s;
	s->boot.builtin_key = EB_BUILTIN_KEY;
	s->boot.con_port = 0x3f8; /* the firmware's COM1, 115200 */
	s->boot.con_speed = 115200;
	eb_host_init(s);
	eb_watchdog(s, 1);
	if (eb_open_root(s)) {
		eb_watchdog(s, 0);
		return EFI_LOAD_ERROR;
	}
	lk_boot_main(&s->boot);
	eb_watchdog(s, 0);
	return EFI_LOAD_ERROR;
}
