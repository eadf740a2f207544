/*
 * Assembler macros both boot stages use (stand/start.S, efi/trampoline.S);
 * included by .S files only.
 */
#ifndef LK_ASM_X86_H
#define LK_ASM_X86_H

/* r8-r15 zeroed before 64-bit code hands over to code that never saved
 * them: the x86-64 core may leave layout-derived values there. */
.macro LK_CLEAR_R8_R15
	xorl	%r8d, %r8d
	xorl	%r9d, %r9d
	xorl	%r10d, %r10d
	xorl	%r11d, %r11d
	xorl	%r12d, %r12d
	xorl	%r13d, %r13d
	xorl	%r14d, %r14d
	xorl	%r15d, %r15d
.endm

#endif
