/*
 * Runs the self-checks collected in the linker set set_demo_checks. The
 * set's order follows the (random) object order, so entries are sorted by
 * id first; each id must appear exactly once, which is itself a check that
 * the linker kept every entry.
 */
#include "demo.h"

DEMO_OBJECT(checks)
DEMO_IDENT(checks)

static const struct demo_check *checks_by_id[CK_COUNT];

/* Collects the set by id; fills detail and returns -1 on a problem. */
static int checks_collect(char *detail, size_t cap)
{
	const struct demo_check *const *p;
	u32 seen = 0;
	int bad = 0;

	/* Every valid entry is registered even after a problem, so one bad
	 * entry does not hide the other checks. */
	for (p = __start_set_demo_checks; p < __stop_set_demo_checks; p++) {
		const struct demo_check *c = *p;

		if (c->id >= CK_COUNT || checks_by_id[c->id]) {
			if (!bad++)
				ksnprintf(detail, cap,
					  "entry %s duplicated or bad id",
					  c->name);
			continue;
		}
		if (!symtab_in_object(c->owner, (uptr)c->fn) && !bad++)
			ksnprintf(detail, cap,
				  "entry %s points outside object %s", c->name,
				  c->owner);
		checks_by_id[c->id] = c;
		seen++;
	}
	if (!bad && seen != CK_COUNT) {
		ksnprintf(detail, cap, "%u of %u entries", seen, (u32)CK_COUNT);
		bad = 1;
	}
	return bad ? -1 : 0;
}

static int checks_report(const char *name, int (*fn)(char *, size_t))
{
	char detail[160];

	detail[0] = '\0';
	if (fn(detail, sizeof(detail)) == 0) {
		kprintf("demo: check %s ok\n", name);
		return 0;
	}
	kprintf("demo: check %s FAIL %s\n", name, detail);
	return 1;
}

static int checks_linkerset(char *detail, size_t cap)
{
	return checks_collect(detail, cap);
}

/* The first checks open the symbol table that validating the set needs,
 * so they are found by scanning the set, in id order. */
static const struct demo_check *checks_scan(u32 id)
{
	const struct demo_check *const *p;

	for (p = __start_set_demo_checks; p < __stop_set_demo_checks; p++)
		if ((*p)->id == id)
			return *p;
	return NULL;
}

int checks_run(void)
{
	const struct demo_check *c;
	int failures = 0;
	u32 i;

	for (i = 0; i <= CK_OBJRANGES; i++)
		if ((c = checks_scan(i)))
			failures += checks_report(c->name, c->fn);
	failures += checks_report("linkerset", checks_linkerset);
	for (i = CK_OBJRANGES + 1; i < CK_COUNT; i++)
		if (checks_by_id[i])
			failures += checks_report(checks_by_id[i]->name,
						  checks_by_id[i]->fn);
	return failures;
}
