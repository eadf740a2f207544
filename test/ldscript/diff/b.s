	.section .text,"ax",@progbits
	.byte 9,9,9
	.section .rodata.str,"a",@progbits
	.ascii "BB"
	.section .sort.c,"a",@progbits
	.balign 8
	.byte 0xc
	.section .excl,"a",@progbits
	.byte 0xe1
	.section .data,"aw",@progbits
	.long 0x12345678
	.section .bss,"aw",@nobits
	.skip 8
	.section .ex3,"a",@progbits
	.byte 0xb3
	.section .note.GNU-stack,"",@progbits
	.comm cbuf, 32, 16
