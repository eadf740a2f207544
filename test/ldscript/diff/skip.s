	.section .text,"ax",@progbits
	.byte 0x51
	.section .excl,"a",@progbits
	.byte 0xe2
	.section .note.GNU-stack,"",@progbits
