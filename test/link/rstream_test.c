/*
 * The relocation stream (payload version 3, linkkit/reloc_stream.h): every
 * reason the boot side refuses a record, with its exact line; host encoder
 * to boot decoder round trips over random records; and a stream cut at
 * every byte, decoded from a buffer of exactly that size (ASan sees any
 * read past it).
 */
#include "pb.h"

void test_reloc_stream(void);

static lk_u64 rs_x = 88172645463325252ull;

static lk_u64 rs_rand(void)
{
	rs_x ^= rs_x << 13;
	rs_x ^= rs_x >> 7;
	rs_x ^= rs_x << 17;
	return rs_x;
}

/* ---- Refusals: one chunk r.o(.text) of 16 bytes, 3 symbols ---- */

struct rs_case {
	const char *name;
	lk_u8 bytes[40];
	lk_u32 nbytes, count;
	const char *line; /* the error line after "kernel.kit: OBJ(SEC): " */
};

static const struct rs_case rs_cases[] = {
	{ "rs_type_index",
	  { 0x09, 0, 0 },
	  3,
	  1,
	  "bad relocation 0 (stream byte 0): "
	  "unknown type index 9" },
	{ "rs_type_index_15",
	  { 0x00, 0, 0, 0x0f, 0, 0 },
	  6,
	  2,
	  "bad relocation 1 (stream byte 3): "
	  "unknown type index 15" },
	{ "rs_reserved_bits",
	  { 0x41, 0, 0 },
	  3,
	  1,
	  "bad relocation 0 (stream byte 0): "
	  "reserved bits set in header byte 0x41" },
	{ "rs_addend_form_3",
	  { 0x31, 0, 0 },
	  3,
	  1,
	  "bad relocation 0 (stream byte 0): "
	  "reserved bits set in header byte 0x31" },
	{ "rs_varint_11_bytes",
	  { 0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	    0x00, 0x00 },
	  13,
	  1,
	  "bad relocation 0 (stream byte 0): "
	  "varint longer than 10 bytes or over 64 bits" },
	{ "rs_varint_over_64_bits",
	  { 0x01, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0x02 },
	  12,
	  1,
	  "bad relocation 0 (stream byte 0): "
	  "varint longer than 10 bytes or over 64 bits" },
	{ "rs_addend_varint",
	  { 0x21, 0x00, 0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	    0x80, 0x80, 0x80 },
	  14,
	  1,
	  "bad relocation 0 (stream byte 0): "
	  "varint longer than 10 bytes or over 64 bits" },
	{ "rs_symbol_range",
	  { 0x01, 0x00, 0x90, 0x4e },
	  4,
	  1, /* +5000 */
	  "bad relocation 0 (stream byte 0): "
	  "symbol 5000 out of range (3 symbols)" },
	{ "rs_symbol_negative",
	  { 0x01, 0x00, 0x04, 0x01, 0x00, 0x05 },
	  6,
	  2,
	  "bad relocation 1 (stream byte 3): "
	  "symbol 18446744073709551615 out of range (3 symbols)" },
	{ "rs_offset_past_end",
	  { 0x00, 0x09, 0x00 },
	  3,
	  1,
	  "bad relocation 0 (stream byte 0): "
	  "offset 0x9 + 8 bytes past the section size 0x10" },
	{ "rs_offset_at_end",
	  { 0x06, 0x10, 0x00 },
	  3,
	  1,
	  "bad relocation 0 (stream byte 0): "
	  "offset 0x10 + 1 bytes past the section size 0x10" },
	{ "rs_offset_wraps",
	  { 0x00, 0x08, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0x01, 0x00 },
	  15,
	  2,
	  "bad relocation 1 (stream byte 3): "
	  "offset 0xffffffffffffffff + 8 bytes past the section size 0x10" },
	{ "rs_truncated",
	  { 0x00, 0x00, 0x00, 0x01, 0x04 },
	  5,
	  2,
	  "bad relocation 1 (stream byte 3): "
	  "runs past the end of the relocation stream (5 bytes)" },
	{ "rs_count_past_end",
	  { 0x00, 0x00, 0x00 },
	  3,
	  2,
	  "bad relocation 1 (stream byte 3): "
	  "runs past the end of the relocation stream (3 bytes)" },
};

/* r.o(.text) (16 bytes, its relocations at byte 0, `count` of them) and
 * dead.o: pinned behind r.o with a copy of COMDAT group g, so its copy
 * (d.o's chunk, relocations at byte dead_first) is never kept. */
static struct pb *rs_fixture(lk_u32 count, lk_u32 *c_dead)
{
	struct pb *b = pb_new();
	lk_u32 o = pb_obj(b, "r.o", 1, 0), o2 = pb_obj(b, "k.o", 2, 0);
	lk_u32 o3 = pb_obj(b, "d.o", 3, 0), t, c, g, y;

	t = pb_outsec(b, ".text", LK_SHT_PROGBITS, LK_SHF_ALLOC, 1);
	pb_slot(b, t, 0);
	c = pb_chunk(b, o, ".text", 16, 1, 0, 0);
	g = pb_comdat(b, "g");
	b->chunk[pb_chunk(b, o2, ".text.g", 16, 1, 0, 0)].comdat = g;
	*c_dead = pb_chunk(b, o3, ".text.g", 16, 1, 0, 0);
	b->chunk[*c_dead].comdat = g;
	y = pb_sym(b, "s0", LK_SYM_ABS, 0, 0x10);
	pb_sym(b, "s1", LK_SYM_ABS, 0, 0x20);
	pb_sym(b, "s2", LK_SYM_ABS, 0, 0x30);
	b->chunk[c].reloc_first = 0;
	b->chunk[c].reloc_count = count;
	b->hdr.entry_sym = y;
	pb_op(b, LK_E_CONST, 0, 0, 0x1000);
	pb_op(b, LK_S_SECTION, LK_SEC_VMA, t, 0);
	pb_op(b, LK_S_SLOT, 0, 0, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	return b;
}

/* Opens, lays out and writes b; returns the write's rc (or open's). */
static int rs_link(struct pb *b, int *stage)
{
	struct lk_link *L = NULL;
	struct lk_image_info in;
	struct lk_rng r;
	lk_u64 size;
	lk_u8 *p = pb_build(b, &size), *img;
	int rc;

	tlog_reset();
	lk_rng_init(&r, "rs", 2);
	*stage = 0;
	rc = lk_link_open(&th, p, size, "kernel.kit", &L);
	if (rc == LK_OK) {
		*stage = 1;
		rc = lk_link_layout(L, &r);
	}
	if (rc == LK_OK) {
		*stage = 2;
		lk_link_info(L, &in);
		img = calloc(1, in.load_hi - in.load_lo + 1);
		rc = lk_link_write(L, img, &r);
		free(img);
	}
	lk_link_close(L);
	free(p);
	return rc;
}

static void rs_refusals(void)
{
	const int n = sizeof(rs_cases) / sizeof(rs_cases[0]);
	lk_u32 cd;
	int stage, rc;

	for (int i = 0; i < n; i++) {
		const struct rs_case *k = &rs_cases[i];
		struct pb *b = rs_fixture(k->count, &cd);
		char want[512], nm[64];

		b->raw_rel = k->bytes;
		b->nraw_rel = k->nbytes;
		rc = rs_link(b, &stage);
		snprintf(want, sizeof(want), "kernel.kit: r.o(.text): %s",
			 k->line);
		CHECK(k->name,
		      rc == LK_ERR_LINK && stage == 2 && tlog_total == 1 &&
			      !strcmp(tlog[0], want),
		      "rc %d at stage %d, %d lines: %s", rc, stage, tlog_total,
		      tlog[0]);
		/* The same bytes in the copy that is never kept. */
		b->chunk[0].reloc_count = 0;
		b->chunk[cd].reloc_first = 0;
		b->chunk[cd].reloc_count = k->count;
		rc = rs_link(b, &stage);
		snprintf(want, sizeof(want), "kernel.kit: d.o(.text.g): %s",
			 k->line);
		snprintf(nm, sizeof(nm), "%s_dead_copy", k->name);
		CHECK(nm,
		      rc == LK_ERR_LINK && stage == 2 && tlog_total == 1 &&
			      !strcmp(tlog[0], want),
		      "rc %d at stage %d, %d lines: %s", rc, stage, tlog_total,
		      tlog[0]);
		free(b);
	}
}

/* Refused by lk_link_open: where records start, and in which chunks. */
static void rs_open_refusals(void)
{
	static const lk_u8 good[] = { 0x00, 0x00, 0x00 };
	struct pb *b;
	lk_u32 cd;
	int stage, rc;

	b = rs_fixture(1, &cd);
	b->raw_rel = good;
	b->nraw_rel = 3;
	rc = rs_link(b, &stage);
	CHECK("rs_fixture_links", rc == LK_OK && tlog_total == 0, "rc %d: %s",
	      rc, tlog[0]);
	b->chunk[0].reloc_first = 3;
	rc = rs_link(b, &stage);
	CHECK("rs_first_past_stream",
	      rc == LK_ERR_FORMAT && stage == 0 && tlog_total == 1 &&
		      !strcmp(tlog[0], "kernel.kit: r.o(.text): bad "
				       "relocation range 3+1"),
	      "rc %d, %d lines: %s", rc, tlog_total, tlog[0]);
	b->chunk[0].reloc_first = 0;
	b->chunk[0].flags |= LK_CHUNK_NOBITS;
	rc = rs_link(b, &stage);
	CHECK("rs_nobits_chunk",
	      rc == LK_ERR_FORMAT && stage == 0 && tlog_total == 1 &&
		      tlog_has("r.o(.text): bad relocation range 0+1"),
	      "rc %d, %d lines: %s", rc, tlog_total, tlog[0]);
	free(b);
}

/* ---- Round trips ---- */

static const lk_i64 rs_addends[] = { 0,
				     -4,
				     1,
				     -1,
				     4,
				     -8,
				     0x7fffffff,
				     -0x80000000ll,
				     INT64_MAX,
				     INT64_MIN,
				     INT64_MAX - 1,
				     INT64_MIN + 1 };

/* n random records for a chunk of `size` bytes and nsym symbols, sorted by
 * offset (ties in creation order). */
static void rs_random_set(struct lk_reloc *v, lk_u32 n, lk_u64 size,
			  lk_u32 nsym)
{
	lk_u32 i, j;
	struct lk_reloc t;

	for (i = 0; i < n; i++) {
		lk_u32 tix = (lk_u32)(rs_rand() % LK_RS_NTYPES);
		lk_u64 w = lk_rs_widths[tix], x = rs_rand();

		v[i].type = lk_rs_types[tix];
		/* Often at the very end, else anywhere it fits. */
		v[i].offset =
			(x & 7) == 0 ? size - w : (x >> 8) % (size - w + 1);
		x = rs_rand();
		v[i].sym = (x & 3) == 0	  ? nsym - 1
			   : (x & 3) == 1 ? 0
					  : (lk_u32)((x >> 8) % nsym);
		x = rs_rand();
		v[i].addend =
			(x & 1) ? rs_addends[(x >> 8) % 12] : (lk_i64)rs_rand();
	}
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1].offset > v[j].offset; j--)
			t = v[j], v[j] = v[j - 1], v[j - 1] = t;
}

static lk_u32 rs_encode_set(const struct lk_reloc *v, lk_u32 n, lk_u8 *out,
			    lk_u32 *ends)
{
	lk_u32 len = 0, i, k;

	for (i = 0; i < n; i++) {
		k = lk_rs_encode(out + len, &v[i], i ? v[i - 1].offset : 0,
				 i ? v[i - 1].sym : 0);
		if (k == 0)
			return 0;
		len += k;
		ends[i] = len;
	}
	return len;
}

static int rs_same(const struct lk_reloc *a, const struct lk_reloc *b)
{
	return a->offset == b->offset && a->type == b->type &&
	       a->sym == b->sym && a->addend == b->addend;
}

#define RS_N 64

static void rs_round_trip(void)
{
	struct lk_reloc v[RS_N], r;
	lk_u8 enc[RS_N * LK_RS_MAX];
	lk_u32 ends[RS_N], bad = 0, sets = 0, n, len, i;
	struct lk_rs d;

	for (int it = 0; it < 3000; it++) {
		lk_u64 size = 8 + rs_rand() % ((it & 1) ? 64 : LK_MAX_SIZE - 8);
		lk_u32 nsym =
			1 + (lk_u32)(rs_rand() % ((it & 2) ? 4 : 0xfffffffe));
		lk_u8 *buf;

		n = 1 + (lk_u32)(rs_rand() % RS_N);
		rs_random_set(v, n, size, nsym);
		len = rs_encode_set(v, n, enc, ends);
		if (len == 0) {
			bad++;
			continue;
		}
		buf = malloc(len); /* exactly: ASan catches reads past it */
		memcpy(buf, enc, len);
		lk_rs_begin(&d, buf, 0, len, size, nsym);
		for (i = 0; i < n; i++)
			if (lk_rs_next(&d, &r) != LK_RS_OK ||
			    !rs_same(&r, &v[i]))
				break;
		bad += i != n || d.p != buf + len;
		sets++;
		free(buf);
	}
	CHECK("rs_round_trip", bad == 0 && sets == 3000,
	      "%u of %u random sets did not decode to what was encoded", bad,
	      sets);
}

/* Every record a chunk can have, one stream cut at every byte. */
static void rs_truncated_everywhere(void)
{
	struct lk_reloc v[RS_N], r;
	lk_u8 enc[RS_N * LK_RS_MAX];
	lk_u32 ends[RS_N], n = RS_N, len, t, i, bad = 0;
	struct lk_rs d;
	int st;

	rs_random_set(v, n, 1 << 20, 100000);
	v[n - 1].addend = INT64_MIN; /* the longest record ends the stream */
	len = rs_encode_set(v, n, enc, ends);
	for (t = 0; t <= len; t++) {
		lk_u8 *buf = malloc(t ? t : 1);

		memcpy(buf, enc, t);
		lk_rs_begin(&d, buf, 0, t, 1 << 20, 100000);
		for (i = 0; i < n && ends[i] <= t; i++)
			if (lk_rs_next(&d, &r) != LK_RS_OK ||
			    !rs_same(&r, &v[i]))
				bad++;
		/* The first record that does not fit reads as cut. */
		st = i < n ? lk_rs_next(&d, &r) : LK_RS_TRUNC;
		bad += st != LK_RS_TRUNC;
		bad += (i < n) != (t < len);
		free(buf);
	}
	CHECK("rs_truncated_at_every_byte", bad == 0 && len > 3 * RS_N,
	      "%u wrong results over %u cuts", bad, len + 1);
}

/* Encoder refusals: what has no type index, and offsets going back. */
static void rs_encoder(void)
{
	struct lk_reloc r = { 8, LK_R_X86_64_PC32, 1, -4 };
	lk_u8 out[LK_RS_MAX];

	CHECK("rs_encode_short_form",
	      lk_rs_encode(out, &r, 0, 0) == 3 && out[0] == 0x11 &&
		      out[1] == 8 && out[2] == 2,
	      "%02x %02x %02x", out[0], out[1], out[2]);
	r.type = 9; /* R_X86_64_GOTPCREL: the host relaxes it */
	CHECK("rs_encode_refuses_type", lk_rs_encode(out, &r, 0, 0) == 0,
	      "encoded");
	r.type = LK_R_X86_64_64;
	CHECK("rs_encode_refuses_backwards", lk_rs_encode(out, &r, 9, 0) == 0,
	      "encoded");
	r.offset = ~0ull;
	r.addend = INT64_MIN;
	r.sym = 0xffffffffu;
	CHECK("rs_encode_longest",
	      lk_rs_encode(out, &r, 0, 0) == 1 + 10 + 5 + 10, "wrong length");
}

void test_reloc_stream(void)
{
	rs_refusals();
	rs_open_refusals();
	rs_round_trip();
	rs_truncated_everywhere();
	rs_encoder();
}
