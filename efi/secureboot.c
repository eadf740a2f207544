/*
 * UEFI Secure Boot policy. When the firmware enforces Secure Boot it has
 * verified this stage's signature; the chain continues only if the stage
 * verifies the kit and the fallback with a key that is part of the signed
 * stage (make RELINK_PUBKEY=k.pub). RELINK.CFG lives on the unsigned ESP,
 * so nothing in it may weaken that: a fixed layout (debug_seed), a printed
 * layout (verbose = 2) and another key (pubkey) are refused, one line each.
 */
#include "efiboot.h"

/* A one-byte variable of EFI_GLOBAL_VARIABLE; -1 when absent or not one
 * byte (then it says nothing we could trust). */
static int eb_global_u8(struct eb_state *s, CHAR16 *name)
{
	EFI_GUID g = EFI_GLOBAL_VARIABLE;
	UINT8 v[2] = { 0, 0 };
	UINTN n = sizeof(v);
	UINT32 attr = 0;

	if (s->st->RuntimeServices->GetVariable(name, &g, &attr, &n, v) !=
		    EFI_SUCCESS ||
	    n != 1)
		return -1;
	return v[0];
}

/*
 * Enforcing = SecureBoot is 1 and the platform is not in setup mode (no
 * platform key enrolled: then the firmware verifies nothing). A missing
 * SetupMode with SecureBoot 1 counts as enforcing: refusing too much is
 * the safe mistake.
 */
static int eb_secure_boot_on(struct eb_state *s)
{
	return eb_global_u8(s, L"SecureBoot") == 1 &&
	       eb_global_u8(s, L"SetupMode") != 1;
}

void eb_secure_boot_policy(struct lk_boot *b)
{
	struct eb_state *s = eb_of(b);
	const char *builtin = b->builtin_key;
	struct lk_config *c = &s->boot.cfg;
	struct lk_pubkey k;

	s->boot.secure_boot = eb_secure_boot_on(s);
	if (!s->boot.secure_boot)
		return;
	if (c->debug_seed_len) {
		lk_wipe(c->debug_seed, sizeof(c->debug_seed));
		c->debug_seed_len = 0;
		eb_print(s, "secure boot: debug_seed refused (a fixed layout); "
			    "using real entropy");
	}
	if (c->verbose >= 2) {
		c->verbose = 1;
		eb_print(s, "secure boot: verbose = 2 refused (it prints the "
			    "layout); using verbose = 1");
	}
	if (!builtin || !builtin[0]) {
		eb_print(s, "secure boot: no built-in kit key: the kit and the "
			    "fallback are outside the chain of trust (build "
			    "with make RELINK_PUBKEY=k.pub)");
		return;
	}
	/* lk_config_pubkey prefers the built-in key anyway; saying so
	 * shows a config that was meant to change it. */
	if (c->pubkey_set && lk_config_pubkey(c, builtin, &k) == 1 &&
	    (lk_memcmp(k.keynum, c->pubkey_keynum, 8) != 0 ||
	     lk_memcmp(k.key, c->pubkey, 32) != 0)) {
		c->pubkey_set = 0;
		eb_print(s, "secure boot: pubkey in RELINK.CFG refused: it "
			    "differs from the built-in key");
	}
}
