/* Stands in for OpenBSD's vers.o (newvers.sh): the version string. */
const char obsd_version[] = "relinkboot test kernel";
