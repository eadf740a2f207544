/*
 * Entry from a Multiboot2 loader: 32-bit protected mode, paging off,
 * EAX = 0x36d76289, EBX = physical address of the boot information.
 * Builds page tables that identity-map the first 4 GiB (the loader's info,
 * the memory we scan) and map the same memory at KERNBASE so the kernel
 * runs at its link address, enters long mode and calls main(info, magic).
 * Until paging is on, every address is the link address minus KERNBASE.
 */
#define KERNBASE	0xffffffff80000000
#define RELOC(x)	((x) - KERNBASE)
#define MB2_HDR_MAGIC	0xe85250d6
#define MB2_BOOT_MAGIC	0x36d76289
#define PG_P		0x001
#define PG_RW		0x002
#define PG_PS		0x080
#define NPD		4		/* page directories: 4 x 1 GiB */

	.section .text
	.code32

/* The header must sit in the first 32 KiB of the file: locore is pinned
 * first in .text, and this is its first item. */
	.balign	8
locore_mb2_header:
	.long	MB2_HDR_MAGIC
	.long	0				/* i386 */
	.long	locore_mb2_header_end - locore_mb2_header
	.long	0x100000000 - (MB2_HDR_MAGIC + (locore_mb2_header_end - locore_mb2_header))
	/* entry address tag: start is a higher-half symbol, so say where
	 * it is physically */
	.balign	8
	.short	3, 0
	.long	12
	.long	RELOC(start)
	.balign	8
	.short	0, 0				/* end tag */
	.long	8
locore_mb2_header_end:

	.globl	start
	.type	start, @function
start:
	cli
	cld
	movl	%eax, %esi			/* magic, checked in C */
	movl	%ebx, %ebp			/* info */
	movl	$RELOC(locore_stack_top), %esp

	/* Zero the tables: .bss may be zero already, but we do not rely
	 * on the loader for page tables. */
	movl	$RELOC(locore_pt), %edi
	movl	$(7 * 4096 / 4), %ecx
	xorl	%eax, %eax
	rep stosl

	/* 4 page directories of 2 MiB pages: PA 0 .. 4 GiB */
	movl	$RELOC(locore_pt) + 3 * 4096, %edi
	movl	$(PG_P | PG_RW | PG_PS), %eax
	movl	$(NPD * 512), %ecx
1:	movl	%eax, (%edi)
	movl	$0, 4(%edi)
	addl	$0x200000, %eax
	addl	$8, %edi
	loop	1b

	/* low PDPT (page 1): identity, 4 GiB */
	movl	$RELOC(locore_pt) + 1 * 4096, %edi
	movl	$RELOC(locore_pt) + 3 * 4096 + (PG_P | PG_RW), %eax
	movl	$NPD, %ecx
2:	movl	%eax, (%edi)
	addl	$4096, %eax
	addl	$8, %edi
	loop	2b

	/* high PDPT (page 2): entries 510, 511 = VA KERNBASE .. +2 GiB */
	movl	$RELOC(locore_pt) + 2 * 4096, %edi
	movl	$RELOC(locore_pt) + 3 * 4096 + (PG_P | PG_RW), %eax
	movl	%eax, 510 * 8(%edi)
	addl	$4096, %eax
	movl	%eax, 511 * 8(%edi)

	/* PML4 (page 0) */
	movl	$RELOC(locore_pt), %edi
	movl	$RELOC(locore_pt) + 1 * 4096 + (PG_P | PG_RW), %eax
	movl	%eax, (%edi)
	movl	$RELOC(locore_pt) + 2 * 4096 + (PG_P | PG_RW), %eax
	movl	%eax, 511 * 8(%edi)

	movl	%cr4, %eax
	orl	$0x20, %eax			/* PAE */
	movl	%eax, %cr4
	movl	$RELOC(locore_pt), %eax
	movl	%eax, %cr3
	movl	$0xc0000080, %ecx		/* EFER */
	rdmsr
	orl	$0x100, %eax			/* LME */
	wrmsr
	movl	%cr0, %eax
	orl	$0x80000001, %eax		/* PG | PE */
	movl	%eax, %cr0

	lgdt	RELOC(locore_gdt_desc)
	ljmp	$0x08, $RELOC(locore_long)
	.size	start, . - start

	.code64
	.type	locore_long, @function
locore_long:
	movabs	$locore_high, %rax
	jmp	*%rax
	.size	locore_long, . - locore_long

	.type	locore_high, @function
locore_high:
	movl	$0x10, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %ss
	xorl	%eax, %eax
	movl	%eax, %fs
	movl	%eax, %gs
	movabs	$locore_stack_top, %rsp
	xorl	%ebx, %ebx
	movl	%ebp, %edi			/* info (zero-extended) */
	/* %esi = magic already */
	call	main
3:	cli
	hlt
	jmp	3b
	.size	locore_high, . - locore_high

	.globl	locore_marker
	.type	locore_marker, @function
locore_marker:
	ret
	.size	locore_marker, . - locore_marker

	.globl	locore_ident
	.type	locore_ident, @function
locore_ident:
	movq	$locore_name, %rax
	ret
	.size	locore_ident, . - locore_ident

	.section .rodata
	.balign	8
locore_gdt:
	.quad	0
	.quad	0x00af9a000000ffff		/* 0x08: 64-bit code */
	.quad	0x00cf92000000ffff		/* 0x10: data */
locore_gdt_end:
	.balign	8
locore_gdt_desc:
	.short	locore_gdt_end - locore_gdt - 1
	.long	RELOC(locore_gdt)
	.long	0
locore_name:
	.asciz	"locore"

	.section .initcall, "aw"
	.balign	8
	/* locore's init entry: proves a pinned asm object keeps its place */
	.quad	locore_name
	.quad	locore_init
	.long	0				/* OBJ_INDEX of locore */
	.long	0

	.text
	.type	locore_init, @function
locore_init:
	ret
	.size	locore_init, . - locore_init

	.bss
	.balign	4096
locore_pt:
	.space	7 * 4096
	.balign	16
locore_stack:
	.space	32768
locore_stack_top:

	.section .note.GNU-stack, "", @progbits
