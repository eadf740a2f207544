/* GOT-relative forms: GOTPCRELX mov/call/jmp (ld.bfd makes them mov $sym,
 * addr32 call, jmp; nop) and a plain GOTPCREL mov (lea). A form that needs a
 * GOT entry is not compared: ld.bfd then adds its .got.plt header, which
 * the kit's synthesized GOT does not reproduce. */
	.text
	.globl got_user
	.type got_user,@function
got_user:
	movq counter@GOTPCREL(%rip), %rax
	call *weak_value@GOTPCREL(%rip)
	movq %rax, %rcx
	jmp *sum_bss@GOTPCREL(%rip)
	.size got_user, .-got_user

	.globl got_plain
got_plain:
	.byte 0x48, 0x8b, 0x05	/* movq square@GOTPCREL(%rip), %rax */
	.long square@GOTPCREL-4
	ret
	.section .note.GNU-stack,"",@progbits
