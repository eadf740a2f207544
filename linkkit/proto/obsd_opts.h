/*
 * OpenBSD's boot options as boot(8) spells them, parsed for RELINK.CFG
 * (and the prompt): flags `-acsd`, a root `DUID.p` or `sd1a`, a console
 * `comN` and its speed. Each parser takes untrusted bytes (p, n), returns
 * 0 with the value set or -1 with nothing changed.
 */
#ifndef LK_PROTO_OBSD_OPTS_H
#define LK_PROTO_OBSD_OPTS_H

#include "../config.h"

/* boot(8)'s RB_* bits (sys/reboot.h). */
#define LK_RB_ASKNAME 0x1u
#define LK_RB_SINGLE 0x2u
#define LK_RB_KDB 0x40u
#define LK_RB_CONFIG 0x400u
#define LK_RB_GOODRANDOM 0x10000u

int lk_obsd_parse_howto(const char *p, lk_size n, lk_u32 *howto);
int lk_obsd_parse_root(const char *p, lk_size n, struct lk_obsd_opts *o);
int lk_obsd_parse_tty(const char *p, lk_size n, struct lk_obsd_opts *o);
int lk_obsd_parse_stty(const char *p, lk_size n, struct lk_obsd_opts *o);
/* The I/O port of comN (0..3), as the PC has them. */
lk_u32 lk_obsd_com_port(lk_u32 unit);

#endif
