	.globl _start
	.section .text,"ax",@progbits
	.balign 16
_start:	.byte 1,2,3,4,5
	.section .text.hot,"ax",@progbits
hot:	.byte 6,7
	.section .rodata,"a",@progbits
	.ascii "AAAA"
	.section .sort.b,"a",@progbits
	.balign 4
	.byte 0xb
	.section .sort.a,"a",@progbits
	.balign 16
	.byte 0xa
	.section .al.small,"a",@progbits
	.balign 2
	.byte 0x21
	.section .al.big,"a",@progbits
	.balign 32
	.byte 0x22
	.section .data,"aw",@progbits
	.quad _start
	.section .bss,"aw",@nobits
	.skip 64
	.section .ex3,"a",@progbits
	.byte 0xa3
	.section .note.GNU-stack,"",@progbits
