/*
 * A function-pointer table spanning objects (64-bit absolute relocations
 * in .data.rel.ro): each entry must call into the object it names, and
 * that object's ident function returns its own name string.
 */
#include "demo.h"

DEMO_OBJECT(fptrs)
DEMO_IDENT(fptrs)

#include "demo_objects.h" /* generated: DEMO_OBJ(name, index) */

#define DEMO_OBJ(name, idx) const char *name##_ident(void);
DEMO_OBJECTS
#undef DEMO_OBJ

/* Every object's ident, in canonical order. */
#define DEMO_OBJ(name, idx) {#name, name##_ident},
static const struct demo_op fptrs_ops[] = {DEMO_OBJECTS};
#undef DEMO_OBJ

static int fptrs_check(char *detail, size_t cap)
{
	u32 i;

	for (i = 0; i < sizeof(fptrs_ops) / sizeof(fptrs_ops[0]); i++) {
		const struct demo_op *op = &fptrs_ops[i];
		const char *got = op->ident();

		if (!symtab_in_object(op->owner, (uptr)op->ident)) {
			ksnprintf(detail, cap,
				  "%s entry points outside object %s",
				  op->owner, op->owner);
			return -1;
		}
		if (strcmp(got, op->owner)) {
			ksnprintf(detail, cap, "%s entry returned \"%s\"",
				  op->owner, got);
			return -1;
		}
	}
	return 0;
}
DEMO_CHECK(CK_FPTRS, "fptrs", fptrs_check);
