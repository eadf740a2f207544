/*
 * `.note.gnu.property` under `linker lld`. ld.lld never places these
 * input sections: it reads them, ANDs the x86 feature bits
 * (GNU_PROPERTY_X86_FEATURE_1_AND: IBT, SHSTK) over every object, and
 * only when the result is not zero writes a note of its own. OpenBSD's
 * ld.script does not mention them (its assembly objects carry none, so the
 * AND is zero and lld writes nothing). Here: when the AND is zero, such
 * sections the script does not match are dropped, as lld drops them; when
 * it is not, lld would add a section the kit cannot reproduce, which is
 * an error naming the first object.
 */
#include <string.h>

#include "kbint.h"

#define NOTE_NAME ".note.gnu.property"

#define KB_X86_FEATURE_1_AND 0xc0000002u

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* The FEATURE_1_AND bits of one property array (8-byte aligned entries). */
static uint32_t props_features(const uint8_t *d, uint32_t n)
{
	uint32_t off = 0, type, sz;

	while (n - off >= 8) {
		type = rd32(d + off);
		sz = rd32(d + off + 4);
		if (sz > n - off - 8)
			return 0; /* malformed: treated as no features */
		if (type == KB_X86_FEATURE_1_AND && sz == 4)
			return rd32(d + off + 8);
		off += 8 + ((sz + 7) & ~7u);
		if (off > n)
			return 0;
	}
	return 0;
}

/* The FEATURE_1_AND bits in a note section; 0 when absent or malformed. */
static uint32_t note_features(const uint8_t *d, uint64_t n)
{
	uint64_t off = 0;
	uint32_t namesz, descsz, type;

	while (n - off >= 12) {
		namesz = rd32(d + off);
		descsz = rd32(d + off + 4);
		type = rd32(d + off + 8);
		off += 12;
		if (namesz > n - off || ((namesz + 3ull) & ~3ull) > n - off)
			return 0;
		if (type == 5u /* NT_GNU_PROPERTY_TYPE_0 */ && namesz == 4 &&
		    !memcmp(d + off, "GNU", 4)) {
			off += 4;
			if (descsz > n - off)
				return 0;
			return props_features(d + off, descsz);
		}
		off += (namesz + 3ull) & ~3ull;
		if (((descsz + 3ull) & ~3ull) > n - off)
			return 0;
		off += (descsz + 3ull) & ~3ull;
	}
	return 0;
}

static uint32_t object_features(const struct kb_obj *o)
{
	for (size_t k = 0; k < o->nsec; k++) {
		const struct kb_sec *s = &o->secs[k];

		if (s->name && !strcmp(s->name, NOTE_NAME) &&
		    s->sh.sh_type == SHT_NOTE && s->data)
			return note_features(s->data, s->sh.sh_size);
	}
	return 0;
}

/* Called after the script is compiled: turns the unmatched property notes
 * into discarded inputs, or reports that lld would merge them. */
void kb_lld_property_notes(struct kb *b)
{
	uint32_t and = ~0u;
	int reported = 0;

	if (!b->pol.lld || !b->compiled)
		return;
	for (uint32_t oi = 0; oi < b->nobjs; oi++)
		and &= object_features(&b->objs[oi]);
	if (!b->nobjs)
		and = 0;
	for (size_t i = 0; i < b->ninputs; i++) {
		if (b->comp.input_slot[i] != LS_ORPHAN ||
		    !b->inputs[i].section ||
		    strcmp(b->inputs[i].section, NOTE_NAME))
			continue;
		if (!and) {
			b->comp.input_slot[i] = LS_DISCARD;
		} else if (!reported++) {
			kb_err(b,
			       "%s: section %s: every object has x86 features "
			       "0x%x: ld.lld would write a merged note the kit "
			       "cannot place; discard or place it in the "
			       "script",
			       b->inputs[i].object, b->inputs[i].section, and);
		}
	}
}
