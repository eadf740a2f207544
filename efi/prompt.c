/*
 * The boot prompt (config `timeout = N`): for N seconds the operator can
 * pick the prelinked fallback kernel by hand, e.g. when the relinked one
 * boots but misbehaves in a way no stage can detect. Any other key, or
 * the timeout, boots the relinked kernel.
 */
#include "efiboot.h"

#define EB_POLL_US 50000 /* 20 polls per second */

/* The first key waiting on ConIn, or 0. */
static CHAR16 eb_poll_key(struct eb_state *s)
{
	SIMPLE_INPUT_INTERFACE *in = s->st->ConIn;
	EFI_INPUT_KEY key;

	if (!in || in->ReadKeyStroke(in, &key) != EFI_SUCCESS)
		return 0;
	return key.UnicodeChar ? key.UnicodeChar : (CHAR16)0xffff;
}

int eb_prompt_fallback(struct eb_state *s)
{
	lk_u32 polls = s->cfg.timeout * (1000000 / EB_POLL_US);
	CHAR16 c = 0;

	if (!s->cfg.timeout)
		return 0;
	eb_print(s,
		 "press f for the fallback kernel, any other key to boot "
		 "now (%u s)",
		 (unsigned)s->cfg.timeout);
	for (lk_u32 i = 0; i < polls && !c; i++) {
		c = eb_poll_key(s);
		if (!c)
			s->st->BootServices->Stall(EB_POLL_US);
	}
	return c == 'f' || c == 'F';
}
