/*
 * The init table (.initcall input sections, one or more entries per
 * object) must run in canonical object order even though the objects'
 * code is shuffled: the policy keeps .initcall* in canonical order, as a
 * real kernel must for its initcalls. Each entry carries its object's
 * canonical index; the run records the order it saw.
 */
#include "demo.h"

DEMO_OBJECT(initorder)
DEMO_IDENT(initorder)

static u32 initorder_seen[64];
static u32 initorder_count;
static int initorder_ran;

void initorder_run(void)
{
	const struct demo_init *e;

	for (e = __initcall_start; e < __initcall_end; e++) {
		if (initorder_count < 64)
			initorder_seen[initorder_count] = e->index;
		initorder_count++;
		e->fn();
	}
	initorder_ran = 1;
}

static int initorder_self_ran;

static void initorder_self(void)
{
	/* Proves the entries are called, not just present. */
	initorder_self_ran = 1;
}
DEMO_INIT(initorder_self);

static int initorder_check(char *detail, size_t cap)
{
	const struct demo_init *e;
	u32 i = 0;

	if (!initorder_ran || !initorder_self_ran || initorder_count < 8 ||
	    initorder_count > 64) {
		ksnprintf(detail, cap, "table ran %u entries", initorder_count);
		return -1;
	}
	for (e = __initcall_start; e < __initcall_end; e++, i++) {
		if (i && initorder_seen[i] < initorder_seen[i - 1]) {
			ksnprintf(detail, cap,
				  "%s (object %u) ran after object %u",
				  e->owner, initorder_seen[i],
				  initorder_seen[i - 1]);
			return -1;
		}
		if (!symtab_in_object(e->owner, (uptr)e->fn)) {
			ksnprintf(detail, cap, "entry of %s points outside it",
				  e->owner);
			return -1;
		}
	}
	return 0;
}
DEMO_CHECK(CK_INITORDER, "initorder", initorder_check);
