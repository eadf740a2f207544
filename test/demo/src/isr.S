/*
 * CPU exception entry stubs. A fault in the demo kernel must end the run
 * with a FAIL line and a QEMU exit code, not a silent triple fault, so
 * every vector 0..31 funnels into isr_common -> idt_exception(vec, err).
 */
	.text
	.code64

/* Vectors where the CPU pushes an error code. */
#define HAS_ERR(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

	.macro	isr_stub vec
	.type	isr_stub\vec, @function
isr_stub\vec:
	.if	HAS_ERR(\vec)
	.else
	pushq	$0
	.endif
	pushq	$\vec
	jmp	isr_common
	.size	isr_stub\vec, . - isr_stub\vec
	.endm

	.altmacro
	.set	v, 0
	.rept	32
	isr_stub %v
	.set	v, v + 1
	.endr

	.type	isr_common, @function
isr_common:
	movq	(%rsp), %rdi			/* vector */
	movq	8(%rsp), %rsi			/* error code */
	andq	$-16, %rsp
	call	idt_exception
1:	cli
	hlt
	jmp	1b
	.size	isr_common, . - isr_common

	.globl	isr_marker
	.type	isr_marker, @function
isr_marker:
	ret
	.size	isr_marker, . - isr_marker

	.globl	isr_ident
	.type	isr_ident, @function
isr_ident:
	movq	$isr_name, %rax
	ret
	.size	isr_ident, . - isr_ident

	.macro isr_entry vec
	.quad isr_stub\vec
	.endm

/* Table of stub addresses read by idt.c: 64-bit absolute relocations. */
	.section .rodata
	.balign	8
	.globl	isr_table
isr_table:
	.set	v, 0
	.rept	32
	isr_entry %v
	.set	v, v + 1
	.endr
isr_name:
	.asciz	"isr"

	.section .note.GNU-stack, "", @progbits
