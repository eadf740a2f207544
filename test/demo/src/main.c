/* Boot flow: init table, identify loader, fingerprint, checks, ramscan. */
#include "demo.h"

DEMO_OBJECT(main)
DEMO_IDENT(main)

static void main_report(int failures)
{
	kprintf("demo: %s\n", failures ? "FAIL" : "PASS");
	exitdev_exit(!failures);
}

/* Called by locore with the Multiboot2 registers. */
void main(u32 info, u32 magic)
{
	int failures = 0;

	/* Before anything else: the tables must be in place for a crash to
	 * produce a FAIL line and the console must be initialised. */
	initorder_run();
	if (mbinfo_init(magic, info) != 0) {
		kprintf("demo: check mbinfo FAIL %s\n", mbinfo_problem());
		main_report(1);
	}
	kprintf("demo: loader %s\n", loader_kind());
	kprintf("demo: fingerprint %016lx\n", fingerprint_compute());
	kprintf("demo: physical base %lx\n", kva_to_phys(__kernel_start));
	failures += checks_run();
	failures += ramscan_run() != 0;
	main_report(failures);
}
