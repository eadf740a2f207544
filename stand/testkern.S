/*
 * Scratch Multiboot2 test kernel for stand/test-boot.sh: checks the
 * magic in EAX, prints the loader name tag and the command line from the
 * info at EBX on COM1, then exits QEMU through isa-debug-exit (0x10 =
 * pass, 0x11 = bad magic). Linked both as the fallback ELF and as a kit.
 */
	.section .text
	.code32
	.globl start
start:
	mov	%eax, %esi
	/* The stage promises a live GDT with flat 0x08 code / 0x10 data:
	 * reloading through it triple-faults (and times out) if not. */
	ljmp	$0x08, $0f
0:	mov	$0x10, %ax
	mov	%ax, %ds
	mov	%ax, %es
	mov	%ax, %ss
	mov	$0x90000, %esp
	cmp	$0x36d76289, %esi
	jne	bad
	mov	$msg_ok, %ecx
	call	puts
	/* What the stage promised to wipe: its stack/stub area, itself and
	 * the bounce buffer. */
	mov	$0x1000, %edi
	mov	$(0x7800 - 0x1000), %ecx
	call	zeroed
	jne	5f
	mov	$0x8000, %edi
	mov	$(0x80000 - 0x8000), %ecx
	call	zeroed
5:	mov	$msg_clean, %ecx
	je	6f
	mov	$msg_dirty, %ecx
6:	call	puts
	lea	8(%ebx), %edi           /* first tag */
1:	mov	(%edi), %eax
	test	%eax, %eax
	jz	done
	mov	$msg_loader, %ecx
	cmp	$2, %eax
	je	2f
	mov	$msg_cmdline, %ecx
	cmp	$1, %eax
	jne	3f
2:	call	puts
	lea	8(%edi), %ecx
	call	puts
	mov	$nl, %ecx
	call	puts
3:	mov	4(%edi), %eax           /* tags are 8-byte aligned */
	add	$7, %eax
	and	$~7, %eax
	jz	done
	add	%eax, %edi
	jmp	1b
done:
	mov	$0x10, %al
	out	%al, $0xf4
	hlt
bad:
	mov	$msg_bad, %ecx
	call	puts
	mov	$0x11, %al
	out	%al, $0xf4
	hlt

/* ZF set when ECX bytes at EDI are all zero. */
zeroed:
	xor	%eax, %eax
	cld
	repe scasb
	ret

puts:
	movb	(%ecx), %al
	test	%al, %al
	jz	4f
	mov	$0x3f8, %dx
	out	%al, %dx
	inc	%ecx
	jmp	puts
4:	ret

	.section .rodata
msg_ok:	.asciz "testkern: magic ok\r\n"
msg_bad: .asciz "testkern: bad magic\r\n"
msg_clean: .asciz "testkern: low memory clean\r\n"
msg_dirty: .asciz "testkern: low memory DIRTY\r\n"
msg_loader: .asciz "testkern: loader "
msg_cmdline: .asciz "testkern: cmdline "
nl:	.asciz "\r\n"
	.section .note.GNU-stack, "", @progbits
