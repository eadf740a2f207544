/*
 * Leaves UEFI's long mode for the Multiboot2 i386 machine state. This blob
 * is copied to pages below 4 GiB (identity mapped by UEFI) and entered with
 * %rdi = its own base; it must not reference anything outside itself. The
 * C side fills eb_tramp_args first.
 *
 * Order matters: switch to the blob's own stack so the firmware stack (which
 * held the seed and the link state) can be wiped; then drop to a 32-bit
 * compatibility segment, because CR0.PG may only be cleared from there.
 */
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

	/* PCIDE set would make clearing CR0.PG fault. */
	movq	%cr4, %rax
	andq	$~(1 << 17), %rax
	movq	%rax, %cr4

	leaq	gdt(%rip), %rax
	movq	%rax, gdtr_base(%rip)
	lgdt	gdtr(%rip)
	leaq	compat32(%rip), %rax
	pushq	$0x08
	pushq	%rax
	lretq

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

	/* Scrub what the firmware and this application leave behind. */
	movl	(arg_scrub_list - eb_tramp_start)(%ebx), %ebp
	movl	(arg_scrub_count - eb_tramp_start)(%ebx), %edx
	xorl	%eax, %eax
1:	testl	%edx, %edx
	jz	2f
	movl	(%ebp), %edi
	movl	4(%ebp), %ecx
	shrl	$2, %ecx
	rep stosl
	addl	$8, %ebp
	decl	%edx
	jmp	1b
2:
	/* Staged kernel: move it into place now that paging (whose tables
	 * may live in the destination) is off, then wipe the staging copy. */
	movl	(arg_copy_len - eb_tramp_start)(%ebx), %ecx
	movl	(arg_copy_src - eb_tramp_start)(%ebx), %esi
	movl	(arg_copy_dst - eb_tramp_start)(%ebx), %edi
	rep movsb
	movl	(arg_copy_len - eb_tramp_start)(%ebx), %ecx
	movl	(arg_copy_src - eb_tramp_start)(%ebx), %edi
	xorl	%eax, %eax
	rep stosb

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
eb_tramp_args:		/* struct eb_tramp_args in handoff.c */
arg_wipe_lo:	.quad	0
arg_wipe_len:	.quad	0
arg_entry:	.long	0
arg_info:	.long	0
arg_magic:	.long	0
		.long	0
arg_copy_src:	.long	0
arg_copy_dst:	.long	0
arg_copy_len:	.long	0
		.long	0
arg_scrub_list:	.long	0
arg_scrub_count: .long	0

	.balign 16
tramp_stack:
	.fill	1024, 1, 0
tramp_stack_top:
eb_tramp_end:
	.section .note.GNU-stack, "", @progbits
