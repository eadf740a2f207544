/*
 * Entry from a Multiboot2 loader: 32-bit protected mode, paging off,
 * EAX = 0x36d76289, EBX = physical address of the boot information.
 * Builds page tables that identity-map the first 4 GiB (the loader's info,
 * the memory we scan) and map the kernel at its link address (KERNBASE +
 * physical), enters long mode and calls main(info, magic).
 * The kernel is relocatable (header tag 10): a loader may put it at any
 * 2 MiB-aligned physical base below 1 GiB and says where in info tag 21
 * (UEFI firmware can hold the 16 MiB it is linked for). Until paging is
 * on, every address is the link address minus KERNBASE plus that delta
 * (%edx); afterwards the high mapping absorbs it.
 */
#define KERNBASE	0xffffffff80000000
#define RELOC(x)	((x) - KERNBASE)
#define MB2_HDR_MAGIC	0xe85250d6
#define MB2_BOOT_MAGIC	0x36d76289
#define PG_P		0x001
#define PG_RW		0x002
#define PG_PS		0x080
#define NPD		4		/* page directories: 4 x 1 GiB */
#define NPT		9		/* pages of tables: PML4, 2 PDPT, 4 + 2 PD */

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
	/* relocatable tag, optional (flags 1): loaders that ignore it load
	 * us where linked, and tag 21 then says so or is absent */
	.balign	8
	.short	10, 1
	.long	24
	.long	0x200000			/* min_addr */
	.long	0x40000000			/* max_addr: below 1 GiB */
	.long	0x200000			/* align: 2 MiB pages map us */
	.long	0				/* no preference */
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

	/* delta = load base (tag 21) - link base; 0 without the tag. No
	 * stack yet (the loader gives none), so registers only. */
	xorl	%edx, %edx
	cmpl	$MB2_BOOT_MAGIC, %esi
	jne	3f
	movl	(%ebp), %edi			/* total_size */
	addl	%ebp, %edi			/* end of the info */
	leal	8(%ebp), %ecx			/* first tag */
1:	leal	8(%ecx), %eax
	cmpl	%edi, %eax
	ja	3f
	movl	(%ecx), %eax			/* type */
	testl	%eax, %eax
	jz	3f				/* end tag */
	cmpl	$21, %eax
	je	2f
	movl	4(%ecx), %eax			/* size */
	cmpl	$8, %eax
	jb	3f
	addl	$7, %eax
	andl	$~7, %eax
	addl	%eax, %ecx
	jmp	1b
2:	cmpl	$12, 4(%ecx)
	jb	3f
	movl	8(%ecx), %edx
	subl	$RELOC(__kernel_start), %edx
3:
	leal	RELOC(locore_stack_top)(%edx), %esp
	movl	%edx, RELOC(demo_phys_delta)(%edx)
	movl	%edx, %eax
	sarl	$31, %eax
	movl	%eax, RELOC(demo_phys_delta) + 4(%edx)

	/* Zero the tables: .bss may be zero already, but we do not rely
	 * on the loader for page tables. */
	leal	RELOC(locore_pt)(%edx), %edi
	movl	$(NPT * 4096 / 4), %ecx
	xorl	%eax, %eax
	rep stosl

	/* 4 page directories of 2 MiB pages: PA 0 .. 4 GiB */
	leal	RELOC(locore_pt) + 3 * 4096(%edx), %edi
	movl	$(PG_P | PG_RW | PG_PS), %eax
	movl	$(NPD * 512), %ecx
1:	movl	%eax, (%edi)
	movl	$0, 4(%edi)
	addl	$0x200000, %eax
	addl	$8, %edi
	loop	1b

	/* 2 high page directories (pages 7, 8): VA KERNBASE + j * 2 MiB ->
	 * PA j * 2 MiB + delta, left out where that is below 0 or not
	 * below 2 GiB (the kernel lies below 1 GiB). */
	leal	RELOC(locore_pt) + 7 * 4096(%edx), %edi
	movl	%edx, %eax
	orl	$(PG_P | PG_RW | PG_PS), %eax
	movl	$1024, %ecx
1:	testl	%eax, %eax
	js	2f
	movl	%eax, (%edi)
2:	addl	$0x200000, %eax
	addl	$8, %edi
	loop	1b

	/* low PDPT (page 1): identity, 4 GiB */
	leal	RELOC(locore_pt) + 1 * 4096(%edx), %edi
	leal	RELOC(locore_pt) + 3 * 4096 + (PG_P | PG_RW)(%edx), %eax
	movl	$NPD, %ecx
2:	movl	%eax, (%edi)
	addl	$4096, %eax
	addl	$8, %edi
	loop	2b

	/* high PDPT (page 2): entries 510, 511 = VA KERNBASE .. +2 GiB */
	leal	RELOC(locore_pt) + 2 * 4096(%edx), %edi
	leal	RELOC(locore_pt) + 7 * 4096 + (PG_P | PG_RW)(%edx), %eax
	movl	%eax, 510 * 8(%edi)
	addl	$4096, %eax
	movl	%eax, 511 * 8(%edi)

	/* PML4 (page 0) */
	leal	RELOC(locore_pt)(%edx), %edi
	leal	RELOC(locore_pt) + 1 * 4096 + (PG_P | PG_RW)(%edx), %eax
	movl	%eax, (%edi)
	leal	RELOC(locore_pt) + 2 * 4096 + (PG_P | PG_RW)(%edx), %eax
	movl	%eax, 511 * 8(%edi)

	/* The GDT's physical address is known only now; the far jump's
	 * target too, pushed for lret (rdmsr below clobbers %edx). */
	leal	RELOC(locore_gdt)(%edx), %eax
	movl	%eax, RELOC(locore_gdt_desc) + 2(%edx)
	lgdt	RELOC(locore_gdt_desc)(%edx)
	pushl	$0x08
	leal	RELOC(locore_long)(%edx), %eax
	pushl	%eax
	leal	RELOC(locore_pt)(%edx), %ebx

	movl	%cr4, %eax
	orl	$0x20, %eax			/* PAE */
	movl	%eax, %cr4
	movl	%ebx, %cr3
	movl	$0xc0000080, %ecx		/* EFER */
	rdmsr
	orl	$0x100, %eax			/* LME */
	wrmsr
	movl	%cr0, %eax
	orl	$0x80000001, %eax		/* PG | PE */
	movl	%eax, %cr0

	lret
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

	/* Written before paging: the GDT base, and the physical load
	 * delta (kva_to_phys). */
	.data
	.balign	8
locore_gdt_desc:
	.short	locore_gdt_end - locore_gdt - 1
	.long	0
	.long	0
	.globl	demo_phys_delta
demo_phys_delta:
	.quad	0

	.bss
	.balign	4096
locore_pt:
	.space	NPT * 4096
	.balign	16
locore_stack:
	.space	32768
locore_stack_top:

	.section .note.GNU-stack, "", @progbits
