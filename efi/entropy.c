/*
 * The firmware's entropy for the shared seeding (linkkit/boot/entropy.c):
 * EFI_RNG_PROTOCOL's default algorithm, when the firmware has one.
 */
#include "efiboot.h"

lk_size eb_firmware_rng(struct lk_boot *b, void *buf, lk_size len)
{
	struct eb_state *s = eb_of(b);
	EFI_GUID guid = EFI_RNG_PROTOCOL_GUID;
	EFI_RNG_PROTOCOL *rng = LK_NULL;
	EFI_STATUS st;

	st = s->st->BootServices->LocateProtocol(&guid, LK_NULL,
						 (void **)&rng);
	if (st == EFI_SUCCESS && rng)
		st = rng->GetRNG(rng, LK_NULL, len, buf);
	return st == EFI_SUCCESS && rng ? len : 0;
}
