/*
 * /bin/efault of the Linux boot tests' initramfs: uname(2) into an
 * unmapped user address must return -EFAULT, which the kernel only
 * manages through its exception table (copy_to_user's fault is fixed up
 * from __ex_table, which a relinked kernel must have sorted); an unsorted
 * table is an oops instead. No libc: built -static -nostdlib.
 */
#define SYS_write 1
#define SYS_uname 63
#define SYS_exit 60
#define EFAULT 14

static long sys3(long n, long a, long b, long c)
{
	long r;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return r;
}

static void say(const char *s)
{
	long n = 0;

	while (s[n])
		n++;
	sys3(SYS_write, 1, (long)s, n);
}

void _start(void)
{
	long r = sys3(SYS_uname, 0x10, 0, 0);

	say(r == -EFAULT ? "linuxtest: efault ok\n" : "linuxtest: efault wrong\n");
	sys3(SYS_exit, 0, 0, 0);
	for (;;)
		;
}
