/* Console input and delays for the shared boot prompt. */
#include "efiboot.h"
#include "../linkkit/uart.h"

/*
 * The firmware's watchdog stays armed while the stage runs (efi_main arms
 * it for watchdog_s seconds): should anything hang, the machine resets
 * instead of waiting forever. Every delay re-arms it, so the countdown
 * and the `boot>` prompt (which waits for keys between delays) never
 * see it fire, and an `f` at the countdown leaves the fallback boot
 * guarded. Off before returning to the firmware (efi_main, give_up):
 * a shell that started the stage may not disarm it itself.
 */
void eb_watchdog(struct eb_state *s, int on)
{
	if (s->boot_services_gone)
		return;
	s->st->BootServices->SetWatchdogTimer(on ? s->watchdog_s : 0,
					      EB_WATCHDOG_CODE, 0, LK_NULL);
}

/* The first key waiting on ConIn, or 0. */
int eb_poll_key(struct lk_boot *b)
{
	SIMPLE_INPUT_INTERFACE *in = eb_of(b)->st->ConIn;
	EFI_INPUT_KEY key;
	int c = eb_of(b)->uart ? lk_uart_getc(eb_of(b)->uart) : 0;

	if (c)
		return c;
	if (!in || in->ReadKeyStroke(in, &key) != EFI_SUCCESS)
		return 0;
	return key.UnicodeChar ? key.UnicodeChar : 0xffff;
}

void eb_delay_us(struct lk_boot *b, lk_u32 us)
{
	eb_watchdog(eb_of(b), 1);
	eb_of(b)->st->BootServices->Stall(us);
}

void eb_put(struct lk_boot *b, const char *str)
{
	struct eb_state *s = eb_of(b);
	CHAR16 w[64];
	UINTN o = 0;

	if (s->boot_services_gone || !s->st->ConOut)
		return;
	for (; *str && o + 1 < 64; str++)
		w[o++] = (*str >= 0x20 && *str < 0x7f) || *str == '\r' ||
				 *str == '\n' || *str == '\b'
			 ? (CHAR16)*str
			 : '?';
	w[o] = 0;
	s->st->ConOut->OutputString(s->st->ConOut, w);
	for (o = 0; s->uart && w[o]; o++)
		lk_uart_putc(s->uart, (char)w[o]);
}

/* `machine memory`: the firmware's map, one line per descriptor. */
void eb_memory(struct lk_boot *b)
{
	struct eb_state *s = eb_of(b);
	UINTN size = 0, key, dsz = 0, off;
	UINT32 ver;
	lk_u8 *map;

	if (s->st->BootServices->GetMemoryMap(&size, LK_NULL, &key, &dsz,
					      &ver) != EFI_BUFFER_TOO_SMALL ||
	    !dsz)
		return;
	size += 8 * dsz;
	map = eb_pages(s, size, 0, 0);
	if (!map || s->st->BootServices->GetMemoryMap(&size, (void *)map, &key,
						      &dsz, &ver) != EFI_SUCCESS)
		return;
	for (off = 0; off + dsz <= size; off += dsz) {
		const EFI_MEMORY_DESCRIPTOR *d = (const void *)(map + off);
		lk_boot_print(b, "memory: 0x%llx-0x%llx type %u",
			      (lk_u64)d->PhysicalStart,
			      (lk_u64)(d->PhysicalStart +
				       (d->NumberOfPages << 12)),
			      (unsigned)d->Type);
	}
	eb_pages_free(s, map);
}

void eb_reboot(struct lk_boot *b)
{
	eb_of(b)->st->RuntimeServices->ResetSystem(EfiResetCold, EFI_SUCCESS,
						   0, LK_NULL);
}
