/*
 * Boot-side link at kernel scale (about an OpenBSD GENERIC's object count):
 * times lk_link_open, lk_link_layout and lk_link_write on a synthetic
 * payload. Prints one line; `make bench` runs it.
 */
#include <time.h>
#include "pb.h"

#define NOBJ 2200
#define TEXT 8192
#define RELS 40

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(void)
{
	struct pb *b = pb_new();
	lk_u32 tx, ro, da, o, c, s[NOBJ], x = 1;
	struct lk_link *L = NULL;
	struct lk_rng r;
	struct lk_image_info in;
	lk_u64 size;
	double t0, t1, t2, t3;
	int rc;

	tx = pb_outsec(b, ".text", LK_SHT_PROGBITS, LK_SHF_ALLOC | LK_SHF_EXECINSTR, 16);
	ro = pb_outsec(b, ".rodata", LK_SHT_PROGBITS, LK_SHF_ALLOC, 16);
	da = pb_outsec(b, ".data", LK_SHT_PROGBITS, LK_SHF_ALLOC | LK_SHF_WRITE, 16);
	for (o = 0; o < NOBJ; o++) {
		char n[24];
		snprintf(n, sizeof(n), "obj%u.o", o);
		pb_obj(b, n, o == 0, 0);
	}
	lk_u32 sec[3] = { tx, ro, da }, sz[3] = { TEXT, 1024, 256 };
	for (int k = 0; k < 3; k++) {
		pb_slot(b, sec[k], 0);
		for (o = 0; o < NOBJ; o++) {
			c = pb_chunk(b, o, k ? (k == 1 ? ".rodata" : ".data") : ".text",
				     sz[k], 16, 0, 0);
			if (k == 0)
				s[o] = pb_sym(b, "", LK_SYM_CHUNK, c, 0);
		}
	}
	for (o = 0; o < NOBJ; o++)
		for (int i = 0; i < RELS; i++) {
			x = x * 1103515245u + 12345u;
			pb_reloc(b, o, 8 + i * 128, i & 1 ? LK_R_X86_64_PC32 : LK_R_X86_64_32S,
				 s[(x >> 8) % NOBJ], -4);
		}
	b->hdr.entry_sym = s[0];
	pb_op(b, LK_E_CONST, 0, 0, 0xffffffff81000000ull);
	pb_op(b, LK_E_CONST, 0, 0, 0x1000000);
	pb_op(b, LK_S_SECTION, LK_SEC_VMA | LK_SEC_LMA, tx, 0);
	pb_op(b, LK_S_SLOT, 0, 0, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	for (int k = 1; k < 3; k++) {
		pb_op(b, LK_S_SECTION, 0, sec[k], 0);
		pb_op(b, LK_S_SLOT, 0, k, 0);
		pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	}
	lk_u8 *p = pb_build(b, &size);
	tlog_reset();
	lk_rng_init(&r, "bench", 5);
	t0 = now_ms();
	rc = lk_link_open(&th, p, size, "bench.kit", &L);
	t1 = now_ms();
	rc = rc ? rc : lk_link_layout(L, &r);
	t2 = now_ms();
	if (rc) {
		printf("bench link failed: %s\n", tlog[0]);
		return 1;
	}
	lk_link_info(L, &in);
	lk_u8 *img = malloc(in.load_hi - in.load_lo);
	rc = lk_link_write(L, img, &r);
	t3 = now_ms();
	printf("bench link: %u objects, %u chunks, %u relocs, %.1f MiB image: "
	       "open %.1f ms, layout %.1f ms, write %.1f ms (rc %d)\n", NOBJ,
	       b->nchunk, b->nrel, (in.load_hi - in.load_lo) / 1048576.0,
	       t1 - t0, t2 - t1, t3 - t2, rc);
	lk_link_close(L);
	free(img);
	free(p);
	free(b);
	return rc != 0;
}
