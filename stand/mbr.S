/*
 * Protective-MBR boot code (440 bytes at most, real mode).
 *
 * The BIOS loads us at 0:7C00. We move out of the way to 0:0600 so the
 * stage can be read without overwriting ourselves, then read the stage
 * (LBA at 0x1B0, sector count at 0x1B4, both written by mkimage) to
 * 0:8000 with INT 13h extensions and jump to it with DL = boot drive.
 * Bytes 0x1B0..0x1FF belong to mkimage (stage location, disk signature,
 * partition table) except the final 0x55AA we emit here.
 */
	.code16
	.section .text, "ax"
	.globl _start

#define RELOC 0x0600
#define STAGE_SEG 0x0800        /* stage runs at 0:8000 */
#define STAGE_MAX 832           /* sectors: 0x8000 + 832*512 = 0x70000, the bounce buffer */
#define STAGE_MAGIC 0x53424c52  /* "RLBS" at stage offset 4 */
#define CHUNK 64                /* sectors per read: 32 KiB never crosses 64 KiB */
#define ADDR(x) ((x) - _start + RELOC)

_start:
	cli
	xorw	%ax, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movw	$0x7c00, %sp
	cld
	movw	$0x7c00, %si
	movw	$RELOC, %di
	movw	$256, %cx
	rep movsw
	ljmp	$0, $ADDR(relocated)

relocated:
	sti
	movb	%dl, ADDR(drive)

	/* INT 13h extensions present, with the packet interface (bit 0)? */
	movb	$0x41, %ah
	movw	$0x55aa, %bx
	int	$0x13
	jc	err_noext
	cmpw	$0xaa55, %bx
	jne	err_noext
	testb	$1, %cl
	jz	err_noext

	movl	ADDR(stage_lba), %eax
	movl	%eax, ADDR(dap_lba)
	movw	ADDR(stage_count), %cx
	jcxz	err_stage
	cmpw	$STAGE_MAX, %cx
	ja	err_stage
	movw	$STAGE_SEG, ADDR(dap_seg)

read_loop:
	movw	%cx, %bx
	cmpw	$CHUNK, %bx
	jbe	1f
	movw	$CHUNK, %bx
1:	movw	%bx, ADDR(dap_count)
	movw	$3, %bp                 /* tries */
retry:
	movw	$ADDR(dap), %si
	movb	$0x42, %ah
	movb	ADDR(drive), %dl
	pushw	%cx
	pushw	%bx
	int	$0x13
	popw	%bx
	popw	%cx
	jnc	read_ok
	xorb	%ah, %ah                /* reset the controller, try again */
	movb	ADDR(drive), %dl
	int	$0x13
	decw	%bp
	jnz	retry
	jmp	err_read
read_ok:
	movzwl	%bx, %eax
	addl	%eax, ADDR(dap_lba)
	shlw	$5, %ax                 /* sectors -> paragraphs */
	addw	%ax, ADDR(dap_seg)
	subw	%bx, %cx
	jnz	read_loop

	/* A blank or foreign LBA must not be executed: check start.S's magic. */
	cmpl	$STAGE_MAGIC, 0x8004
	jne	err_stage
	movb	ADDR(drive), %dl
	ljmp	$0, $0x8000

err_noext:
	movw	$ADDR(msg_noext), %si
	jmp	fail
err_stage:
	movw	$ADDR(msg_stage), %si
	jmp	fail
err_read:
	movw	$ADDR(msg_read), %si
fail:
	pushw	%si
	movw	$ADDR(msg_head), %si
	call	puts
	popw	%si
	call	puts
halt:	cli
	hlt
	jmp	halt

/* Prints the NUL-terminated string at SI on the screen and on COM1. */
puts:
	lodsb
	testb	%al, %al
	jz	2f
	pushw	%ax
	movb	$0x0e, %ah
	movw	$7, %bx
	int	$0x10
	movw	$0x3fd, %dx
1:	inb	%dx, %al
	testb	$0x20, %al
	jz	1b
	popw	%ax
	movw	$0x3f8, %dx
	outb	%al, %dx
	jmp	puts
2:	ret

msg_head:	.asciz "\r\nrelinkboot: mbr: "
msg_noext:	.asciz "no INT 13h extensions\r\n"
msg_stage:	.asciz "bad stage\r\n"
msg_read:	.asciz "disk read error\r\n"

drive:	.byte 0
	.balign 4
dap:	.byte 16, 0
dap_count:	.word 0
dap_off:	.word 0
dap_seg:	.word 0
dap_lba:	.long 0, 0

	.org 0x1b0
stage_lba:	.long 0
stage_count:	.word 0
	.org 0x1fe
	.byte 0x55, 0xaa

	.section .note.GNU-stack, "", @progbits
