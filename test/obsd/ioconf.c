/* Stands in for OpenBSD's ioconf.o (config(8)'s device table). */
const char *const obsd_devices[] = { "com0", "wd0" };
