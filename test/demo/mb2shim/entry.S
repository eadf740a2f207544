/*
 * mb2shim entry: QEMU's -kernel boots this ELF32 as a Multiboot1 kernel
 * (EAX = 0x2badb002, EBX = MB1 info, flat 32-bit segments, paging off).
 * Test tool only: it exists because no Multiboot2 loader is installed.
 */
	.section .text.entry, "ax"
	.code32
	.balign	4
shim_mb1_header:
	.long	0x1badb002
	.long	0x00000003			/* page-aligned modules, mem info */
	.long	-(0x1badb002 + 0x00000003)

	.globl	_start
_start:
	cli
	movl	$shim_stack_top, %esp
	pushl	%ebx
	pushl	%eax
	call	shim_main
1:	hlt
	jmp	1b

/* shim_jump(entry, eax, ebx): never returns */
	.globl	shim_jump
shim_jump:
	movl	4(%esp), %ecx
	movl	8(%esp), %eax
	movl	12(%esp), %ebx
	jmp	*%ecx

	.bss
	.balign	16
	.space	16384
shim_stack_top:

	.section .note.GNU-stack, "", @progbits
