/*
 * Entry from an OpenBSD-style loader: 32-bit protected mode, paging off,
 * called like a cdecl function with (howto, bootdev, apiver, end, extmem,
 * cnvmem, ac, av) at 4(%esp)..32(%esp). Saves the nine stack words (the
 * return address too) before touching anything, identity-maps 4 GiB and
 * maps it again at KERNBASE, enters long mode and calls obsd_main().
 */
#define KERNBASE	0xffffffff80000000
#define RELOC(x)	((x) - KERNBASE)
#define PG_P		0x001
#define PG_RW		0x002
#define PG_PS		0x080
#define NPD		4

	.section .text
	.code32
	.globl	start
	.type	start, @function
start:
	cli
	cld
	/* Copy the loader's stack words and register state first. */
	movl	%esp, RELOC(obsd_entry_esp)
	movl	%esp, %esi
	movl	$RELOC(obsd_stackargs), %edi
	movl	$9, %ecx
	rep movsl
	movl	$RELOC(obsd_stack_top), %esp

	movl	$RELOC(obsd_pt), %edi
	movl	$(7 * 4096 / 4), %ecx
	xorl	%eax, %eax
	rep stosl

	movl	$RELOC(obsd_pt) + 3 * 4096, %edi
	movl	$(PG_P | PG_RW | PG_PS), %eax
	movl	$(NPD * 512), %ecx
1:	movl	%eax, (%edi)
	movl	$0, 4(%edi)
	addl	$0x200000, %eax
	addl	$8, %edi
	loop	1b

	movl	$RELOC(obsd_pt) + 1 * 4096, %edi
	movl	$RELOC(obsd_pt) + 3 * 4096 + (PG_P | PG_RW), %eax
	movl	$NPD, %ecx
2:	movl	%eax, (%edi)
	addl	$4096, %eax
	addl	$8, %edi
	loop	2b

	movl	$RELOC(obsd_pt) + 2 * 4096, %edi
	movl	$RELOC(obsd_pt) + 3 * 4096 + (PG_P | PG_RW), %eax
	movl	%eax, 510 * 8(%edi)
	addl	$4096, %eax
	movl	%eax, 511 * 8(%edi)

	movl	$RELOC(obsd_pt), %edi
	movl	$RELOC(obsd_pt) + 1 * 4096 + (PG_P | PG_RW), %eax
	movl	%eax, (%edi)
	movl	$RELOC(obsd_pt) + 2 * 4096 + (PG_P | PG_RW), %eax
	movl	%eax, 511 * 8(%edi)

	/* Paging must be off at entry: record CR0 before we turn it on. */
	movl	%cr0, %eax
	movl	%eax, RELOC(obsd_entry_cr0)
	movl	%cr4, %eax
	orl	$0x20, %eax
	movl	%eax, %cr4
	movl	$RELOC(obsd_pt), %eax
	movl	%eax, %cr3
	movl	$0xc0000080, %ecx
	rdmsr
	orl	$0x100, %eax
	wrmsr
	movl	%cr0, %eax
	orl	$0x80000001, %eax
	movl	%eax, %cr0
	lgdt	RELOC(obsd_gdt_desc)
	ljmp	$0x08, $RELOC(obsd_long)
	.size	start, . - start

	.code64
obsd_long:
	movabs	$obsd_high, %rax
	jmp	*%rax
obsd_high:
	movl	$0x10, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %ss
	xorl	%eax, %eax
	movl	%eax, %fs
	movl	%eax, %gs
	movabs	$obsd_stack_top, %rsp
	call	obsd_main
3:	cli
	hlt
	jmp	3b

	.section .rodata
	.balign	8
obsd_gdt:
	.quad	0
	.quad	0x00af9a000000ffff
	.quad	0x00cf92000000ffff
obsd_gdt_end:
	.balign	8
obsd_gdt_desc:
	.short	obsd_gdt_end - obsd_gdt - 1
	.long	RELOC(obsd_gdt)
	.long	0

	.data
	.balign	8
	.globl	obsd_stackargs, obsd_entry_esp, obsd_entry_cr0
obsd_stackargs:
	.space	9 * 4
obsd_entry_esp:
	.long	0
obsd_entry_cr0:
	.long	0

	.bss
	.balign	4096
obsd_pt:
	.space	7 * 4096
	.balign	16
	.space	16384
obsd_stack_top:

	.section .note.GNU-stack, "", @progbits
