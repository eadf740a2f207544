/*
 * Stands in for OpenBSD's swapgeneric.o (conf/swapgeneric.c), which the
 * Makefile's `bsd:` rule links after the shuffled objects: main.c reads
 * obsd_rootdev, so a kit that leaves this object out does not link.
 */
#include "obsd.h"

const char obsd_rootdev[] = "swapgeneric";
