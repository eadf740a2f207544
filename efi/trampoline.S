/*
 * Leaves UEFI's long mode for the Multiboot2 i386 machine state. This blob
 * is copied to pages below 4 GiB (identity mapped by UEFI) and entered with
 * %rdi = its own base; it must not reference anything outside itself. The
 * C side (handoff.c) fills eb_tramp_args first.
 *
 * Order matters: switch to the blob's own stack so the firmware stack (which
 * held the seed and the link state) can be wiped; load our GDT and our own
 * identity page tables so that all firmware memory, its page tables and
 * descriptor tables included, can be scrubbed; then drop to a 32-bit
 * compatibility segment, because CR0.PG may only be cleared from there.
 */
#include "../linkkit/asm_x86.h"
	.section .text.eb_tramp, "ax"
	.globl eb_tramp_start, eb_tramp_end, eb_tramp_args
	.code64
eb_tramp_start:
	cli
	cld
	movq	%rdi, %rbx
	leaq	tramp_stack_top(%rip), %rsp

	movq	arg_wipe_lo(%rip), %rdi
	movq	arg_wipe_len(%rip), %rcx
	xorl	%eax, %eax
	rep stosb

	/* Registers are memory too: the XMM ones held SHA-256 (SHA-NI) and
	 * copy temporaries of the firmware and the stage, and r8-r15 keep
	 * their values through 32-bit mode for a kernel that enters long
	 * mode again. None of them is touched below. */
	pxor	%xmm0, %xmm0
	pxor	%xmm1, %xmm1
	pxor	%xmm2, %xmm2
	pxor	%xmm3, %xmm3
	pxor	%xmm4, %xmm4
	pxor	%xmm5, %xmm5
	pxor	%xmm6, %xmm6
	pxor	%xmm7, %xmm7
	pxor	%xmm8, %xmm8
	pxor	%xmm9, %xmm9
	pxor	%xmm10, %xmm10
	pxor	%xmm11, %xmm11
	pxor	%xmm12, %xmm12
	pxor	%xmm13, %xmm13
	pxor	%xmm14, %xmm14
	pxor	%xmm15, %xmm15
	LK_CLEAR_R8_R15

	leaq	gdt(%rip), %rax
	movq	%rax, gdtr_base(%rip)
	lgdt	gdtr(%rip)

	/* PCIDE set would make clearing CR0.PG fault. */
	movq	%cr4, %rax
	andq	$~(1 << 17), %rax
	movq	%rax, %cr4

	/* Without our tables (cr3 0) a 32-bit entry scrubs after paging is
	 * off (scrub_off); a 64-bit one scrubs here on the firmware's. */
	movq	arg_cr3(%rip), %rax
	testq	%rax, %rax
	jz	6f
	movq	%rax, %cr3
6:	cmpl	$0, arg_scrub_off(%rip)
	jne	2f
	movq	arg_scrub_list(%rip), %rsi
	movl	arg_scrub_count(%rip), %edx
	xorl	%eax, %eax
1:	testl	%edx, %edx
	jz	2f
	movq	(%rsi), %rdi
	movq	8(%rsi), %rcx
	shrq	$3, %rcx
	rep stosq
	addq	$16, %rsi
	decl	%edx
	jmp	1b
2:
	cmpl	$2, arg_mode(%rip)	/* LK_ENTRY_LONG64 */
	je	long64
	leaq	compat32(%rip), %rax
	pushq	$0x08
	pushq	%rax
	lretq

	/* Linux's 64-bit boot protocol (boot.rst): long mode on an identity
	 * map, __BOOT_CS 0x10 (64-bit code) and __BOOT_DS 0x18 in the GDT
	 * and loaded, interrupts off, RSI = boot_params. The kernel is at
	 * its final address already (no staged copy: place_any). */
long64:
	leaq	gdt64(%rip), %rax
	movq	%rax, gdtr64_base(%rip)
	lgdt	gdtr64(%rip)
	leaq	7f(%rip), %rax
	pushq	$0x10
	pushq	%rax
	lretq
7:	movl	$0x18, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %ss
	movl	%eax, %fs
	movl	%eax, %gs
	movl	arg_copy_len(%rip), %ecx
	movl	arg_copy_src(%rip), %esi
	movl	arg_copy_dst(%rip), %edi
	rep movsb
	movl	arg_copy_len(%rip), %ecx
	movl	arg_copy_src(%rip), %edi
	xorl	%eax, %eax
	rep stosb
	movl	arg_entry(%rip), %eax
	movl	arg_info(%rip), %esi
	xorl	%ebx, %ebx
	xorl	%ecx, %ecx
	xorl	%edx, %edx
	xorl	%edi, %edi
	xorl	%ebp, %ebp
	/* Nothing of the stage's in the registers the kernel inherits. */
	LK_CLEAR_R8_R15
	jmp	*%rax

	.code32
compat32:
	movl	$0x10, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %fs
	movl	%eax, %gs
	movl	%eax, %ss

	movl	%cr0, %eax
	andl	$0x7fffffff, %eax	/* CR0.PG off: now legacy protected mode */
	movl	%eax, %cr0

	movl	$0xc0000080, %ecx	/* IA32_EFER */
	rdmsr
	andl	$~0x100, %eax		/* LME off */
	wrmsr

	movl	%cr4, %eax
	andl	$~0x20, %eax		/* PAE off: the kernel chooses its own */
	movl	%eax, %cr4
	xorl	%eax, %eax
	movl	%eax, %cr3

	/* Without our own page tables the scrub waits for paging to be off
	 * (firmware page tables live in the memory it zeroes); the C side
	 * then lists only memory below 4 GiB. */
	cmpl	$0, (arg_scrub_off - eb_tramp_start)(%ebx)
	je	4f
	movl	(arg_scrub_list - eb_tramp_start)(%ebx), %ebp
	movl	(arg_scrub_count - eb_tramp_start)(%ebx), %edx
	xorl	%eax, %eax
3:	testl	%edx, %edx
	jz	4f
	movl	(%ebp), %edi
	movl	8(%ebp), %ecx
	shrl	$2, %ecx
	rep stosl
	addl	$16, %ebp
	decl	%edx
	jmp	3b
4:
	/* Staged kernel: move it into place now that nothing of the firmware
	 * is needed any more, then wipe the staging copy. */
	movl	(arg_copy_len - eb_tramp_start)(%ebx), %ecx
	movl	(arg_copy_src - eb_tramp_start)(%ebx), %esi
	movl	(arg_copy_dst - eb_tramp_start)(%ebx), %edi
	rep movsb
	movl	(arg_copy_len - eb_tramp_start)(%ebx), %ecx
	movl	(arg_copy_src - eb_tramp_start)(%ebx), %edi
	xorl	%eax, %eax
	rep stosb

	/* The OpenBSD protocol's arguments are on a stack the C side built;
	 * other kernels keep the trampoline stack (they must not rely on it). */
	movl	(arg_esp - eb_tramp_start)(%ebx), %eax
	testl	%eax, %eax
	jz	5f
	movl	%eax, %esp
5:
	movl	(arg_entry - eb_tramp_start)(%ebx), %edx
	movl	(arg_magic - eb_tramp_start)(%ebx), %eax
	movl	(arg_info - eb_tramp_start)(%ebx), %ebx
	xorl	%ecx, %ecx
	xorl	%esi, %esi
	xorl	%edi, %edi
	xorl	%ebp, %ebp
	jmp	*%edx

	.balign 16
gdt:
	.quad	0
	.quad	0x00cf9a000000ffff	/* 0x08: 32-bit flat code */
	.quad	0x00cf92000000ffff	/* 0x10: 32-bit flat data */
gdt_end:
	.balign 16
	.word	0, 0, 0
gdtr:
	.word	gdt_end - gdt - 1
gdtr_base:
	.quad	0

	.balign 16
gdt64:
	.quad	0
	.quad	0
	.quad	0x00af9a000000ffff	/* 0x10: __BOOT_CS, 64-bit code */
	.quad	0x00cf92000000ffff	/* 0x18: __BOOT_DS, flat data */
gdt64_end:
	.balign 16
	.word	0, 0, 0
gdtr64:
	.word	gdt64_end - gdt64 - 1
gdtr64_base:
	.quad	0

	.balign 16
eb_tramp_args:		/* struct eb_tramp_args in handoff.c */
arg_wipe_lo:	.quad	0
arg_wipe_len:	.quad	0
arg_cr3:	.quad	0
arg_scrub_list:	.quad	0
arg_scrub_count: .long	0
arg_scrub_off:	.long	0
arg_entry:	.long	0
arg_info:	.long	0
arg_magic:	.long	0
arg_copy_src:	.long	0
arg_copy_dst:	.long	0
arg_copy_len:	.long	0
arg_esp:	.long	0
arg_mode:	.long	0

	.balign 16
tramp_stack:
	.fill	1024, 1, 0
tramp_stack_top:
eb_tramp_end:
	.section .note.GNU-stack, "", @progbits
