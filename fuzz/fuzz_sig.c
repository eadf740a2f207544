/*
 * libFuzzer target: signify signatures (linkkit/kitsig.c), read before
 * anything else of a kit when a key is configured: the kit trailer, a
 * public key file, a detached signature and the .SIG path derivation.
 * Byte 0 selects the entry point; the rest is its input. Real signatures
 * cannot be forged by mutation, so this covers the base64 and signify
 * framing and Ed25519's decoding of hostile points and scalars.
 */
#include "fz_host.h"

static struct lk_pubkey fz_pk;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const lk_u8 seed[32] = "relinkboot fuzz signing key 0001";

	(void)argc;
	(void)argv;
	lk_ed25519_pubkey(fz_pk.key, seed);
	memcpy(fz_pk.keynum, "fuzzkey!", 8);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lk_pubkey pk;
	uint8_t *buf;
	char out[64];
	size_t n;

	if (size < 1)
		return 0;
	n = size - 1;
	buf = malloc(n + 1); /* exact-size view + a NUL for the path case */
	if (!buf)
		return 0;
	memcpy(buf, data + 1, n);
	buf[n] = 0;
	switch (data[0] & 3) {
	case 0:
		lk_kit_check_sig(&fz_host, &fz_pk, "KERNEL.KIT", buf, n);
		break;
	case 1:
		lk_pubkey_parse(buf, n, &pk);
		break;
	case 2:
		lk_sig_check(&fz_host, &fz_pk, "FALLBACK.SIG", "msg", 3, buf, n);
		break;
	default:
		if (lk_sig_path((char *)buf, out, sizeof(out)) == 0 &&
		    strnlen(out, sizeof(out)) == sizeof(out))
			abort();
	}
	free(buf);
	return 0;
}
