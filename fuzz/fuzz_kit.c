/*
 * libFuzzer target: a whole kit file through lk_kit_open, lk_kit_inflate
 * and the link. The SHA-256 in the header would stop nearly every mutation
 * at the first check, so unless the input's first byte is odd the harness
 * rewrites the header hash to match the stream (when the sizes let it):
 * that fuzzes everything behind the hash while odd inputs still fuzz the
 * hash check itself. Bit 1 of the first byte inflates a segmented kit
 * (LK_KIT_F_SEGMENTS) segment by segment instead of as one stream.
 */
#include "fz_host.h"

static void fz_fix_hash(uint8_t *kit, size_t size)
{
	struct lk_kit_header hd;

	if (size < sizeof(hd))
		return;
	memcpy(&hd, kit, sizeof(hd));
	if (hd.payload_zsize > size - sizeof(hd))
		return;
	lk_sha256(kit + sizeof(hd), (lk_size)hd.payload_zsize,
		  hd.payload_hash);
	memcpy(kit, &hd, sizeof(hd));
}

/* The provenance record (LK_KIT_F_PROV): every entry's name and size. */
static void fz_prov(const struct lk_kit *kit)
{
	struct lk_prov p;
	struct lk_prov_file f;
	lk_u64 n = 0;

	if (lk_kit_prov_open(&fz_host, kit, "fuzz.kit", &p) != LK_OK)
		return;
	for (lk_u32 i = 0; i < p.count; i++) {
		lk_prov_file(&p, i, &f);
		n += lk_strlen(f.name) + f.size + f.sha256[31];
	}
	__asm__ volatile("" : : "r"(n));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lk_kit kit;
	uint8_t *buf, *payload;

	if (size < 1)
		return 0;
	buf = malloc(size);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	if (!(data[0] & 1))
		fz_fix_hash(buf, size - 1);
	if (lk_kit_open(&fz_host, buf, size - 1, "fuzz.kit", &kit) != LK_OK)
		goto out;
	fz_prov(&kit);
	if (kit.payload_size == 0 || kit.payload_size > FZ_ALLOC_MAX)
		goto out;
	payload = malloc(kit.payload_size);
	if (payload) {
		/* A segmented kit: every segment on its own, last first (as
		 * processors finishing in any order would), then the check. */
		if (kit.nseg > 1 && (data[0] & 2)) {
			lk_u32 i;
			int bad = 0;

			for (i = kit.nseg; i-- > 0;)
				bad |= lk_kit_inflate_segment(&kit, i, payload,
							      kit.payload_size) !=
				       LK_OK;
			if (!bad)
				fz_link_payload(payload, kit.payload_size,
						data[0]);
		} else if (lk_kit_inflate(&fz_host, &kit, "fuzz.kit", payload,
					  kit.payload_size) == LK_OK) {
			fz_link_payload(payload, kit.payload_size, data[0]);
		}
		free(payload);
	}
out:
	free(buf);
	return 0;
}
