/* Stands in for OpenBSD's param.o: a tunable in .data. */
int obsd_hz = 100;
