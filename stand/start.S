/*
 * Stage entry (real mode), A20, E820, the switch to 32-bit protected
 * mode, the BIOS thunk and the final hand-off. Everything here lives in
 * .text16, which the linker script places first at 0x8000 so that every
 * label the 16-bit code touches is below 64 KiB.
 */
#include "../linkkit/asm_x86.h"
#define CODE32 0x08
#define DATA32 0x10
#define CODE16 0x18
#define DATA16 0x20
#define CODE64 0x28
#define RM_STACK 0x7c00         /* real-mode stack, shared with the thunk */
#define E820_MAX 128
#define ENTER_STUB 0x7800       /* where the final stub runs from */
#define ENTER_GDT 0x7b00        /* the GDT the kernel is entered with */

/* DS, ES, FS, GS and SS: the flat 32-bit data segment. Clobbers AX. */
.macro DATA32_SEGMENTS
	movw	$DATA32, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %fs
	movw	%ax, %gs
	movw	%ax, %ss
.endm

/* EFER.LME then CR0.PG (PAE and CR3 already set): long mode, still in
 * compatibility mode until a far jump to a 64-bit code segment. Inline:
 * the Linux stub runs from a copy. Clobbers EAX, ECX, EDX. */
.macro LONG_MODE_ON
	movl	$0xc0000080, %ecx	/* IA32_EFER */
	rdmsr
	orl	$0x100, %eax		/* LME */
	wrmsr
	movl	%cr0, %eax
	orl	$0x80000000, %eax	/* PG: long mode, compatibility */
	movl	%eax, %cr0
.endm

	.section .text16, "awx"
	.code16
	.globl _start
_start:
	jmp	real_start
	.balign 4
	.ascii	"RLBS"                  /* stage magic at offset 4: mbr.S checks it */

real_start:
	cli
	xorw	%ax, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movw	$RM_STACK, %sp
	cld
	movb	%dl, boot_drive
	call	a20_enable
	jc	a20_failed
	call	e820_read

	lgdtl	gdt_desc
	movl	%cr0, %eax
	orl	$1, %eax
	movl	%eax, %cr0
	ljmpl	$CODE32, $pm_start

a20_failed:
	movw	$msg_a20, %si
1:	lodsb
	testb	%al, %al
	jz	2f
	movb	$0x0e, %ah
	movw	$7, %bx
	int	$0x10
	movw	$0x3f8, %dx
	outb	%al, %dx
	jmp	1b
2:	cli
	hlt
	jmp	2b

/* CF clear when A20 is on. Fast A20 first, then INT 15h, then the 8042. */
a20_enable:
	call	a20_check
	jnc	9f
	inb	$0x92, %al
	orb	$2, %al
	andb	$0xfe, %al              /* bit 0 would reset the machine */
	outb	%al, $0x92
	call	a20_check
	jnc	9f
	movw	$0x2401, %ax
	int	$0x15
	call	a20_check
	jnc	9f
	call	kbc_wait
	movb	$0xd1, %al              /* write output port */
	outb	%al, $0x64
	call	kbc_wait
	movb	$0xdf, %al              /* A20 on, no reset */
	outb	%al, $0x60
	call	kbc_wait
	movw	$1000, %cx              /* the 8042 may take a moment */
1:	call	a20_check
	jnc	9f
	loop	1b
	stc
9:	ret

/* Bounded wait for the 8042 input buffer to drain. */
kbc_wait:
	movl	$0x100000, %ecx
1:	inb	$0x64, %al
	testb	$2, %al
	jz	2f
	loopl	1b
2:	ret

/* CF set when 0:0500 and FFFF:0510 are the same byte (address wrap). */
a20_check:
	pushw	%ds
	pushw	%es
	pushw	%cx
	xorw	%ax, %ax
	movw	%ax, %ds
	notw	%ax
	movw	%ax, %es
	movb	$0x00, 0x500
	movb	$0xff, %es:0x510
	cmpb	$0xff, 0x500
	clc
	jne	1f
	stc
1:	popw	%cx
	popw	%es
	popw	%ds
	ret

/* Reads the E820 map into e820_map; e820_count = entries (0 if none).
 * Calls are counted too: a BIOS that keeps answering with short entries
 * (CL < 20, not stored) and a continuation value would loop forever. */
e820_read:
	xorl	%ebx, %ebx
	movw	$e820_map, %di
	xorw	%bp, %bp
	movw	$E820_MAX * 2, e820_calls
1:	decw	e820_calls
	js	2f
	movl	$1, %es:20(%di)         /* ACPI 3 attribute: valid unless set */
	movl	$0xe820, %eax
	movl	$24, %ecx
	movl	$0x534d4150, %edx       /* "SMAP" */
	int	$0x15
	jc	2f
	cmpl	$0x534d4150, %eax
	jne	2f
	cmpl	$20, %ecx
	jb	3f
	incw	%bp
	addw	$24, %di
3:	testl	%ebx, %ebx
	jz	2f
	cmpw	$E820_MAX, %bp
	jb	1b
2:	movw	%bp, e820_count
	ret

	.code32
pm_start:
	DATA32_SEGMENTS
	movl	$__bss_start, %edi
	movl	$_stage_end, %ecx
	subl	%edi, %ecx
	xorl	%eax, %eax
	rep stosb
	movl	$stack_top, %esp
	call	sse_enable
	movzbl	boot_drive, %eax
	pushl	%eax
	call	stand_main
3:	cli
	hlt
	jmp	3b

/*
 * SSE on, as UEFI firmware leaves it for a loader: the i386 core uses it
 * in its SHA-NI and SSSE3 functions only (target attributes; the rest is
 * -mgeneral-regs-only), the long-mode code (stand/lm64.c) throughout.
 * CR4.OSFXSR is set only where CPUID reports FXSR and SSE: elsewhere it
 * faults. CR0: EM and TS off, MP on; CR4: OSFXSR, OSXMMEXCPT. Kernels set
 * their own. Every processor runs this (application processors too).
 */
sse_enable:
	pushl	%ebx
	movl	$1, %eax
	cpuid
	andl	$0x03000000, %edx	/* FXSR (24), SSE (25) */
	cmpl	$0x03000000, %edx
	jne	1f
	movl	%cr0, %eax
	andl	$~0xc, %eax		/* EM, TS */
	orl	$0x2, %eax
	movl	%eax, %cr0
	movl	%cr4, %eax
	orl	$0x600, %eax
	movl	%eax, %cr4
1:	popl	%ebx
	ret

/*
 * int lm64_call(u32 entry, u32 arg, u32 cr3, u32 xcr0)
 * Calls entry(arg), x86-64 code (stand/lm64.c, SysV ABI), in long mode
 * on this stack and returns its int: PAE paging on cr3 (an identity map
 * of 4 GiB), EFER.LME, CR0.PG, a far jump to CODE64; on the way back a
 * far return to CODE32, then paging, LME and CR4 as they were. xcr0 != 0:
 * CR4.OSXSAVE and XCR0 = xcr0 for the call (the YMM state, for AVX2),
 * XCR0 back as it was (1, its reset value, where OSXSAVE was off) before
 * CR4 is restored. R8-R15 are cleared before the way back: nothing of the
 * call stays in them. Interrupts stay off throughout: nothing in between
 * calls the BIOS.
 */
	.globl	lm64_call
lm64_call:
	pushl	%ebp
	pushl	%ebx
	pushl	%esi
	pushl	%edi
	pushfl
	cli
	pushl	$1			/* XCR0 to restore (per processor) */
	movl	28(%esp), %esi		/* entry */
	movl	32(%esp), %edi		/* arg */
	movl	36(%esp), %eax
	movl	%eax, %cr3
	movl	%cr4, %ebp		/* restored on the way back */
	testl	$0x40000, %ebp
	jz	2f
	xorl	%ecx, %ecx
	xgetbv
	movl	%eax, (%esp)
2:	movl	%ebp, %eax
	orl	$0x20, %eax		/* PAE */
	cmpl	$0, 40(%esp)
	je	1f
	movl	%ebp, %eax
	orl	$0x40020, %eax		/* PAE, OSXSAVE */
	movl	%eax, %cr4
	movl	40(%esp), %eax
	xorl	%ecx, %ecx
	xorl	%edx, %edx
	xsetbv
	movl	%cr4, %eax
1:	movl	%eax, %cr4
	LONG_MODE_ON
	ljmpl	$CODE64, $lm64_enter
	.code64
lm64_enter:
	movl	%esp, %esp		/* upper halves are undefined here */
	movl	%esi, %esi
	movl	%edi, %edi
	movl	%ebp, %ebp
	movq	%rsp, %rbx		/* callee-saved in the SysV ABI */
	andq	$-16, %rsp
	call	*%rsi
	movq	%rbx, %rsp
	LK_CLEAR_R8_R15
	pushq	$CODE32
	leaq	lm64_leave(%rip), %rcx
	pushq	%rcx
	lretq
	.code32
lm64_leave:
	movl	%eax, %esi
	movl	%cr0, %eax
	andl	$0x7fffffff, %eax	/* paging off: long mode off */
	movl	%eax, %cr0
	movl	$0xc0000080, %ecx
	rdmsr
	andl	$~0x100, %eax
	wrmsr
	movl	%cr4, %eax
	testl	$0x40000, %eax
	jz	1f
	movl	(%esp), %eax
	xorl	%ecx, %ecx
	xorl	%edx, %edx
	xsetbv
1:	movl	%ebp, %cr4
	movw	$DATA32, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movl	%esi, %eax
	addl	$4, %esp
	popfl
	popl	%edi
	popl	%esi
	popl	%ebx
	popl	%ebp
	ret

/*
 * Application processors (stand/mp.c): a STARTUP IPI with vector
 * AP_TRAMP >> 12 starts each at ap_trampoline, copied to AP_TRAMP, in
 * real mode. It turns the caches on, takes this stage's GDT into
 * protected mode, a 32 KiB stack of its own (ap_stacks + 32 KiB *
 * (index + 1); past ap_max it halts), SSE, and calls stand_ap_main,
 * which never returns. The boot
 * processor stops them all with INIT IPIs before anything frees this
 * code or their stacks.
 */
	.code16
	.globl	ap_trampoline, ap_trampoline_end
ap_trampoline:
	cli
	xorw	%ax, %ax
	movw	%ax, %ds
	lgdtl	gdt_desc
	movl	%cr0, %eax
	andl	$~0x60000000, %eax	/* CD, NW: caches on (INIT keeps them) */
	orl	$1, %eax
	movl	%eax, %cr0
	ljmpl	$CODE32, $ap_pm
ap_trampoline_end:

	.code32
ap_pm:
	DATA32_SEGMENTS
	movl	$1, %eax
	lock xaddl %eax, ap_index
	cmpl	ap_max, %eax
	jae	ap_halt
	incl	%eax
	shll	$15, %eax
	addl	ap_stacks, %eax
	movl	%eax, %esp
	cld
	call	sse_enable
	call	stand_ap_main
ap_halt:
	cli
	hlt
	jmp	ap_halt

	.balign 4
	.globl	ap_index, ap_max, ap_stacks
ap_index:	.long 0
ap_max:		.long 0
ap_stacks:	.long 0

/*
 * void bios_call(int intno, struct bios_regs *r)
 * Drops to real mode, loads the registers from *r, runs INT intno with
 * interrupts enabled, stores the registers and flags back into *r and
 * returns to protected mode. Only usable with buffers below 1 MiB.
 */
	.globl	bios_call
bios_call:
	pushl	%ebp
	pushl	%ebx
	pushl	%esi
	pushl	%edi
	movl	20(%esp), %eax
	movb	%al, int_insn + 1
	movl	24(%esp), %esi
	movl	$thunk_regs, %edi
	movl	$10, %ecx
	rep movsl
	movl	%esp, saved_esp
	ljmp	$CODE16, $rm_prepare

	.code16
rm_prepare:
	movw	$DATA16, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %fs
	movw	%ax, %gs
	movw	%ax, %ss
	movl	%cr0, %eax
	andl	$~1, %eax
	movl	%eax, %cr0
	ljmp	$0, $rm_call
rm_call:
	xorw	%ax, %ax
	movw	%ax, %ds
	movw	%ax, %fs
	movw	%ax, %gs
	movw	%ax, %ss
	movw	$RM_STACK, %sp
	lidt	ivt_desc
	movw	thunk_regs + 38, %ax
	movw	%ax, %es
	pushw	thunk_regs + 36
	movl	thunk_regs + 0, %eax
	movl	thunk_regs + 4, %ebx
	movl	thunk_regs + 8, %ecx
	movl	thunk_regs + 12, %edx
	movl	thunk_regs + 16, %esi
	movl	thunk_regs + 20, %edi
	movl	thunk_regs + 24, %ebp
	popw	%ds
	sti
int_insn:
	int	$0
	cli
	pushfl
	pushw	%ds
	pushw	$0
	popw	%ds
	movl	%eax, thunk_regs + 0
	movl	%ebx, thunk_regs + 4
	movl	%ecx, thunk_regs + 8
	movl	%edx, thunk_regs + 12
	movl	%esi, thunk_regs + 16
	movl	%edi, thunk_regs + 20
	movl	%ebp, thunk_regs + 24
	popw	thunk_regs + 36
	movw	%es, thunk_regs + 38
	popl	thunk_regs + 28
	cld
	lgdtl	gdt_desc
	movl	%cr0, %eax
	orl	$1, %eax
	movl	%eax, %cr0
	ljmpl	$CODE32, $pm_return

	.code32
pm_return:
	DATA32_SEGMENTS
	movl	saved_esp, %esp
	movl	24(%esp), %edi
	movl	$thunk_regs, %esi
	movl	$10, %ecx
	rep movsl
	popl	%edi
	popl	%esi
	popl	%ebx
	popl	%ebp
	ret

/*
 * void stand_enter(u32 entry, u32 info, u32 magic, u32 wipe_lo, u32 wipe_len,
 *                  u32 kernel_esp)
 * Copies a tiny stub below the stage and runs it: the stub zeroes the low
 * bounce/stack area and the whole stage (code, data, stack: this very
 * function included), then jumps to the kernel with EAX = magic and
 * EBX = info in the Multiboot2 machine state (flat 32-bit, paging off,
 * interrupts off; GDTR at a copy of our GDT at ENTER_GDT). The stub uses
 * no stack, so wiping the stack is safe. ESP is kernel_esp at the jump
 * (0 for Multiboot2; the OpenBSD protocol passes its arguments there); it
 * waits at ENTER_GDT + 0x48, outside the wiped ranges, as every register
 * is busy in the stub.
 */
	.globl	stand_enter
stand_enter:
	cli
	movl	$enter_stub, %esi
	movl	$ENTER_STUB, %edi
	movl	$(enter_stub_end - enter_stub), %ecx
	rep movsb
	/* The wipe erases our GDT; the kernel gets a copy beside the stub so
	 * GDTR stays valid for it (the same selectors, flat). */
	movl	$gdt, %esi
	movl	$ENTER_GDT, %edi
	movl	$(gdt_end - gdt), %ecx
	rep movsb
	movw	$(gdt_end - gdt - 1), ENTER_GDT + 0x40
	movl	$ENTER_GDT, ENTER_GDT + 0x42
	lgdtl	ENTER_GDT + 0x40
	movl	24(%esp), %eax
	movl	%eax, ENTER_GDT + 0x48
	movl	4(%esp), %edx
	movl	8(%esp), %ebx
	movl	12(%esp), %esi
	movl	16(%esp), %ebp
	movl	20(%esp), %eax
	movl	%eax, %esp              /* wipe length, no stack from here on */
	movl	$ENTER_STUB, %eax
	jmp	*%eax

enter_stub:
	cld
	xorl	%eax, %eax
	movl	$0x1000, %edi           /* real-mode stack (BIOS call frames) */
	movl	$(ENTER_STUB - 0x1000), %ecx
	rep stosb
	movl	%ebp, %edi
	movl	%esp, %ecx
	rep stosb
	xorl	%ecx, %ecx
	xorl	%edi, %edi
	xorl	%ebp, %ebp
	movl	ENTER_GDT + 0x48, %esp
	movl	%esi, %eax
	xorl	%esi, %esi
	jmp	*%edx
enter_stub_end:

/*
 * void stand_enter_linux(u32 entry, u32 info, u32 mode, u32 wipe_lo,
 *                        u32 wipe_len, u32 cr3)
 * Linux's entry (Documentation/x86/boot.rst) after the same wipe as
 * stand_enter: a GDT with __BOOT_CS 0x10 and __BOOT_DS 0x18 (0x08 stays
 * the stage's 32-bit code, which the stub runs in), DS/ES/SS = 0x18,
 * interrupts off, ESI = info, EBX = EBP = EDI = 0. LK_ENTRY_LINUX32 (1):
 * 0x10 is 32-bit code, paging off (a bzImage's code32_start). LK_ENTRY_
 * LONG64 (2): 0x10 is 64-bit code; PAE, CR3 = cr3 (the caller's identity
 * map of 4 GiB), EFER.LME and CR0.PG, then RSI = info (a vmlinux's
 * startup_64). Mode, CR3 and the far pointer wait at ENTER_GDT + 0x48..
 * 0x55, outside the wiped ranges.
 */
	.globl	stand_enter_linux
stand_enter_linux:
	cli
	movl	$linux_stub, %esi
	movl	$ENTER_STUB, %edi
	movl	$(linux_stub_end - linux_stub), %ecx
	rep movsb
	movl	$linux_gdt, %esi
	movl	$ENTER_GDT, %edi
	movl	$(linux_gdt_end - linux_gdt), %ecx
	rep movsb
	cmpl	$2, 12(%esp)
	jne	1f
	movl	$0x0000ffff, ENTER_GDT + 0x10	/* 0x10: 64-bit code */
	movl	$0x00af9a00, ENTER_GDT + 0x14
1:	movw	$(linux_gdt_end - linux_gdt - 1), ENTER_GDT + 0x40
	movl	$ENTER_GDT, ENTER_GDT + 0x42
	lgdtl	ENTER_GDT + 0x40
	movl	12(%esp), %eax
	movl	%eax, ENTER_GDT + 0x48	/* mode */
	movl	24(%esp), %eax
	movl	%eax, ENTER_GDT + 0x4c	/* cr3 */
	movl	4(%esp), %edx
	movl	%edx, ENTER_GDT + 0x50	/* far pointer: entry, 0x10 */
	movw	$0x10, ENTER_GDT + 0x54
	movl	8(%esp), %ebx
	movl	16(%esp), %ebp
	movl	20(%esp), %eax
	movl	%eax, %esp		/* wipe length, no stack from here on */
	movl	$ENTER_STUB, %eax
	jmp	*%eax

linux_stub:
	cld
	xorl	%eax, %eax
	movl	$0x1000, %edi
	movl	$(ENTER_STUB - 0x1000), %ecx
	rep stosb
	movl	%ebp, %edi
	movl	%esp, %ecx
	rep stosb
	movl	$0x18, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %fs
	movl	%eax, %gs
	movl	%eax, %ss
	movl	%ebx, %esi
	xorl	%ebx, %ebx
	xorl	%ebp, %ebp
	xorl	%edi, %edi
	cmpl	$2, ENTER_GDT + 0x48
	je	2f
	xorl	%eax, %eax
	xorl	%ecx, %ecx
	ljmpl	*(ENTER_GDT + 0x50)
2:	movl	%cr4, %eax
	orl	$0x20, %eax		/* PAE */
	movl	%eax, %cr4
	movl	ENTER_GDT + 0x4c, %eax
	movl	%eax, %cr3
	LONG_MODE_ON
	ljmpl	$0x10, $(ENTER_STUB + linux_long - linux_stub)
	.code64
linux_long:
	movl	ENTER_GDT + 0x50, %eax	/* rdmsr took EDX; zero-extends */
	xorl	%ecx, %ecx
	xorl	%edx, %edx
	jmp	*%rax
	.code32
linux_stub_end:

	.balign 8
linux_gdt:
	.quad	0
	.quad	0x00cf9a000000ffff      /* 0x08: 32-bit code (the stub) */
	.quad	0x00cf9a000000ffff      /* 0x10: __BOOT_CS */
	.quad	0x00cf92000000ffff      /* 0x18: __BOOT_DS */
linux_gdt_end:

	.balign 8
gdt:
	.quad	0
	.quad	0x00cf9a000000ffff      /* 0x08: 32-bit code, flat */
	.quad	0x00cf92000000ffff      /* 0x10: 32-bit data, flat */
	.quad	0x00009a000000ffff      /* 0x18: 16-bit code, 64 KiB */
	.quad	0x000092000000ffff      /* 0x20: 16-bit data, 64 KiB */
	.quad	0x00af9a000000ffff      /* 0x28: 64-bit code (lm64_call) */
gdt_end:
	.balign 4
	.word	0
gdt_desc:
	.word	gdt_end - gdt - 1
	.long	gdt
	.word	0
ivt_desc:
	.word	0x3ff
	.long	0

	.balign 4
saved_esp:	.long 0
	/* struct bios_regs: eax ebx ecx edx esi edi ebp eflags ds es pad */
thunk_regs:	.fill 10, 4, 0
	.globl	boot_drive, e820_count, e820_map
boot_drive:	.byte 0
	.balign 4
e820_count:	.word 0, 0
e820_calls:	.word 0
	.balign 8
e820_map:	.fill E820_MAX * 24, 1, 0
msg_a20:	.asciz "relinkboot: cannot enable A20\r\n"

	/* 64 KiB: the linker core recurses little, but inflate tables are
	 * large locals in some builds. */
	.section .bss
	.balign 16
	.globl	stand_stack             /* its bottom: stand/leaktest.c */
stand_stack:
stack:	.space 0x10000
stack_top:

	.section .note.GNU-stack, "", @progbits
