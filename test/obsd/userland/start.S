/*
 * Entry and system call stub of the test /sbin/init (init.c): no libc, so
 * the few things crt0 and libc's stubs would give are here.
 */

/*
 * exec_elf.c runs only binaries that say they are OpenBSD's: a PT_NOTE
 * named "OpenBSD", type 1 (ELF_NOTE_TYPE_OSVERSION), a 4-byte zero desc.
 */
	.section .note.openbsd.ident, "a", @note
	.p2align 2
	.long 8		/* namesz */
	.long 4		/* descsz */
	.long 1		/* type */
	.ascii "OpenBSD\0"
	.long 0

	.text
/*
 * exec leaves argc at (%rsp), then argv[], NULL, envp[]. init_main gets
 * that address and never returns; the ABI wants %rsp 16-aligned at a call.
 */
	.globl _start
	.type _start, @function
_start:
	movq %rsp, %rdi
	andq $-16, %rsp
	call init_main
	ud2
	.size _start, . - _start

/*
 * long sys(long n, long a1, ..., long a6): OpenBSD's amd64 convention is
 * the number in %rax and arguments in %rdi %rsi %rdx %r10 %r8 %r9; the
 * carry flag means %rax holds an errno, returned here negated.
 */
	.globl sys
	.type sys, @function
sys:
	movq %rdi, %rax
	movq %rsi, %rdi
	movq %rdx, %rsi
	movq %rcx, %rdx
	movq %r8, %r10
	movq %r9, %r8
	movq 8(%rsp), %r9
	syscall
	jnc 1f
	negq %rax
1:	ret
	.size sys, . - sys

	.section .note.GNU-stack, "", @progbits
