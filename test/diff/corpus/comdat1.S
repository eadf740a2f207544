/* A COMDAT group as compilers emit for inline functions and thunks, with
 * a different body in comdat2.S: the copy in the object that comes first
 * in link order is kept, the other discarded. */
	.section .text.comdat_helper,"axG",@progbits,comdat_helper,comdat
	.globl comdat_helper
	.type comdat_helper,@function
comdat_helper:
	movq $1, %rax
	ret
	.size comdat_helper, .-comdat_helper

	.section .rodata.comdat_data,"aG",@progbits,comdat_helper,comdat
	.globl comdat_data
comdat_data:
	.quad comdat_helper
	.quad 0x1111111111111111

	.text
	.globl use_comdat1
use_comdat1:
	call comdat_helper
	movq comdat_data(%rip), %rax
	ret
	.section .note.GNU-stack,"",@progbits
