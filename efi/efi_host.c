/*
 * The lk_host the core runs on inside UEFI: pool memory, console lines,
 * RDRAND entropy. Errors are collected as the fallback reason rather than
 * printed, so a failed boot prints exactly one `fallback:` line.
 */
#include "efiboot.h"
#include "../linkkit/uart.h"

/* Console output: ASCII line to CHAR16, printable characters only. */
void eb_print_line(struct lk_boot *b, const char *line)
{
	struct eb_state *s = eb_of(b);
	CHAR16 w[300];
	UINTN i, o = 0;

	if (s->boot_services_gone || !s->st->ConOut)
		return;
	for (i = 0; line[i] && o + 3 < sizeof(w) / sizeof(w[0]); i++) {
		char c = line[i];
		w[o++] = (c >= 0x20 && c < 0x7f) ? (CHAR16)c : '?';
	}
	w[o++] = '\r';
	w[o++] = '\n';
	w[o] = 0;
	s->st->ConOut->OutputString(s->st->ConOut, w);
	for (i = 0; s->uart && i < o; i++)
		lk_uart_putc(s->uart, (char)w[i]);
}

/*
 * tty/stty: COM1 is the firmware's console on PC firmware (OVMF's
 * serial terminal): its speed is set and ConOut keeps writing it. Any
 * other port gets our own lines and is read for keys, at its speed.
 */
void eb_console(struct lk_boot *b, lk_u32 port, lk_u32 speed)
{
	struct eb_state *s = eb_of(b);

	lk_uart_init(port, speed);
	s->uart = port == 0x3f8 ? 0 : port;
}

struct eb_pool_hdr {
	void *orig;
	lk_size size;
};

/* Pool memory is only 8-aligned; the core wants 16, so over-allocate. */
static void *eb_alloc(void *ctx, lk_size size)
{
	struct eb_state *s = eb_of(ctx);
	lk_size total = size + 16 + sizeof(struct eb_pool_hdr);
	void *p = LK_NULL;
	lk_uptr a;
	struct eb_pool_hdr *h;

	if (s->boot_services_gone || total < size)
		return LK_NULL;
	if (s->st->BootServices->AllocatePool(EfiLoaderData, total, &p) !=
	    EFI_SUCCESS)
		return LK_NULL;
	lk_memset(p, 0, total);
	a = ((lk_uptr)p + sizeof(*h) + 15) & ~(lk_uptr)15;
	h = (struct eb_pool_hdr *)a - 1;
	h->orig = p;
	h->size = total;
	return (void *)a;
}

static void eb_free(void *ctx, void *ptr, lk_size size)
{
	struct eb_state *s = eb_of(ctx);
	struct eb_pool_hdr *h;
	void *orig;

	(void)size;
	if (!ptr)
		return;
	h = (struct eb_pool_hdr *)ptr - 1;
	orig = h->orig;
	lk_wipe(orig, h->size);
	/* After ExitBootServices the pool is gone: wiping is all we can do. */
	if (!s->boot_services_gone)
		s->st->BootServices->FreePool(orig);
}

void eb_host_init(struct eb_state *s)
{
	lk_boot_host(&s->boot, eb_alloc, eb_free);
	s->watchdog_s = EB_WATCHDOG_S;
	eb_variant_init(s);
}

/* The production stage has no variant; the leak-test and hang-test
 * builds link a strong definition (efi/leaktest.c, efi/hangtest.c). */
__attribute__((weak)) void eb_variant_init(struct eb_state *s)
{
	(void)s;
}

const char *eb_status_str(EFI_STATUS st)
{
	switch (st) {
	case EFI_NOT_FOUND: return "Not Found";
	case EFI_OUT_OF_RESOURCES: return "Out of Resources";
	case EFI_INVALID_PARAMETER: return "Invalid Parameter";
	case EFI_ACCESS_DENIED: return "Access Denied";
	case EFI_DEVICE_ERROR: return "Device Error";
	case EFI_UNSUPPORTED: return "Unsupported";
	case EFI_BUFFER_TOO_SMALL: return "Buffer Too Small";
	case EFI_VOLUME_CORRUPTED: return "Volume Corrupted";
	case EFI_NO_MEDIA: return "No Media";
	case EFI_MEDIA_CHANGED: return "Media Changed";
	case EFI_SECURITY_VIOLATION: return "Security Violation";
	case EFI_BAD_BUFFER_SIZE: return "File Too Large";
	case EFI_END_OF_FILE: return "Unexpected End of File";
	default: return "firmware error";
	}
}

static struct eb_region *eb_new_region(struct eb_state *s)
{
	if (s->nregions >= EB_MAX_REGIONS)
		return LK_NULL;
	return &s->regions[s->nregions];
}

static void *eb_pages_common(struct eb_state *s, EFI_ALLOCATE_TYPE type,
			     lk_u64 addr, lk_u64 size, int wipe,
			     EFI_STATUS *out)
{
	struct eb_region *r = eb_new_region(s);
	UINTN pages = (UINTN)((size + 4095) >> 12);
	EFI_PHYSICAL_ADDRESS a = addr;
	EFI_STATUS st = EFI_OUT_OF_RESOURCES;

	if (r && size && size <= 0x100000000000ull)
		st = s->st->BootServices->AllocatePages(type, EfiLoaderData,
							pages, &a);
	if (out)
		*out = st;
	if (st != EFI_SUCCESS)
		return LK_NULL;
	r->addr = a;
	r->pages = pages;
	r->wipe = wipe;
	r->kernel = 0;
	s->nregions++;
	if (s->page_hook)
		s->page_hook(s, r, size);
	return (void *)(lk_uptr)a;
}

void *eb_pages(struct eb_state *s, lk_u64 size, lk_u64 max_addr, int wipe)
{
	if (max_addr)
		return eb_pages_common(s, AllocateMaxAddress, max_addr - 1,
				       size, wipe, LK_NULL);
	return eb_pages_common(s, AllocateAnyPages, 0, size, wipe, LK_NULL);
}

void *eb_pages_at(struct eb_state *s, lk_u64 addr, lk_u64 size, int wipe,
		  EFI_STATUS *st)
{
	if (addr & 4095) {
		*st = EFI_INVALID_PARAMETER;
		return LK_NULL;
	}
	return eb_pages_common(s, AllocateAddress, addr, size, wipe, st);
}

void eb_wipe_secret_regions(struct eb_state *s)
{
	UINTN i;

	for (i = 0; i < s->nregions; i++)
		if (s->regions[i].wipe)
			lk_wipe((void *)(lk_uptr)s->regions[i].addr,
				(lk_size)s->regions[i].pages << 12);
}

void eb_pages_free(struct eb_state *s, void *p)
{
	UINTN i;

	if (s->boot.keep_failed_relink)
		return; /* leak-test -neg: as if the free were forgotten */
	for (i = 0; i < s->nregions; i++) {
		struct eb_region *r = &s->regions[i];
		if (r->addr != (EFI_PHYSICAL_ADDRESS)(lk_uptr)p)
			continue;
		lk_wipe(p, (lk_size)r->pages << 12);
		s->st->BootServices->FreePages(r->addr, r->pages);
		for (; i + 1 < s->nregions; i++)
			s->regions[i] = s->regions[i + 1];
		s->nregions--;
		return;
	}
}

void eb_release_all(struct eb_state *s)
{
	UINTN i;

	for (i = 0; i < s->nregions && !s->boot.keep_failed_relink; i++) {
		struct eb_region *r = &s->regions[i];
		lk_wipe((void *)(lk_uptr)r->addr, (lk_size)r->pages << 12);
		s->st->BootServices->FreePages(r->addr, r->pages);
	}
	s->nregions = 0;
	s->copy_src = s->copy_dst = s->copy_len = 0;
	s->place.pending = 0;
}

/* The shared sequence's buffers are page regions: a kit or payload is
 * tens of megabytes, more than pool memory is meant for. */
void *eb_alloc_big(struct lk_boot *b, lk_u64 size, int secret)
{
	return eb_pages(eb_of(b), size ? size : 1, 0, secret);
}

void eb_free_big(struct lk_boot *b, void *p, lk_u64 size)
{
	(void)size;
	if (p)
		eb_pages_free(eb_of(b), p);
}

void *eb_alloc_kept(struct lk_boot *b, lk_u64 size)
{
	return eb_pages(eb_of(b), size, 0x100000000ull, 0);
}

void *eb_alloc_kept_below(struct lk_boot *b, lk_u64 size, lk_u64 limit)
{
	return eb_pages(eb_of(b), size,
			limit < 0x100000000ull ? limit : 0x100000000ull, 0);
}

void eb_release(struct lk_boot *b)
{
	eb_release_all(eb_of(b));
}
