/*
 * Layout fingerprint: FNV-1a over the address of every object's marker,
 * in canonical order. Two boots with different layouts differ here; the
 * value reveals nothing usable about where things are.
 */
#include "demo.h"
#include "demo_objects.h" /* generated: DEMO_OBJ(name, index) per object */

DEMO_OBJECT(fingerprint)
DEMO_IDENT(fingerprint)

#define DEMO_OBJ(name, idx) void name##_marker(void);
DEMO_OBJECTS
#undef DEMO_OBJ

#define DEMO_OBJ(name, idx) name##_marker,
static void (*const fingerprint_markers[])(void) = {DEMO_OBJECTS};
#undef DEMO_OBJ

#define DEMO_OBJ(name, idx) #name,
static const char *const fingerprint_objs[] = {DEMO_OBJECTS};
#undef DEMO_OBJ

u64 fingerprint_compute(void)
{
	u64 h = 0xcbf29ce484222325UL;
	u32 i, b;

	for (i = 0;
	     i < sizeof(fingerprint_markers) / sizeof(fingerprint_markers[0]);
	     i++) {
		u64 a = (uptr)fingerprint_markers[i];

		for (b = 0; b < 8; b++) {
			h ^= (a >> (8 * b)) & 0xff;
			h *= 0x100000001b3UL;
		}
	}
	return h;
}

/* Object names in canonical order, for the per-object range check. */
const char *const *fingerprint_names(u32 *count)
{
	*count = sizeof(fingerprint_objs) / sizeof(fingerprint_objs[0]);
	return fingerprint_objs;
}

/* The marker of object i, for the range check. */
u64 fingerprint_marker_addr(u32 i)
{
	return (uptr)fingerprint_markers[i];
}
