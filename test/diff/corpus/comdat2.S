	.section .text.comdat_helper,"axG",@progbits,comdat_helper,comdat
	.globl comdat_helper
	.type comdat_helper,@function
comdat_helper:
	movq $2, %rax
	nop
	nop
	ret
	.size comdat_helper, .-comdat_helper

	.section .rodata.comdat_data,"aG",@progbits,comdat_helper,comdat
	.globl comdat_data
comdat_data:
	.quad comdat_helper
	.quad 0x2222222222222222

	.text
	.globl use_comdat2
use_comdat2:
	call comdat_helper
	leaq comdat_data(%rip), %rax
	ret
	.section .note.GNU-stack,"",@progbits
