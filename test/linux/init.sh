#!/bin/sh
# /init of the Linux boot tests' initramfs (test/linux/test-boot.sh): it
# reports what the kernel was given as `linuxtest:` lines on the console,
# then powers off.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
# From here only errors and worse reach the console: a message in the
# middle of /init's long lines (a process's "used greatest stack depth",
# TCG's "hrtimer: interrupt took") would cut them in two. Warnings are
# replayed from dmesg at the end, where the test looks for them.
echo 4 >/proc/sys/kernel/printk
echo "linuxtest: init reached"
echo "linuxtest: cmdline $(cat /proc/cmdline)"
echo "linuxtest: marker $(cat /marker)"
grep 'System RAM' /proc/iomem | sed 's/^/linuxtest: iomem /'
# The zero page as the kernel got it (arch/x86/kernel/ksysfs.c).
od -An -v -tx1 /sys/kernel/boot_params/data | tr -d '\n' |
	sed 's/^ */linuxtest: zeropage /'
echo
# A relinked kernel's tables (issue 27): kallsyms as the kernel lists it
# (its own symbols; module, ftrace and bpf lines carry a tab), an ORC
# unwind of this process, the exception table, a module load.
grep -v "$(printf '\t')" /proc/kallsyms >/kallsyms
echo "linuxtest: kallsyms $(wc -l </kallsyms) $(sha256sum </kallsyms | cut -d' ' -f1)"
echo "linuxtest: text $(grep -m1 ' _text$' /kallsyms)"
sed 's/^/linuxtest: stack /' /proc/self/stack
[ -x /bin/efault ] && /bin/efault
[ -f /lib/modules/xt_mark.ko ] && insmod /lib/modules/xt_mark.ko &&
	grep -q '^xt_mark ' /proc/modules && echo "linuxtest: insmod xt_mark ok"
if [ -d /sys/firmware/efi ]; then
	echo "linuxtest: efi runtime $(cat /sys/firmware/efi/runtime 2>&1)"
	[ -f /lib/modules/efivarfs.ko ] && insmod /lib/modules/efivarfs.ko
	mount -t efivarfs efivarfs /sys/firmware/efi/efivars &&
		echo "linuxtest: efivarfs mounted"
	n=$(ls /sys/firmware/efi/efivars | wc -l)
	echo "linuxtest: efivars $n"
	v=/sys/firmware/efi/efivars/BootOrder-8be4df61-93ca-11d2-aa0d-00e098032b8c
	[ -r $v ] && echo "linuxtest: efivar BootOrder $(od -An -tx1 $v | tr -d '\n')"
else
	echo "linuxtest: no efi"
fi
dmesg | grep -E 'WARNING|BUG|Oops|Call Trace' | sed 's/^/dmesg: /'
echo "linuxtest: done"
poweroff -f
