/* stand/lm64.c linked (lm64.bin, stand/rules.mk), in .text although it
 * writes its few statics (the stage runs unprotected): page-aligned, so the
 * alignments its linker script gives hold at run time too. */
	.section .text.lm64, "ax"
	.balign 4096
	.globl	lm64_blob
lm64_blob:
	.incbin	LM64_BIN
	.section .note.GNU-stack, "", @progbits
