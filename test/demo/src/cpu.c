/* CPU state locore promised: long mode, paging, PAE, our GDT selectors. */
#include "demo.h"

DEMO_OBJECT(cpu)
DEMO_IDENT(cpu)

u64 cpu_rdtsc(void)
{
	u32 lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}

static u64 cpu_boot_tsc;

static void cpu_init(void)
{
	cpu_boot_tsc = cpu_rdtsc();
}
DEMO_INIT(cpu_init);

static u64 cpu_rdmsr(u32 msr)
{
	u32 lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((u64)hi << 32) | lo;
}

static int cpu_check(char *detail, size_t cap)
{
	u64 cr0, cr4, efer = cpu_rdmsr(0xc0000080);
	u16 cs;

	__asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
	__asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	if (!(cr0 & (1UL << 31)) || !(cr4 & (1UL << 5)) ||
	    !(efer & (1UL << 10)) || cs != 0x08 || !cpu_boot_tsc) {
		ksnprintf(detail, cap, "cr0=%lx cr4=%lx efer=%lx cs=%x", cr0,
			  cr4, efer, cs);
		return -1;
	}
	return 0;
}
DEMO_CHECK(CK_CPU, "cpu", cpu_check);
