/* Entry in long mode (locore0.S): run every check, report, exit QEMU. */
#include "obsd.h"

void obsd_main(void)
{
	int bad = 0;

	cons_init();
	cons_puts("obsd: hello\n");
	cons_puts("obsd: version ");
	cons_puts(obsd_version);
	cons_puts(obsd_hz == 100 && obsd_devices[0][0] == 'c' ? "\n" : " (bad data)\n");
	cons_puts("obsd: root on ");
	cons_puts(obsd_rootdev);
	cons_puts("\n");
	bad |= check_args();
	bad |= check_bootargs();
	bad |= check_random();
	bad |= check_sections();
	bad |= check_symbols();
	cons_puts(bad ? "obsd: FAIL\n" : "obsd: PASS\n");
	cons_exit(!bad);
}
