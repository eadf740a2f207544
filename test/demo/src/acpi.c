/* ACPI RSDP handed over in tag 14 (v1) or 15 (v2): signature, checksums. */
#include "demo.h"

DEMO_OBJECT(acpi)
DEMO_IDENT(acpi)

static u8 acpi_sum(const u8 *p, u32 n)
{
	u8 s = 0;

	while (n--)
		s += *p++;
	return s;
}

static int acpi_check(char *detail, size_t cap)
{
	const struct mb2_tag *t = mbinfo_find(15, NULL);
	const u8 *r;
	u32 len;

	if (!t)
		t = mbinfo_find(14, NULL);
	if (!t || t->size < 8 + 20) {
		ksnprintf(detail, cap, "no ACPI RSDP tag (14/15)");
		return -1;
	}
	r = (const u8 *)(t + 1);
	if (memcmp(r, "RSD PTR ", 8) || acpi_sum(r, 20)) {
		ksnprintf(detail, cap,
			  "RSDP in tag %u: bad signature or checksum", t->type);
		return -1;
	}
	if (t->type == 15) {
		len = *(const u32 *)(r + 20);
		if (r[15] < 2 || len < 36 || len > t->size - 8 ||
		    acpi_sum(r, len)) {
			ksnprintf(detail, cap,
				  "XSDP in tag 15: bad length or checksum");
			return -1;
		}
	}
	return 0;
}
DEMO_CHECK(CK_ACPI, "acpi", acpi_check);
