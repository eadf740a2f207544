/* Exception vectors 0..31 -> isr.S stubs -> one FAIL line and exit. */
#include "demo.h"

DEMO_OBJECT(idt)
DEMO_IDENT(idt)

struct idt_gate {
	u16 off_lo, sel;
	u8 ist, attr;
	u16 off_mid;
	u32 off_hi, zero;
} __attribute__((packed));

extern const u64 isr_table[32];
static struct idt_gate idt_gates[32] __attribute__((aligned(16)));

void idt_exception(u64 vec, u64 err);
void idt_exception(u64 vec, u64 err)
{
	/* The faulting address would reveal the layout: vector only. */
	kprintf("demo: panic CPU exception %lu error %lx\n", vec, err);
	kprintf("demo: FAIL\n");
	exitdev_exit(0);
}

static void idt_init(void)
{
	static struct {
		u16 limit;
		u64 base;
	} __attribute__((packed)) desc;
	u32 i;

	desc.limit = sizeof(idt_gates) - 1;
	desc.base = (uptr)idt_gates;

	for (i = 0; i < 32; i++) {
		u64 a = isr_table[i];

		idt_gates[i] = (struct idt_gate){
			(u16)a,		0x08,		0, 0x8e,
			(u16)(a >> 16), (u32)(a >> 32), 0};
	}
	__asm__ volatile("lidt %0" : : "m"(desc));
}
DEMO_INIT(idt_init);
