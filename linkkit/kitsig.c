/*
 * signify(1) signatures (Ed25519) on kits and on the fallback kernel,
 * shared by both boot stages and the linkkit tool.
 *
 * signify's files are one "untrusted comment: ..." line and one base64
 * line. The public key decodes to "Ed", an 8-byte key number and the
 * 32-byte key; a signature to "Ed", the key number and the 64-byte
 * signature. A kit's signed message is its 64-byte header (which holds
 * the SHA-256 of the zlib stream, so it covers the payload); the trailer
 * after the stream is the signature file. Everything here reads untrusted
 * bytes: every length is checked before use, and nothing after the header
 * is touched until the signature has been verified.
 */
#include "linkkit.h"
#include "kit_format.h"

#define LK_SIG_RAW 74 /* "Ed" + keynum + signature */
#define LK_PUB_RAW 42 /* "Ed" + keynum + key */

static int lk_b64_value(lk_u8 c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Decodes exactly `want` bytes from n base64 characters (with padding);
 * -1 on any other length or a stray character. */
static int lk_b64_decode(const lk_u8 *s, lk_size n, lk_u8 *out, lk_size want)
{
	lk_u32 acc = 0, bits = 0;
	lk_size got = 0, i;
	int v;

	while (n && s[n - 1] == '=')
		n--;
	for (i = 0; i < n; i++) {
		v = lk_b64_value(s[i]);
		if (v < 0)
			return -1;
		acc = (acc << 6 | (lk_u32)v) & 0xffffff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (got == want)
				return -1;
			out[got++] = (lk_u8)(acc >> bits);
		}
	}
	return got == want ? 0 : -1;
}

/* Finds the base64 line: the first line that is not a comment, with
 * trailing CR/LF/spaces trimmed. */
static int lk_b64_line(const lk_u8 *t, lk_size len, const lk_u8 **line,
		       lk_size *n)
{
	static const char cm[] = "untrusted comment:";
	lk_size i = 0, e;

	if (len >= sizeof(cm) - 1 && lk_memcmp(t, cm, sizeof(cm) - 1) == 0) {
		while (i < len && t[i] != '\n')
			i++;
		if (i == len)
			return -1;
		i++;
	}
	for (e = i; e < len && t[e] != '\n' && t[e] != '\r'; e++)
		;
	while (e > i && t[e - 1] == ' ')
		e--;
	if (e == i)
		return -1;
	*line = t + i;
	*n = e - i;
	return 0;
}

static int lk_signify_decode(const void *text, lk_size len, lk_u8 *raw,
			     lk_size want)
{
	const lk_u8 *line;
	lk_size n;

	if (lk_b64_line(text, len, &line, &n) ||
	    lk_b64_decode(line, n, raw, want) || raw[0] != 'E' || raw[1] != 'd')
		return -1;
	return 0;
}

int lk_pubkey_parse(const void *text, lk_size len, struct lk_pubkey *out)
{
	lk_u8 raw[LK_PUB_RAW];

	if (lk_signify_decode(text, len, raw, sizeof(raw)))
		return -1;
	lk_memcpy(out->keynum, raw + 2, 8);
	lk_memcpy(out->key, raw + 10, 32);
	return 0;
}

int lk_sig_check(const struct lk_host *h, const struct lk_pubkey *pk,
		 const char *name, const void *msg, lk_size len,
		 const void *sig, lk_size siglen)
{
	lk_u8 raw[LK_SIG_RAW];

	if (lk_signify_decode(sig, siglen, raw, sizeof(raw))) {
		lk_log(h, LK_LOG_ERROR, "%s: malformed signature", name);
		return -1;
	}
	if (lk_memcmp(raw + 2, pk->keynum, 8) != 0) {
		lk_log(h, LK_LOG_ERROR, "%s: signed with another key", name);
		return -1;
	}
	if (lk_ed25519_verify(raw + 10, msg, len, pk->key)) {
		lk_log(h, LK_LOG_ERROR, "%s: bad signature", name);
		return -1;
	}
	return 0;
}

int lk_kit_check_sig(const struct lk_host *h, const struct lk_pubkey *pk,
		     const char *name, const void *kit, lk_u64 size)
{
	struct lk_kit_header hdr;
	lk_u64 end;

	if (size < sizeof(hdr)) {
		lk_log(h, LK_LOG_ERROR, "%s: too short for a kit header", name);
		return -1;
	}
	lk_memcpy(&hdr, kit, sizeof(hdr));
	if (!(hdr.flags & LK_KIT_F_SIGNED)) {
		lk_log(h, LK_LOG_ERROR, "%s: not signed, and a public key is configured",
		       name);
		return -1;
	}
	if (hdr.payload_zsize >= size - sizeof(hdr)) {
		lk_log(h, LK_LOG_ERROR, "%s: signature trailer missing", name);
		return -1;
	}
	end = sizeof(hdr) + hdr.payload_zsize;
	return lk_sig_check(h, pk, name, kit, sizeof(hdr), (const lk_u8 *)kit + end,
			    (lk_size)(size - end));
}

/* `\RELINK\FALLBACK.ELF` -> `\RELINK\FALLBACK.SIG`: the extension of the
 * last path component replaced (or added). -1 when it does not fit. */
int lk_sig_path(const char *path, char *out, lk_size size)
{
	lk_size n = 0, dot = 0;

	while (path[n]) {
		if (path[n] == '.')
			dot = n;
		else if (path[n] == '\\' || path[n] == '/')
			dot = 0;
		n++;
	}
	if (!dot)
		dot = n;
	if (dot + 5 > size)
		return -1;
	lk_memcpy(out, path, dot);
	lk_memcpy(out + dot, ".SIG", 5);
	return 0;
}
