/*
 * Tests of the boot-side link: placement, determinism, slot orders, gaps,
 * plan semantics, fills, merge groups, relocations and their errors, the
 * ELF view, and payload validation (every error path is a check).
 */
#include "pb.h"

int failures;

#define VBASE 0xffffffff81000000ull
#define PBASE 0x1000000ull
#define X_TEXT (LK_SHF_ALLOC | LK_SHF_EXECINSTR)
#define X_DATA (LK_SHF_ALLOC | LK_SHF_WRITE)

/* A small kernel: pinned locore, a gap object, four shuffled objects,
 * .text (fill 0xcc) at VBASE/AT PBASE, .data, .bss, _end aligned. */
struct fix {
	struct pb *b;
	lk_u32 o_locore, o_gap, o_a, o_b, o_c, o_d;
	lk_u32 t_text, t_data, t_bss, c_locore, c_gap, c_a, c_b, c_c, c_d,
		c_adata, c_cdata, c_bbss;
	lk_u32 y_start, y_afn, y_cvar, y_end, y_etext;
};

/* One output section holding exactly one slot. */
static void plan_one_slot(struct pb *b, lk_u16 flags, lk_u32 outsec,
			  lk_u32 slot)
{
	pb_op(b, LK_S_SECTION, flags, outsec, 0);
	pb_op(b, LK_S_SLOT, 0, slot, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
}

static void fix_plan(struct fix *f)
{
	struct pb *b = f->b;

	pb_op(b, LK_E_CONST, 0, 0, VBASE);
	pb_op(b, LK_E_CONST, 0, 0, PBASE);
	plan_one_slot(b, LK_SEC_VMA | LK_SEC_LMA, f->t_text, 0);
	plan_one_slot(b, 0, f->t_data, 1);
	plan_one_slot(b, 0, f->t_bss, 2);
	pb_op(b, LK_E_DOT, 0, 0, 0);
	pb_op(b, LK_E_CONST, 0, 0, 0x200000);
	pb_op(b, LK_E_ALIGN2, 0, 0, 0);
	pb_op(b, LK_S_ASSIGN, 0, f->y_end, 0);
}

static void fix_make(struct fix *f)
{
	struct pb *b = pb_new();

	memset(f, 0, sizeof(*f));
	f->b = b;
	f->o_locore = pb_obj(b, "locore.o", 1, 0);
	f->o_gap = pb_obj(b, "gap", 0, LK_OBJ_GAP);
	f->o_a = pb_obj(b, "a.o", 0, 0);
	f->o_b = pb_obj(b, "b.o", 0, 0);
	f->o_c = pb_obj(b, "c.o", 0, 0);
	f->o_d = pb_obj(b, "d.o", 0, 0);
	f->t_text = pb_outsec(b, ".text", LK_SHT_PROGBITS, X_TEXT, 16);
	f->t_data = pb_outsec(b, ".data", LK_SHT_PROGBITS, X_DATA, 16);
	f->t_bss = pb_outsec(b, ".bss", LK_SHT_NOBITS, X_DATA, 16);
	b->outsec[f->t_text].fill = 0xcc;
	b->outsec[f->t_text].fill_len = 1;
	pb_slot(b, f->t_text, 0);
	f->c_locore = pb_chunk(b, f->o_locore, ".text", 16, 16, LK_CHUNK_EXEC, 0);
	f->c_gap = pb_chunk(b, f->o_gap, ".text.gap", 4096, 16, LK_CHUNK_GAP, 0);
	b->chunk[f->c_gap].data_off = 0xcc;
	f->c_a = pb_chunk(b, f->o_a, ".text", 10, 4, LK_CHUNK_EXEC, 0);
	f->c_b = pb_chunk(b, f->o_b, ".text", 7, 1, LK_CHUNK_EXEC, 0);
	f->c_c = pb_chunk(b, f->o_c, ".text", 33, 16, LK_CHUNK_EXEC, 0);
	f->c_d = pb_chunk(b, f->o_d, ".text", 5, 8, LK_CHUNK_EXEC, 0);
	pb_slot(b, f->t_data, 0);
	f->c_adata = pb_chunk(b, f->o_a, ".data", 8, 8, LK_CHUNK_WRITE, 0);
	f->c_cdata = pb_chunk(b, f->o_c, ".data", 16, 8, LK_CHUNK_WRITE, 0);
	pb_slot(b, f->t_bss, 0);
	f->c_bbss = pb_chunk(b, f->o_b, ".bss", 100, 16, LK_CHUNK_NOBITS, 0);
	f->y_start = pb_sym(b, "start", LK_SYM_CHUNK, f->c_locore, 0);
	f->y_afn = pb_sym(b, "a_fn", LK_SYM_CHUNK, f->c_a, 2);
	f->y_cvar = pb_sym(b, "c_var", LK_SYM_CHUNK, f->c_cdata, 0);
	f->y_end = pb_sym(b, "_end", LK_SYM_PLAN, 0, 0);
	f->y_etext = pb_sym(b, "etext", LK_SYM_OUTSEC_END, f->t_text, 0);
	b->hdr.entry_sym = f->y_start;
	b->hdr.protocol = LK_PROTO_MULTIBOOT2;
	fix_plan(f);
}

/* a.o's .text: PC32 to c_var and 32S to a_fn; c.o's .data: two 64s. */
static void fix_relocs(struct fix *f)
{
	struct pb *b = f->b;

	b->chunk[f->c_a].reloc_first = b->nrel;
	pb_reloc(b, f->c_a, 0, LK_R_X86_64_PC32, f->y_cvar, -4);
	pb_reloc(b, f->c_a, 4, LK_R_X86_64_32S, f->y_afn, 0);
	pb_reloc(b, f->c_cdata, 0, LK_R_X86_64_64, f->y_start, 0);
	pb_reloc(b, f->c_cdata, 8, LK_R_X86_64_64, f->y_end, 0);
}

struct linked {
	struct lk_link *L;
	lk_u8 *payload;
	lk_u8 *img;
	struct lk_image_info info;
	int rc;
};

static void rng_seed(struct lk_rng *r, lk_u32 seed)
{
	lk_rng_init(r, &seed, sizeof(seed));
}

/* do_link: 0 writes with lk_link_write; N splits the write into N parts,
 * run last to first, as the processors of the UEFI stage may take them. */
static lk_u32 split_parts;

static int write_split(struct lk_link *L, void *img, struct lk_rng *r,
		       lk_u32 n)
{
	struct lk_write_split ws;
	lk_u32 k, nerr = 0;
	int before;

	if (lk_link_write_begin(L, n, &ws))
		return LK_ERR_LINK;
	for (k = ws.nparts; k-- > 0;) {
		before = tlog_total;
		nerr += lk_link_write_part(L, img, &ws, k);
		if (tlog_total != before)
			CHECK("split_parts_are_quiet", 0, "part %u logged: %s",
			      k, tlog[tlog_n - 1]);
		/* The sections in the middle: any order will do. */
		if (k == ws.nparts / 2)
			lk_link_write_sections(L, img, r, &ws);
	}
	lk_link_write_sort(L, img, &ws);
	return lk_link_write_end(L, img, &ws, nerr);
}

/* open + layout + write; rc holds the first failure. */
static void do_link(struct pb *b, lk_u32 seed, struct linked *k)
{
	struct lk_rng r;
	lk_u64 size;

	memset(k, 0, sizeof(*k));
	k->payload = pb_build(b, &size);
	rng_seed(&r, seed);
	k->rc = lk_link_open(&th, k->payload, size, "kernel.kit", &k->L);
	if (k->rc)
		return;
	k->rc = lk_link_layout(k->L, &r);
	if (k->rc)
		return;
	lk_link_info(k->L, &k->info);
	k->img = calloc(1, k->info.load_hi - k->info.load_lo + 1);
	/* Garbage first: write must produce every byte itself. */
	memset(k->img, 0x5a, k->info.load_hi - k->info.load_lo);
	k->rc = split_parts ? write_split(k->L, k->img, &r, split_parts)
			    : lk_link_write(k->L, k->img, &r);
}

static void unlink_(struct linked *k)
{
	lk_link_close(k->L);
	free(k->payload);
	free(k->img);
	k->L = NULL;
}

static lk_u8 *at_vma(struct linked *k, lk_u32 outsec, lk_u64 vma)
{
	const struct lk_os *o = &k->L->os[outsec];

	return k->img + (vma + (o->lma - o->vma) - k->info.load_lo);
}

static lk_u32 rd32(const lk_u8 *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (lk_u32)p[3] << 24;
}

static lk_u64 rd64(const lk_u8 *p)
{
	return rd32(p) | (lk_u64)rd32(p + 4) << 32;
}

/* Bytes of the image outside every output section that are not zero. */
static int holes_nonzero(struct linked *k)
{
	int holes = 0, inside;

	for (lk_u64 a = k->info.load_lo; a < k->info.load_hi; a++) {
		inside = 0;
		for (lk_u32 o = 0; o < k->L->nout; o++)
			inside |= a >= k->L->os[o].lma &&
				  a < k->L->os[o].lma + k->L->os[o].size;
		holes += !inside && k->img[a - k->info.load_lo] != 0;
	}
	return holes;
}

static void test_basic(void)
{
	struct fix f;
	struct linked k;
	const lk_u64 *va;
	int ok = 1;

	fix_make(&f);
	fix_relocs(&f);
	tlog_reset();
	do_link(f.b, 1, &k);
	CHECK("basic_links", k.rc == 0, "rc %d, log: %s", k.rc, tlog[0]);
	if (k.rc)
		return;
	va = k.L->chunk_vma;
	CHECK("basic_pinned_first", va[f.c_locore] == VBASE, "locore at %llx",
	      va[f.c_locore]);
	CHECK("basic_gap_after_pinned", va[f.c_gap] == VBASE + 16 &&
	      k.L->chunk_size[f.c_gap] < 4096 && k.L->chunk_size[f.c_gap] % 16 == 0,
	      "gap at %llx size %llu", va[f.c_gap], k.L->chunk_size[f.c_gap]);
	for (lk_u32 c = 0; c < k.L->nchunk; c++)
		ok &= va[c] % k.L->chunk[c].align == 0;
	CHECK("basic_aligned", ok, "a chunk is misaligned");
	CHECK("basic_entry", k.info.entry_vma == VBASE && k.info.entry_lma == PBASE,
	      "entry %llx/%llx", k.info.entry_vma, k.info.entry_lma);
	CHECK("basic_load_range", k.info.load_lo == PBASE &&
	      k.info.load_hi == k.L->os[f.t_bss].lma + k.L->os[f.t_bss].size &&
	      k.info.noutsecs == 3, "load %llx-%llx n %u", k.info.load_lo,
	      k.info.load_hi, k.info.noutsecs);
	CHECK("basic_lma_follows", k.L->os[f.t_data].lma - k.L->os[f.t_data].vma ==
	      PBASE - VBASE && k.L->os[f.t_data].vma % 16 == 0 &&
	      k.L->os[f.t_data].vma >= VBASE + k.L->os[f.t_text].size,
	      ".data vma %llx lma %llx", k.L->os[f.t_data].vma,
	      k.L->os[f.t_data].lma);
	lk_u64 end = k.L->sym_val[f.y_end];
	CHECK("basic_end_aligned", end % 0x200000 == 0 &&
	      end >= k.L->os[f.t_bss].vma + 100 && end - 0x200000 < k.L->os[f.t_bss].vma + 100,
	      "_end %llx", end);
	/* Contents: b.o's .text bytes are 0x40 + its chunk index. */
	lk_u8 *pb_ = at_vma(&k, f.t_text, va[f.c_b]);
	CHECK("basic_contents", pb_[0] == 0x40 + f.c_b && pb_[6] == 0x40 + f.c_b,
	      "b.o bytes %02x", pb_[0]);
	lk_u8 *pg = at_vma(&k, f.t_text, va[f.c_gap]);
	ok = 1;
	for (lk_u64 i = 0; i < k.L->chunk_size[f.c_gap]; i++)
		ok &= pg[i] == 0xcc;
	CHECK("basic_gap_filled", ok, "gap bytes not 0xcc");
	CHECK("basic_holes_zero", holes_nonzero(&k) == 0, "hole bytes not zero");
	/* Relocations. */
	lk_u8 *pa = at_vma(&k, f.t_text, va[f.c_a]);
	lk_i32 pc32 = (lk_i32)rd32(pa);
	CHECK("reloc_pc32", (lk_u64)((lk_i64)va[f.c_a] + 4 + pc32) ==
	      va[f.c_cdata], "PC32 %d", pc32);
	CHECK("reloc_32s", (lk_u64)(lk_i64)(lk_i32)rd32(pa + 4) == va[f.c_a] + 2,
	      "32S %x", rd32(pa + 4));
	lk_u8 *pc = at_vma(&k, f.t_data, va[f.c_cdata]);
	CHECK("reloc_64", rd64(pc) == VBASE && rd64(pc + 8) == end,
	      "64 %llx %llx", rd64(pc), rd64(pc + 8));
	unlink_(&k);
	free(f.b);
}

/* The fixture with its entry symbol moved to `kind` (value v): a jump
 * outside the image must fail the layout with exactly one line. */
static void entry_case(const char *name, lk_u8 kind, lk_u64 v,
		       const char *want, lk_u64 lma)
{
	struct fix f;
	struct linked k;

	fix_make(&f);
	f.b->sym[f.y_start].kind = kind;
	f.b->sym[f.y_start].value = v;
	tlog_reset();
	do_link(f.b, 1, &k);
	if (want)
		CHECK(name, k.rc == LK_ERR_LINK && tlog_total == 1 &&
		      !strcmp(tlog[0], want), "rc %d, %d lines: %s", k.rc,
		      tlog_total, tlog[0]);
	else
		CHECK(name, k.rc == 0 && k.info.entry_lma == lma,
		      "rc %d, entry_lma %llx: %s", k.rc, k.info.entry_lma,
		      tlog[0]);
	unlink_(&k);
	free(f.b);
}

static void test_entry_outside(void)
{
	entry_case("entry_abs_zero", LK_SYM_ABS, 0, "kernel.kit: entry symbol "
		   "'start' at 0x0 lies outside every output section", 0);
	/* Past .bss: _end's value (VBASE + 2 MiB), as a script symbol. */
	entry_case("entry_past_image", LK_SYM_ABS, VBASE + 0x200000,
		   "kernel.kit: entry symbol 'start' at 0xffffffff81200000 "
		   "lies outside every output section", 0);
	/* An absolute address inside .text is in the image: its LMA. */
	entry_case("entry_abs_in_text", LK_SYM_ABS, VBASE + 4, NULL,
		   PBASE + 4);
	/* A load address (Linux's phys_startup_64) is one too, as it is. */
	entry_case("entry_abs_load_address", LK_SYM_ABS, PBASE + 4, NULL,
		   PBASE + 4);
}

static void order_of(struct linked *k, char *buf)
{
	buf[0] = 0;
	for (lk_u32 i = 0; i < k->L->nobj; i++)
		strcat(buf, k->L->str + k->L->obj[k->L->order[i]].name),
			strcat(buf, " ");
}

static void test_determinism(void)
{
	struct fix f;
	struct linked k1, k2;
	char o1[256], o2[256], seen[24][256];
	int nseen = 0, same = 1, fixed_prefix = 1;

	fix_make(&f);
	fix_relocs(&f);
	tlog_reset();
	do_link(f.b, 7, &k1);
	do_link(f.b, 7, &k2);
	lk_u64 n = k1.info.load_hi - k1.info.load_lo;
	CHECK("determinism_same_seed", k1.rc == 0 && k2.rc == 0 &&
	      n == k2.info.load_hi - k2.info.load_lo &&
	      memcmp(k1.img, k2.img, n) == 0, "images differ");
	unlink_(&k1);
	unlink_(&k2);
	/* 4 shuffled objects: 24 orders; 400 seeds should show them all. */
	for (lk_u32 s = 0; s < 400; s++) {
		do_link(f.b, s, &k1);
		if (k1.rc) {
			same = 0;
			break;
		}
		order_of(&k1, o1);
		fixed_prefix &= strncmp(o1, "locore.o gap ", 13) == 0;
		int found = 0;
		for (int i = 0; i < nseen; i++)
			found |= strcmp(seen[i], o1) == 0;
		if (!found && nseen < 24)
			strcpy(seen[nseen++], o1);
		unlink_(&k1);
	}
	CHECK("order_pinned_then_gap", fixed_prefix && same, "prefix wrong");
	CHECK("order_all_permutations", nseen == 24, "%d of 24 orders seen", nseen);
	(void)o2;
	free(f.b);
}

/* One slot holding chunks of objects listed in `objs`. */
static struct pb *slot_fixture(lk_u32 flags, lk_u32 *first)
{
	struct pb *b = pb_new();
	lk_u32 o[5], t, s;

	o[0] = pb_obj(b, "pin.o", 1, 0);
	for (int i = 1; i < 5; i++) {
		char n[16];
		snprintf(n, sizeof(n), "o%d.o", i);
		o[i] = pb_obj(b, n, 0, 0);
	}
	t = pb_outsec(b, ".init", LK_SHT_PROGBITS, X_TEXT, 8);
	pb_slot(b, t, flags);
	*first = b->nchunk;
	/* Two chunks per object; aligns vary, sort keys descend. */
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 2; j++) {
			lk_u32 c = pb_chunk(b, o[i], j ? ".init.b" : ".init.a",
					    3, (i + j) % 2 ? 8 : 1, 0, 0);
			b->chunk[c].sort_key = 100 - c;
		}
	s = pb_sym(b, "entry", LK_SYM_CHUNK, *first, 0);
	b->hdr.entry_sym = s;
	pb_op(b, LK_E_CONST, 0, 0, 0x100000);
	pb_op(b, LK_S_SECTION, LK_SEC_VMA, t, 0);
	pb_op(b, LK_S_SLOT, 0, 0, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	return b;
}

/* Chunk indices in address order. */
static void placed(struct linked *k, lk_u32 *v)
{
	for (lk_u32 i = 0; i < k->L->nchunk; i++)
		v[i] = k->L->slot_order[i];
}

static void test_slot_orders(void)
{
	lk_u32 first, v[10];
	struct pb *b;
	struct linked k;
	int ok = 1, split = 0, pin_ok = 1, by_obj = 1;

	tlog_reset();
	b = slot_fixture(LK_SLOT_CANONICAL, &first);
	for (lk_u32 s = 0; s < 20 && ok; s++) {
		do_link(b, s, &k);
		placed(&k, v);
		for (int i = 0; i < 10; i++)
			ok &= v[i] == first + (lk_u32)i &&
			      k.L->chunk_vma[v[i]] >= (i ? k.L->chunk_vma[v[i - 1]] : 0);
		unlink_(&k);
	}
	CHECK("slot_canonical", ok, "canonical order changed");
	free(b);
	b = slot_fixture(0, &first);
	for (lk_u32 s = 0; s < 20; s++) {
		do_link(b, s, &k);
		placed(&k, v);
		for (int i = 0; i < 10; i += 2) /* an object's chunks stay together */
			by_obj &= b->chunk[v[i]].object == b->chunk[v[i + 1]].object &&
				  v[i] < v[i + 1];
		pin_ok &= b->chunk[v[0]].object == 0;
		unlink_(&k);
	}
	CHECK("slot_by_object", by_obj && pin_ok, "object grouping broken");
	free(b);
	b = slot_fixture(LK_SLOT_SHUFFLE, &first);
	pin_ok = 1;
	for (lk_u32 s = 0; s < 30; s++) {
		do_link(b, s, &k);
		placed(&k, v);
		pin_ok &= v[0] == first && v[1] == first + 1;
		for (int i = 2; i < 10; i += 2)
			split |= b->chunk[v[i]].object != b->chunk[v[i + 1]].object;
		unlink_(&k);
	}
	CHECK("slot_shuffle_chunks", split && pin_ok, "split %d pin %d", split,
	      pin_ok);
	free(b);
	b = slot_fixture(LK_SLOT_SORT_ALIGN, &first);
	ok = 1;
	do_link(b, 3, &k);
	placed(&k, v);
	for (int i = 1; i < 10; i++) {
		lk_u64 pa = b->chunk[v[i - 1]].align, ca = b->chunk[v[i]].align;
		ok &= pa > ca || (pa == ca &&
			k.L->obj_pos[b->chunk[v[i - 1]].object] <=
			k.L->obj_pos[b->chunk[v[i]].object]);
	}
	CHECK("slot_sort_align_stable", ok && k.rc == 0, "not sorted");
	unlink_(&k);
	free(b);
	b = slot_fixture(LK_SLOT_SORT_NAME, &first);
	ok = 1;
	do_link(b, 3, &k);
	placed(&k, v);
	for (int i = 1; i < 10; i++)
		ok &= b->chunk[v[i - 1]].sort_key < b->chunk[v[i]].sort_key;
	CHECK("slot_sort_name", ok && k.rc == 0, "not sorted by key");
	unlink_(&k);
	free(b);
}

/* A one-section payload whose plan the test writes. */
static struct pb *plan_fixture(lk_u32 *t, lk_u32 *c1, lk_u32 *c2)
{
	struct pb *b = pb_new();
	lk_u32 o = pb_obj(b, "x.o", 0, 0);

	*t = pb_outsec(b, ".text", LK_SHT_PROGBITS, X_TEXT, 4);
	pb_outsec(b, ".data", LK_SHT_PROGBITS, X_DATA, 8);
	pb_slot(b, *t, LK_SLOT_CANONICAL);
	*c1 = pb_chunk(b, o, ".text", 3, 1, 0, "\x01\x02\x03");
	*c2 = pb_chunk(b, o, ".text.b", 4, 4, 0, "\x05\x06\x07\x08");
	pb_slot(b, 1, 0);
	pb_chunk(b, o, ".data", 8, 8, 0, 0);
	b->hdr.entry_sym = pb_sym(b, "entry", LK_SYM_CHUNK, *c1, 0);
	return b;
}

static void test_plan_semantics(void)
{
	lk_u32 t, c1, c2, s;
	struct pb *b = plan_fixture(&t, &c1, &c2);
	struct linked k;

	tlog_reset();
	b->outsec[t].fill = 0x1234;
	b->outsec[t].fill_len = 2;
	s = pb_sym(b, "mid", LK_SYM_PLAN, 0, 0);
	pb_op(b, LK_E_CONST, 0, 0, 0x2000);          /* . = 0x2000 */
	pb_op(b, LK_S_SET_DOT, 0, 0, 0);
	pb_op(b, LK_E_CONST, 0, 0, 0x5000);          /* AT(0x5000) */
	pb_op(b, LK_S_SECTION, LK_SEC_LMA, t, 0);
	pb_op(b, LK_S_SLOT, 0, 0, 0);
	pb_op(b, LK_E_DOT, 0, 0, 0);
	pb_op(b, LK_S_ASSIGN, 0, s, 0);              /* mid = . */
	pb_op(b, LK_E_CONST, 0, 0, 0xa1b2);
	pb_op(b, LK_S_DATA, 0, 2, 0);                /* SHORT(0xa1b2) */
	pb_op(b, LK_E_DOT, 0, 0, 0);
	pb_op(b, LK_E_CONST, 0, 0, 5);
	pb_op(b, LK_E_ADD, 0, 0, 0);
	pb_op(b, LK_S_SET_DOT, 0, 0, 0);             /* . += 5 (filled) */
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	pb_op(b, LK_E_CONST, 0, 0, 64);
	pb_op(b, LK_S_SECTION, LK_SEC_ALIGN, 1, 0);  /* .data ALIGN(64) */
	pb_op(b, LK_S_SLOT, 0, 1, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	pb_op(b, LK_E_ADDR, 0, 1, 0);                /* ASSERT(ADDR(.data) > 0) */
	pb_op(b, LK_E_CONST, 0, 0, 0);
	pb_op(b, LK_E_GT, 0, 0, 0);
	pb_op(b, LK_S_ASSERT, 0, 0, pb_str(b, "data placed"));
	do_link(b, 1, &k);
	CHECK("plan_links", k.rc == 0, "rc %d: %s", k.rc, tlog[0]);
	if (k.rc)
		return;
	const struct lk_os *o = &k.L->os[t], *d = &k.L->os[1];
	CHECK("plan_at_lma", o->vma == 0x2000 && o->lma == 0x5000,
	      "vma %llx lma %llx", o->vma, o->lma);
	CHECK("plan_chunks", k.L->chunk_vma[c1] == 0x2000 && k.L->chunk_vma[c2] == 0x2004,
	      "%llx %llx", k.L->chunk_vma[c1], k.L->chunk_vma[c2]);
	CHECK("plan_assign_dot", k.L->sym_val[s] == 0x2008, "mid %llx",
	      k.L->sym_val[s]);
	CHECK("plan_section_size", o->size == 0x2008 + 2 + 5 - 0x2000, "size %llx",
	      o->size);
	lk_u8 *p = k.img + (o->lma - k.info.load_lo);
	CHECK("plan_fill_pattern", p[3] == 0x12 && p[8] == 0xb2 && p[9] == 0xa1 &&
	      p[10] == 0x12 && p[11] == 0x34 && p[12] == 0x12 && p[14] == 0x12,
	      "bytes %02x %02x %02x %02x %02x", p[3], p[8], p[9], p[10], p[11]);
	CHECK("plan_holes_zero", holes_nonzero(&k) == 0 &&
	      d->lma > o->lma + o->size, "hole bytes not zero");
	CHECK("plan_align_and_lma_offset", d->vma % 64 == 0 &&
	      d->lma - d->vma == 0x3000 && d->align == 64, "data %llx/%llx",
	      d->vma, d->lma);
	unlink_(&k);
	free(b);
}

/* Code sections without a fill pad with NOPs (GNU ld), data with zeros. */
static void test_nop_fill(void)
{
	lk_u32 t, c1, c2;
	struct pb *b = plan_fixture(&t, &c1, &c2);
	struct linked k;
	static const lk_u8 want[13] = { 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0,
					0, 0, 0x0f, 0x1f, 0x00 };

	b->chunk[c2].align = 16;
	b->outsec[t].align = 16;
	pb_op(b, LK_E_CONST, 0, 0, 0x1000);
	pb_op(b, LK_S_SECTION, LK_SEC_VMA, t, 0);
	pb_op(b, LK_S_SLOT, 0, 0, 0);
	pb_op(b, LK_E_DOT, 0, 0, 0);
	pb_op(b, LK_E_CONST, 0, 0, 2);
	pb_op(b, LK_E_ADD, 0, 0, 0);
	pb_op(b, LK_S_SET_DOT, 0, 0, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	pb_op(b, LK_S_SECTION, 0, 1, 0);
	pb_op(b, LK_S_SLOT, 0, 1, 0);
	pb_op(b, LK_E_CONST, 0, 0, 8);
	pb_op(b, LK_E_ALIGN, 0, 0, 0);
	pb_op(b, LK_E_CONST, 0, 0, 3);
	pb_op(b, LK_E_ADD, 0, 0, 0);
	pb_op(b, LK_S_SET_DOT, 0, 0, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	tlog_reset();
	do_link(b, 1, &k);
	if (k.rc) {
		CHECK("nop_fill", 0, "link failed: %s", tlog[0]);
		return;
	}
	lk_u8 *p = at_vma(&k, t, 0x1000);
	lk_u8 *d = at_vma(&k, 1, k.L->os[1].vma);
	CHECK("nop_fill_code", memcmp(p + 3, want, 13) == 0 && p[16] == 5 &&
	      p[20] == 0x66 && p[21] == 0x90 && k.L->os[t].size == 22,
	      "padding %02x %02x .. %02x", p[3], p[4], p[15]);
	CHECK("zero_fill_data", k.L->os[1].size == 11 && d[8] == 0 && d[10] == 0,
	      "size %llu", k.L->os[1].size);
	unlink_(&k);
	free(b);
}

/* GNU ld drops an output section whose inputs come to nothing, with its
 * address, even when it assigns a symbol (which keeps its value). */
static void discard_case(const char *name, int assign, int want_moved)
{
	struct pb *b = pb_new();
	lk_u32 o = pb_obj(b, "x.o", 0, 0), t, e, d, y;
	struct linked k;

	t = pb_outsec(b, ".text", LK_SHT_PROGBITS, X_TEXT, 4);
	e = pb_outsec(b, ".empty", LK_SHT_PROGBITS, X_DATA, 4);
	d = pb_outsec(b, ".data", LK_SHT_PROGBITS, X_DATA, 8);
	pb_slot(b, t, 0);
	b->hdr.entry_sym = pb_sym(b, "entry", LK_SYM_CHUNK,
				  pb_chunk(b, o, ".text", 5, 1, 0, 0), 0);
	pb_slot(b, e, 0);
	pb_chunk(b, o, ".empty", 0, 1, 0, 0);
	pb_slot(b, d, 0);
	pb_chunk(b, o, ".data", 8, 8, 0, 0);
	y = pb_sym(b, "mark", LK_SYM_PLAN, 0, 0);
	pb_op(b, LK_E_CONST, 0, 0, 0x1000);
	pb_op(b, LK_E_CONST, 0, 0, 0x8000);
	pb_op(b, LK_S_SECTION, LK_SEC_VMA | LK_SEC_LMA, t, 0);
	pb_op(b, LK_S_SLOT, 0, 0, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	pb_op(b, LK_E_CONST, 0, 0, 0x900000);
	pb_op(b, LK_S_SECTION, LK_SEC_VMA, e, 0);
	pb_op(b, LK_S_SLOT, 0, 1, 0);
	if (assign) {
		pb_op(b, LK_E_DOT, 0, 0, 0);
		pb_op(b, LK_S_ASSIGN, 0, y, 0);
	}
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	pb_op(b, LK_S_SECTION, 0, d, 0);
	pb_op(b, LK_S_SLOT, 0, 2, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	tlog_reset();
	do_link(b, 1, &k);
	if (k.rc) {
		CHECK(name, 0, "link failed: %s", tlog[0]);
		free(b);
		return;
	}
	const struct lk_os *od = &k.L->os[d];
	CHECK(name, od->vma == 0x1008 && od->lma == 0x8008 &&
	      k.info.noutsecs == 2 && (!want_moved || k.L->sym_val[y] == 0x900000),
	      ".data %llx/%llx", od->vma, od->lma);
	unlink_(&k);
	free(b);
}

/* Each plan error: one error line naming the problem. */
static void plan_error(const char *name, void (*emit)(struct pb *, lk_u32),
		       int want_rc, const char *needle)
{
	lk_u32 t, c1, c2;
	struct pb *b = plan_fixture(&t, &c1, &c2);
	struct linked k;

	tlog_reset();
	emit(b, t);
	do_link(b, 1, &k);
	CHECK(name, k.rc == want_rc && tlog_total == 1 && tlog_has(needle),
	      "rc %d, %d lines, first: %s", k.rc, tlog_total, tlog[0]);
	unlink_(&k);
	free(b);
}

static void data_body(struct pb *b)
{
	pb_op(b, LK_S_SECTION, 0, 1, 0);
	pb_op(b, LK_S_SLOT, 0, 1, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
}

static void sec_body(struct pb *b, lk_u32 t)
{
	pb_op(b, LK_S_SECTION, 0, t, 0);
	pb_op(b, LK_S_SLOT, 0, 0, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	data_body(b);
}

static void e_backwards(struct pb *b, lk_u32 t)
{
	pb_op(b, LK_S_SECTION, 0, t, 0);
	pb_op(b, LK_S_SLOT, 0, 0, 0);
	pb_op(b, LK_E_CONST, 0, 0, 2);
	pb_op(b, LK_S_SET_DOT, 0, 0, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	pb_op(b, LK_S_SECTION, 0, 1, 0);
	pb_op(b, LK_S_SLOT, 0, 1, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
}

static void e_sym_before(struct pb *b, lk_u32 t)
{
	lk_u32 s = pb_sym(b, "later", LK_SYM_PLAN, 0, 0);

	pb_op(b, LK_E_SYM, 0, s, 0);
	pb_op(b, LK_S_SET_DOT, 0, 0, 0);
	sec_body(b, t);
	pb_op(b, LK_E_CONST, 0, 0, 1);
	pb_op(b, LK_S_ASSIGN, 0, s, 0);
}

static void e_assert(struct pb *b, lk_u32 t)
{
	sec_body(b, t);
	pb_op(b, LK_E_CONST, 0, 0, 0);
	pb_op(b, LK_S_ASSERT, 0, 0, pb_str(b, "kernel too big"));
}

static void e_div0(struct pb *b, lk_u32 t)
{
	pb_op(b, LK_E_CONST, 0, 0, 1);
	pb_op(b, LK_E_CONST, 0, 0, 0);
	pb_op(b, LK_E_DIV, 0, 0, 0);
	pb_op(b, LK_S_SET_DOT, 0, 0, 0);
	sec_body(b, t);
}

static void e_sizeof_early(struct pb *b, lk_u32 t)
{
	pb_op(b, LK_E_SIZEOF, 0, 1, 0);
	pb_op(b, LK_S_SET_DOT, 0, 0, 0);
	sec_body(b, t);
}

static void e_underflow(struct pb *b, lk_u32 t)
{
	pb_op(b, LK_E_ADD, 0, 0, 0);
	sec_body(b, t);
}

static void e_overflow(struct pb *b, lk_u32 t)
{
	for (int i = 0; i < LK_PLAN_STACK_MAX + 1; i++)
		pb_op(b, LK_E_CONST, 0, 0, 1);
	sec_body(b, t);
}

static void e_badop(struct pb *b, lk_u32 t)
{
	pb_op(b, 0x77, 0, 0, 0);
	sec_body(b, t);
}

static void e_unplaced(struct pb *b, lk_u32 t)
{
	pb_op(b, LK_S_SECTION, 0, t, 0);
	pb_op(b, LK_S_SLOT, 0, 0, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
}

static void e_nested(struct pb *b, lk_u32 t)
{
	pb_op(b, LK_S_SECTION, 0, t, 0);
	pb_op(b, LK_S_SECTION, 0, 1, 0);
	sec_body(b, t);
}

static void e_slot_wrong_sec(struct pb *b, lk_u32 t)
{
	pb_op(b, LK_S_SECTION, 0, t, 0);
	pb_op(b, LK_S_SLOT, 0, 1, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
}

static void e_assign_nonplan(struct pb *b, lk_u32 t)
{
	pb_op(b, LK_E_CONST, 0, 0, 1);
	pb_op(b, LK_S_ASSIGN, 0, 0, 0);
	sec_body(b, t);
}

static void e_overlap(struct pb *b, lk_u32 t)
{
	pb_op(b, LK_E_CONST, 0, 0, 0x1000);
	pb_op(b, LK_S_SECTION, LK_SEC_VMA, t, 0);
	pb_op(b, LK_S_SLOT, 0, 0, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	pb_op(b, LK_E_CONST, 0, 0, 0x2000);
	pb_op(b, LK_E_CONST, 0, 0, 0x1004);
	pb_op(b, LK_S_SECTION, LK_SEC_VMA | LK_SEC_LMA, 1, 0);
	pb_op(b, LK_S_SLOT, 0, 1, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
}

static void e_wrap(struct pb *b, lk_u32 t)
{
	pb_op(b, LK_E_CONST, 0, 0, 0xfffffffffffffffeull);
	pb_op(b, LK_S_SECTION, LK_SEC_VMA, t, 0);
	pb_op(b, LK_S_SLOT, 0, 0, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	pb_op(b, LK_S_SECTION, 0, 1, 0);
	pb_op(b, LK_S_SLOT, 0, 1, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
}

/* Policy random-base: the shift before the first `. =`. */
static void e_shift_twice(struct pb *b, lk_u32 t)
{
	pb_op(b, LK_E_SHIFT, 0, 1, 0x200000);
	pb_op(b, LK_E_SHIFT, 0, 1, 0x200000);
	pb_op(b, LK_E_ADD, 0, 0, 0);
	pb_op(b, LK_S_SET_DOT, 0, 0, 0);
	sec_body(b, t);
}

static void e_shift_in_section(struct pb *b, lk_u32 t)
{
	pb_op(b, LK_S_SECTION, 0, t, 0);
	pb_op(b, LK_E_SHIFT, 0, 1, 0x200000);
	pb_op(b, LK_S_DATA, 0, 8, 0);
	pb_op(b, LK_S_SLOT, 0, 0, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	data_body(b);
}

static void e_shift_step(struct pb *b, lk_u32 t)
{
	pb_op(b, LK_E_SHIFT, 0, 1, 0x3000);
	pb_op(b, LK_S_SET_DOT, 0, 0, 0);
	sec_body(b, t);
}

/* The plan fixture placed at 0x1000000 + 0..3 steps of 2 MiB. */
static struct pb *shift_fixture(void)
{
	lk_u32 t, c1, c2;
	struct pb *b = plan_fixture(&t, &c1, &c2);

	pb_op(b, LK_E_CONST, 0, 0, 0x1000000);
	pb_op(b, LK_E_SHIFT, 0, 3, 0x200000);
	pb_op(b, LK_E_ADD, 0, 0, 0);
	pb_op(b, LK_S_SET_DOT, 0, 0, 0);
	sec_body(b, t);
	return b;
}

/* Every seed's .text is one of the four places, several seeds reach
 * several, and lk_link_set_no_shift keeps 0x1000000. */
static void test_base_shift(void)
{
	lk_u32 seen = 0, bad = 0, seed;
	struct linked k;
	struct pb *b;
	struct lk_rng r;
	lk_u64 size, d;
	lk_u8 *pl;
	int rc;

	for (seed = 1; seed <= 24; seed++) {
		b = shift_fixture();
		do_link(b, seed, &k);
		d = k.info.load_lo - 0x1000000;
		if (k.rc || d % 0x200000 || d / 0x200000 > 3)
			bad++;
		else
			seen |= 1u << (d / 0x200000);
		unlink_(&k);
		free(b);
	}
	CHECK("base_shift_range", !bad && seen != 1 && (seen & ~0xfu) == 0,
	      "%u bad links, shifts seen 0x%x", bad, seen);
	b = shift_fixture();
	pl = pb_build(b, &size);
	rc = lk_link_open(&th, pl, size, "kernel.kit", &k.L);
	if (!rc) {
		lk_link_set_no_shift(k.L);
		rng_seed(&r, 7);
		rc = lk_link_layout(k.L, &r);
		lk_link_info(k.L, &k.info);
		lk_link_close(k.L);
	}
	CHECK("base_shift_none", !rc && k.info.load_lo == 0x1000000,
	      "rc %d, .text at 0x%llx", rc, (unsigned long long)k.info.load_lo);
	free(pl);
	free(b);
}

static void test_plan_errors(void)
{
	plan_error("plan_dot_backwards", e_backwards, LK_ERR_LINK,
		   "moves the location counter backwards in section '.text'");
	plan_error("plan_symbol_before_defined", e_sym_before, LK_ERR_LINK,
		   "symbol used before it is defined: 'later'");
	plan_error("plan_assert", e_assert, LK_ERR_LINK,
		   "ASSERT failed: 'kernel too big'");
	plan_error("plan_div_zero", e_div0, LK_ERR_LINK, "division by zero");
	plan_error("plan_sizeof_early", e_sizeof_early, LK_ERR_LINK,
		   "output section used before it is placed: '.data'");
	plan_error("plan_stack_underflow", e_underflow, LK_ERR_FORMAT,
		   "plan op 0 (code 0xa, arg 0): stack underflow");
	plan_error("plan_stack_overflow", e_overflow, LK_ERR_FORMAT,
		   "plan op 64 (code 0x1, arg 0): stack overflow");
	plan_error("plan_bad_opcode", e_badop, LK_ERR_FORMAT, "unknown opcode");
	plan_error("plan_shift_twice", e_shift_twice, LK_ERR_FORMAT,
		   "base shift repeated or inside a section");
	plan_error("plan_shift_in_section", e_shift_in_section, LK_ERR_FORMAT,
		   "base shift repeated or inside a section");
	plan_error("plan_shift_step", e_shift_step, LK_ERR_FORMAT,
		   "base shift step or count out of range");
	plan_error("plan_slot_unplaced", e_unplaced, LK_ERR_FORMAT,
		   "slot 1 (output section .data) is never placed");
	plan_error("plan_nested_section", e_nested, LK_ERR_FORMAT,
		   "bad, nested or repeated output section");
	plan_error("plan_slot_wrong_section", e_slot_wrong_sec, LK_ERR_FORMAT,
		   "outside its section");
	plan_error("plan_assign_nonplan", e_assign_nonplan, LK_ERR_FORMAT,
		   "not a plan symbol");
	plan_error("plan_lma_overlap", e_overlap, LK_ERR_LINK,
		   "output sections .text and .data overlap in load memory");
	plan_error("plan_address_wrap", e_wrap, LK_ERR_LINK,
		   "address overflow or section too large: '.text'");
}

static void test_merge(void)
{
	struct pb *b = pb_new();
	lk_u32 op = pb_obj(b, "p.o", 0, 0), oq = pb_obj(b, "q.o", 0, 0);
	lk_u32 ot = pb_obj(b, "t.o", 1, 0);
	lk_u32 tx = pb_outsec(b, ".text", LK_SHT_PROGBITS, X_TEXT, 8);
	lk_u32 ro = pb_outsec(b, ".rodata", LK_SHT_PROGBITS, LK_SHF_ALLOC, 1);
	lk_u32 ct, cp, cq, yfoo, ylo;
	const char *pieces[3] = { "foo", "bar", "hello" };
	int seen_p_first = 0, seen_q_first = 0, ok = 1;
	struct linked k;

	pb_slot(b, tx, 0);
	ct = pb_chunk(b, ot, ".text", 16, 8, 0, 0);
	pb_slot(b, ro, 0);
	cp = pb_chunk(b, op, ".rodata.str1.1", 0, 1, LK_CHUNK_MERGE, 0);
	cq = pb_chunk(b, oq, ".rodata.str1.1", 0, 1, LK_CHUNK_MERGE, 0);
	for (int i = 0; i < 3; i++) {
		b->mc[i].data_off = b->ndata;
		b->mc[i].size = strlen(pieces[i]) + 1;
		memcpy(b->data + b->ndata, pieces[i], b->mc[i].size);
		b->ndata += b->mc[i].size;
	}
	b->nmc = 3;
	b->mg[0].first_class = 0;
	b->mg[0].class_count = 3;
	b->mg[0].total_size = 14;
	b->nmg = 1;
	/* p.o lists bar, foo; q.o lists hello, foo. */
	b->mref[0] = 1, b->mref[1] = 0, b->mref[2] = 2, b->mref[3] = 0;
	b->nmref = 4;
	b->chunk[cp].mref_first = 0, b->chunk[cp].mref_count = 2;
	b->chunk[cq].mref_first = 2, b->chunk[cq].mref_count = 2;
	yfoo = pb_sym(b, "s_foo", LK_SYM_MERGE, 0, 0);
	ylo = pb_sym(b, "s_llo", LK_SYM_MERGE, 2, 2);
	b->hdr.entry_sym = pb_sym(b, "entry", LK_SYM_CHUNK, ct, 0);
	pb_reloc(b, ct, 0, LK_R_X86_64_64, yfoo, 0);
	pb_reloc(b, ct, 8, LK_R_X86_64_64, ylo, 0);
	pb_op(b, LK_E_CONST, 0, 0, 0x400000);
	pb_op(b, LK_S_SECTION, LK_SEC_VMA, tx, 0);
	pb_op(b, LK_S_SLOT, 0, 0, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	pb_op(b, LK_S_SECTION, 0, ro, 0);
	pb_op(b, LK_S_SLOT, 0, 1, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	tlog_reset();
	for (lk_u32 s = 0; s < 40 && ok; s++) {
		do_link(b, s, &k);
		if (k.rc) {
			ok = 0;
			break;
		}
		lk_u8 *text = at_vma(&k, tx, 0x400000);
		lk_u64 afoo = rd64(text), allo = rd64(text + 8);
		int p_first = k.L->obj_pos[op] < k.L->obj_pos[oq];
		/* As ld.bfd: each chunk holds the classes it brings first. */
		ok &= p_first ? k.L->chunk_size[cp] == 8 && k.L->chunk_size[cq] == 6
			      : k.L->chunk_size[cq] == 10 && k.L->chunk_size[cp] == 4;
		ok &= strcmp((char *)at_vma(&k, ro, afoo), "foo") == 0;
		ok &= strcmp((char *)at_vma(&k, ro, allo), "llo") == 0;
		ok &= k.L->os[ro].size == 14;
		/* First occurrence in placement order decides the offsets. */
		if (p_first)
			ok &= k.L->class_off[1] == 0 && k.L->class_off[0] == 4 &&
			      k.L->class_off[2] == 0, seen_p_first = 1;
		else
			ok &= k.L->class_off[2] == 0 && k.L->class_off[0] == 6 &&
			      k.L->class_off[1] == 0, seen_q_first = 1;
		unlink_(&k);
	}
	CHECK("merge_links", ok, "rc %d: %s", k.rc, tlog[0]);
	CHECK("merge_both_orders", seen_p_first && seen_q_first, "orders %d %d",
	      seen_p_first, seen_q_first);
	b->mg[0].total_size = 15;
	do_link(b, 1, &k);
	CHECK("merge_bad_total", k.rc == LK_ERR_FORMAT &&
	      tlog_has("merge group 0: bad class range 0+3"), "rc %d", k.rc);
	unlink_(&k);
	b->mg[0].total_size = 14;
	b->mref[3] = 7;
	tlog_reset();
	do_link(b, 1, &k);
	CHECK("merge_bad_piece", k.rc == LK_ERR_FORMAT &&
	      tlog_has("q.o(.rodata.str1.1): bad merge group 0 or piece list 2+2"),
	      "rc %d: %s", k.rc, tlog[0]);
	unlink_(&k);
	free(b);
}

/*
 * LK_PAYLOAD_F_LLD_MERGE: ld.lld's layout. Group 0 (strings, chunks
 * aligned 4 and 2: the group takes 4) has padded pieces, so its shard
 * bases follow the order; group 1 (8-byte entries, aligned 8) is fixed.
 * Expected offsets are worked out by hand from lld's rules: shards in
 * order, each non-empty one aligned, first occurrence within a shard,
 * every piece aligned, all of a group at its first chunk.
 */
static void mlld_class(struct pb *b, const char *s, lk_u32 size, lk_u32 shard)
{
	struct lk_merge_class *c = &b->mc[b->nmc++];

	c->data_off = b->ndata;
	c->size = size;
	c->shard = shard;
	memcpy(b->data + b->ndata, s, size);
	b->ndata += size;
}

static struct pb *mlld_fixture(lk_u32 *cp, lk_u32 *cq, lk_u32 *cp2, lk_u32 *cq2,
			       lk_u32 *op, lk_u32 *oq)
{
	struct pb *b = pb_new();
	lk_u32 ot, tx, ro, ct, y[4];
	/* p.o: bar foo | A B C; q.o: hello foo x | C B */
	static const lk_u32 refs[] = { 1, 0, 2, 0, 3, 4, 5, 6, 6, 5 };

	*op = pb_obj(b, "p.o", 0, 0), *oq = pb_obj(b, "q.o", 0, 0);
	ot = pb_obj(b, "t.o", 1, 0);
	tx = pb_outsec(b, ".text", LK_SHT_PROGBITS, X_TEXT, 8);
	ro = pb_outsec(b, ".rodata", LK_SHT_PROGBITS, LK_SHF_ALLOC, 1);
	pb_slot(b, tx, 0);
	ct = pb_chunk(b, ot, ".text", 32, 8, 0, 0);
	pb_slot(b, ro, 0);
	*cp = pb_chunk(b, *op, ".rodata.str1.4", 0, 4, LK_CHUNK_MERGE, 0);
	*cp2 = pb_chunk(b, *op, ".rodata.cst8", 0, 8, LK_CHUNK_MERGE, 0);
	*cq = pb_chunk(b, *oq, ".rodata.str1.2", 0, 2, LK_CHUNK_MERGE, 0);
	*cq2 = pb_chunk(b, *oq, ".rodata.cst8", 0, 8, LK_CHUNK_MERGE, 0);
	b->hdr.flags = LK_PAYLOAD_F_LLD_MERGE;
	mlld_class(b, "foo", 4, 3);
	mlld_class(b, "bar", 4, 1);
	mlld_class(b, "hello", 6, 3);
	mlld_class(b, "x", 2, 0);
	mlld_class(b, "AAAAAAAA", 8, 5);
	mlld_class(b, "BBBBBBBB", 8, 2);
	mlld_class(b, "CCCCCCCC", 8, 5);
	b->mg[0] = (struct lk_merge_group){ 16, 0, 4 };
	b->mg[1] = (struct lk_merge_group){ 24, 4, 3 };
	b->nmg = 2;
	b->chunk[*cq].mgroup = 0, b->chunk[*cp2].mgroup = 1;
	b->chunk[*cq2].mgroup = 1;
	memcpy(b->mref, refs, sizeof(refs));
	b->nmref = 10;
	b->chunk[*cp].mref_first = 0, b->chunk[*cp].mref_count = 2;
	b->chunk[*cq].mref_first = 2, b->chunk[*cq].mref_count = 3;
	b->chunk[*cp2].mref_first = 5, b->chunk[*cp2].mref_count = 3;
	b->chunk[*cq2].mref_first = 8, b->chunk[*cq2].mref_count = 2;
	y[0] = pb_sym(b, "s_foo", LK_SYM_MERGE, 0, 0);
	y[1] = pb_sym(b, "s_llo", LK_SYM_MERGE, 2, 2);
	y[2] = pb_sym(b, "s_c", LK_SYM_MERGE, 6, 0);
	y[3] = pb_sym(b, "s_x", LK_SYM_MERGE, 3, 0);
	b->hdr.entry_sym = pb_sym(b, "entry", LK_SYM_CHUNK, ct, 0);
	for (int i = 0; i < 4; i++)
		pb_reloc(b, ct, 8 * i, LK_R_X86_64_64, y[i], 0);
	pb_op(b, LK_E_CONST, 0, 0, 0x400000);
	pb_op(b, LK_S_SECTION, LK_SEC_VMA, tx, 0);
	pb_op(b, LK_S_SLOT, 0, 0, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	pb_op(b, LK_S_SECTION, 0, ro, 0);
	pb_op(b, LK_S_SLOT, 0, 1, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	return b;
}

static void test_merge_lld(void)
{
	lk_u32 cp, cq, cp2, cq2, op, oq, tx = 0, ro = 1;
	struct pb *b = mlld_fixture(&cp, &cq, &cp2, &cq2, &op, &oq);
	int seen[2] = { 0, 0 }, ok = 1;
	struct linked k;

	tlog_reset();
	for (lk_u32 s = 0; s < 40 && ok; s++) {
		do_link(b, s, &k);
		if (k.rc) {
			ok = 0;
			break;
		}
		int p = k.L->obj_pos[op] < k.L->obj_pos[oq];
		lk_u32 g0 = p ? cp : cq, g1 = p ? cp2 : cq2;
		lk_u64 base = k.L->os[ro].vma, v0 = k.L->chunk_vma[g0];
		lk_u8 *text = at_vma(&k, tx, 0x400000), *r;
		/* p first: x@0 | bar@4 | foo@8 hello@12 (18 bytes);
		 * q first: x@0 | bar@4 | hello@8 foo@16 (20 bytes). */
		lk_u64 foo = p ? 8 : 16, hello = p ? 12 : 8, size = p ? 18 : 20;
		/* B@0 | A, C in first-occurrence order from 8. */
		lk_u64 c = p ? 16 : 8;

		ok &= k.L->chunk_size[g0] == size && k.L->chunk_size[g1] == 24;
		ok &= k.L->chunk_size[p ? cq : cp] == 0 &&
		      k.L->chunk_size[p ? cq2 : cp2] == 0;
		ok &= v0 == base && k.L->chunk_vma[g1] == lk_align_up(base + size, 8);
		ok &= rd64(text) == v0 + foo && rd64(text + 8) == v0 + hello + 2 &&
		      rd64(text + 16) == k.L->chunk_vma[g1] + c &&
		      rd64(text + 24) == v0;
		r = at_vma(&k, ro, v0);
		ok &= !memcmp(r, "x\0\0\0bar", 8) && !strcmp((char *)r + foo, "foo") &&
		      !strcmp((char *)r + hello, "hello") &&
		      (p || !memcmp(r + 14, "\0\0", 2));
		r = at_vma(&k, ro, k.L->chunk_vma[g1]);
		ok &= !memcmp(r, "BBBBBBBB", 8) && !memcmp(r + c, "CCCCCCCC", 8) &&
		      !memcmp(r + (p ? 8 : 16), "AAAAAAAA", 8);
		seen[p] = 1;
		unlink_(&k);
	}
	CHECK("merge_lld_links", ok, "rc %d: %s", k.rc, tlog[0]);
	CHECK("merge_lld_both_orders", seen[0] && seen[1], "orders %d %d",
	      seen[0], seen[1]);
	b->mc[1].shard = LK_MERGE_SHARDS;
	tlog_reset();
	do_link(b, 1, &k);
	CHECK("merge_lld_bad_shard", k.rc == LK_ERR_FORMAT &&
	      tlog_has("merge class 1: shard 32 out of range"), "rc %d: %s",
	      k.rc, tlog[0]);
	unlink_(&k);
	b->mc[1].shard = 1;
	b->hdr.flags = 0;
	tlog_reset();
	do_link(b, 1, &k);
	CHECK("merge_bfd_no_shards", k.rc == LK_ERR_FORMAT &&
	      tlog_has("merge class 0: shard 3 out of range"), "rc %d: %s",
	      k.rc, tlog[0]);
	unlink_(&k);
	b->hdr.flags = 2;
	tlog_reset();
	do_link(b, 1, &k);
	CHECK("payload_unknown_flags", k.rc == LK_ERR_FORMAT &&
	      tlog_has("unknown payload flags 0x2"), "rc %d: %s", k.rc, tlog[0]);
	unlink_(&k);
	free(b);
}

/* One chunk at 0x1000 with relocations against absolute symbols. */
struct rcase {
	lk_u32 type;
	lk_u64 S;
	lk_i64 A;
	int ok;
};

static void test_reloc_types(void)
{
	static const struct rcase rc[] = {
		{ LK_R_X86_64_64, 0x1122334455667788ull, 0, 1 },
		{ LK_R_X86_64_PC64, 0x10, 0, 1 },
		{ LK_R_X86_64_32, 0xfffffff0ull, 0xf, 1 },
		{ LK_R_X86_64_32, 0xfffffff0ull, 0x10, 0 },
		{ LK_R_X86_64_32, 0, -1, 0 },
		{ LK_R_X86_64_32S, 0xffffffff80000000ull, 0, 1 },
		{ LK_R_X86_64_32S, 0x7fffffff, 0, 1 },
		{ LK_R_X86_64_32S, 0x80000000, 0, 0 },
		{ LK_R_X86_64_PC32, 0x1000ull + 0x7fffffff, 0, 1 }, /* P differs */
		{ LK_R_X86_64_PC32, 0xffffffff00000000ull, 0, 0 },
		{ LK_R_X86_64_16, 0xffff, 0, 1 },
		{ LK_R_X86_64_16, 0, -0x8000, 1 },
		{ LK_R_X86_64_16, 0x10000, 0, 0 },
		{ LK_R_X86_64_PC16, 0x1000, 0x7fff, 1 },
		{ LK_R_X86_64_PC16, 0x9000, 0x7fff, 0 },
		{ LK_R_X86_64_8, 0xff, 0, 1 },
		{ LK_R_X86_64_8, 0x100, 0, 0 },
		{ LK_R_X86_64_PC8, 0x1000, 0x88, 1 },
		{ LK_R_X86_64_PC8, 0x1000, 0x200, 0 },
		/* Addends no field holds (the addends table): OpenBSD's
		 * locore addresses its physical load this way. */
		{ LK_R_X86_64_32, 0xffffffff80001000ull, 0x80000000ll, 1 },
		{ LK_R_X86_64_32S, 0, 0x7fffffffll + 1, 0 },
	};
	const int n = sizeof(rc) / sizeof(rc[0]);
	struct pb *b = pb_new();
	lk_u32 o = pb_obj(b, "r.o", 0, 0), t, c, nbad = 0, good = 1;
	lk_u32 sy[32];
	struct linked k;

	t = pb_outsec(b, ".text", LK_SHT_PROGBITS, X_TEXT, 1);
	pb_slot(b, t, 0);
	c = pb_chunk(b, o, ".text", 8 * n, 1, 0, 0);
	for (int i = 0; i < n; i++) {
		char nm[16];
		snprintf(nm, sizeof(nm), "s%d", i);
		sy[i] = pb_sym(b, nm, LK_SYM_ABS, 0, rc[i].S);
		pb_reloc(b, c, 8 * i, rc[i].type, sy[i], rc[i].A);
		nbad += !rc[i].ok;
	}
	/* Not s0: an entry outside every section is refused at layout. */
	b->hdr.entry_sym = pb_sym(b, "entry", LK_SYM_CHUNK, c, 0);
	pb_op(b, LK_E_CONST, 0, 0, 0x1000);
	pb_op(b, LK_S_SECTION, LK_SEC_VMA, t, 0);
	pb_op(b, LK_S_SLOT, 0, 0, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	tlog_reset();
	do_link(b, 1, &k);
	CHECK("reloc_errors_all_reported", k.rc == LK_ERR_LINK &&
	      tlog_total == (int)nbad, "rc %d, %d lines for %u bad", k.rc,
	      tlog_total, nbad);
	CHECK("reloc_error_text", tlog_has("kernel.kit: r.o(.text+0x38): relocation "
	      "R_X86_64_32S out of range for symbol 's7' (value 0x80000000)"),
	      "first line: %s", tlog[0]);
	for (int i = 0; i < n && k.img; i++) {
		lk_u64 P = 0x1000 + 8 * i, v = rc[i].S + rc[i].A, got;
		int w = lk_reloc_width(rc[i].type);
		if (rc[i].type == LK_R_X86_64_PC64 || rc[i].type == LK_R_X86_64_PC32 ||
		    rc[i].type == LK_R_X86_64_PC16 || rc[i].type == LK_R_X86_64_PC8)
			v -= P;
		if (!rc[i].ok)
			continue;
		got = rd64(k.img + 8 * i);
		if (w < 8)
			got &= (1ull << (8 * w)) - 1, v &= (1ull << (8 * w)) - 1;
		good &= got == v;
		if (got != v)
			printf("# case %d: got %llx want %llx\n", i, got, v);
	}
	CHECK("reloc_values", good && k.img, "wrong values");
	unlink_(&k);
	free(b);
}

/* Errors against unnamed symbols say where the symbol points. */
static void test_reloc_unnamed(void)
{
	struct pb *b = pb_new();
	lk_u32 o = pb_obj(b, "u.o", 0, 0), t, c, y;
	struct linked k;

	t = pb_outsec(b, ".text", LK_SHT_PROGBITS, X_TEXT, 1);
	pb_slot(b, t, 0);
	c = pb_chunk(b, o, ".text.x", 16, 1, 0, 0);
	y = pb_sym(b, "", LK_SYM_CHUNK, c, 4);
	pb_reloc(b, c, 8, LK_R_X86_64_8, y, 0);
	b->hdr.entry_sym = y;
	pb_op(b, LK_E_CONST, 0, 0, 0x1000);
	pb_op(b, LK_S_SECTION, LK_SEC_VMA, t, 0);
	pb_op(b, LK_S_SLOT, 0, 0, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	tlog_reset();
	do_link(b, 1, &k);
	CHECK("reloc_error_unnamed", k.rc == LK_ERR_LINK && tlog_total == 1 &&
	      tlog_has("kernel.kit: u.o(.text.x+0x8): relocation R_X86_64_8 out "
		       "of range for symbol 'u.o(.text.x+0x4)' (value 0x1004)"),
	      "%s", tlog[0]);
	unlink_(&k);
	free(b);
}

static void test_reloc_cap_and_undefined(void)
{
	struct pb *b = pb_new();
	lk_u32 o = pb_obj(b, "r.o", 0, 0), t, c, s, g;
	struct linked k;

	t = pb_outsec(b, ".text", LK_SHT_PROGBITS, X_TEXT, 1);
	pb_slot(b, t, 0);
	c = pb_chunk(b, o, ".text", 4 * 60 + 8, 1, 0, 0);
	s = pb_sym(b, "far", LK_SYM_ABS, 0, 0x100000000ull);
	g = pb_sym(b, "ghost", LK_SYM_PLAN, 0, 0);
	for (int i = 0; i < 60; i++)
		pb_reloc(b, c, 4 * i, LK_R_X86_64_32, s, 0);
	pb_reloc(b, c, 240, LK_R_X86_64_64, g, 0);
	b->hdr.entry_sym = pb_sym(b, "entry", LK_SYM_CHUNK, c, 0);
	pb_op(b, LK_E_CONST, 0, 0, 0x1000);
	pb_op(b, LK_S_SECTION, LK_SEC_VMA, t, 0);
	pb_op(b, LK_S_SLOT, 0, 0, 0);
	pb_op(b, LK_S_END_SECTION, 0, 0, 0);
	tlog_reset();
	do_link(b, 1, &k);
	CHECK("reloc_error_cap", k.rc == LK_ERR_LINK && tlog_total == 51 &&
	      strstr(tlog[50], "11 more relocation errors"),
	      "%d lines, last %s", tlog_total, tlog[tlog_n - 1]);
	unlink_(&k);
	/* Only the undefined one: make the 32s fit. */
	b->sym[s].value = 0x1000;
	tlog_reset();
	do_link(b, 1, &k);
	CHECK("reloc_undefined", k.rc == LK_ERR_LINK && tlog_total == 1 &&
	      tlog_has("r.o(.text+0xf0): relocation R_X86_64_64 against undefined "
		       "symbol 'ghost'"), "%d: %s", tlog_total, tlog[0]);
	unlink_(&k);
	free(b);
}

/* Links b with each seed whole and in several parts: same result code,
 * same image, same messages. */
static int split_same(struct pb *b, lk_u32 seeds, char *why, size_t n)
{
	static const lk_u32 parts[] = { 1, 2, 3, 5, LK_WRITE_MAX_PARTS + 9 };
	struct linked k1, k2;
	char first[512];
	int lines;

	for (lk_u32 s = 0; s < seeds; s++)
		for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
			tlog_reset();
			split_parts = 0;
			do_link(b, s, &k1);
			lines = tlog_total;
			snprintf(first, sizeof(first), "%s", tlog_n ? tlog[0] : "");
			tlog_reset();
			split_parts = parts[i];
			do_link(b, s, &k2);
			split_parts = 0;
			lk_u64 sz = k1.info.load_hi - k1.info.load_lo;
			int ok = k1.rc == k2.rc && lines == tlog_total &&
				 !strcmp(first, tlog_n ? tlog[0] : "") &&
				 (k1.rc || (sz == k2.info.load_hi - k2.info.load_lo &&
					    !memcmp(k1.img, k2.img, sz)));
			if (!ok)
				snprintf(why, n, "seed %u, %u parts: rc %d/%d, %d/%d lines",
					 s, parts[i], k1.rc, k2.rc, lines, tlog_total);
			unlink_(&k1);
			unlink_(&k2);
			if (!ok)
				return 0;
		}
	return 1;
}

static void test_split_write(void)
{
	struct fix f;
	char why[160] = "";
	struct lk_link *L = NULL;
	struct lk_write_split ws;
	lk_u64 size;
	lk_u8 *p;

	fix_make(&f);
	fix_relocs(&f);
	f.b->outsec[f.t_data].oflags = LK_OUTSEC_RANDOM_FILL;
	CHECK("split_write_same_image", split_same(f.b, 24, why, sizeof(why)),
	      "%s", why);
	/* Merged strings (ld.lld's layout) go with the parts too. */
	lk_u32 mp, mq, mp2, mq2, mop, moq;
	struct pb *m = mlld_fixture(&mp, &mq, &mp2, &mq2, &mop, &moq);
	CHECK("split_write_merged_strings", split_same(m, 12, why, sizeof(why)),
	      "%s", why);
	free(m);
	/* A relocation out of range in a plain .text chunk: found by a
	 * quiet part, reported by lk_link_write_end as lk_link_write does. */
	f.b->sym[f.y_cvar].kind = LK_SYM_ABS;
	f.b->sym[f.y_cvar].value = 0x4000000000ull;
	CHECK("split_write_same_errors", split_same(f.b, 3, why, sizeof(why)),
	      "%s", why);
	/* Write before layout: refused with the same line. */
	p = pb_build(f.b, &size);
	tlog_reset();
	CHECK("split_write_before_layout",
	      !lk_link_open(&th, p, size, "kernel.kit", &L) &&
		      lk_link_write_begin(L, 2, &ws) == LK_ERR_LINK &&
		      tlog_has("write before a successful layout"),
	      "%s", tlog[0]);
	lk_link_close(L);
	free(p);
	free(f.b);
}

/* Validation: a mutation of the good fixture gives one clear error. */
typedef void (*mutator)(struct fix *f, lk_u8 *payload, lk_u64 *size);

/* The good fixture with relocations, built and then mutated by m. */
static lk_u8 *mutated_payload(struct fix *f, mutator m, lk_u64 *size)
{
	lk_u8 *p;

	fix_make(f);
	fix_relocs(f);
	p = pb_build(f->b, size);
	m(f, p, size);
	tlog_reset();
	return p;
}

static void bad_payload(const char *name, mutator m, const char *needle)
{
	struct fix f;
	struct lk_link *L = NULL;
	lk_u64 size;
	lk_u8 *p = mutated_payload(&f, m, &size);
	int rc;

	rc = lk_link_open(&th, p, size, "kernel.kit", &L);
	CHECK(name, rc == LK_ERR_FORMAT && L == NULL && tlog_total == 1 &&
	      tlog_has(needle), "rc %d, %d lines: %s", rc, tlog_total, tlog[0]);
	lk_link_close(L);
	free(p);
	free(f.b);
}

/*
 * A bad relocation record passes lk_link_open and layout (the records are
 * checked as they are applied) and fails the write with one line; the
 * image is still written in full.
 */
static void bad_record(const char *name, mutator m, const char *needle)
{
	struct fix f;
	struct lk_link *L = NULL;
	struct lk_image_info in;
	struct lk_rng r;
	lk_u64 size;
	lk_u8 *p = mutated_payload(&f, m, &size), *img = NULL;
	int rc;

	rng_seed(&r, 1);
	rc = lk_link_open(&th, p, size, "kernel.kit", &L);
	rc = rc ? rc : lk_link_layout(L, &r);
	if (rc == LK_OK) {
		lk_link_info(L, &in);
		img = calloc(1, in.load_hi - in.load_lo + 1);
		rc = lk_link_write(L, img, &r);
	}
	CHECK(name, rc == LK_ERR_LINK && tlog_total == 1 && tlog_has(needle),
	      "rc %d, %d lines: %s", rc, tlog_total, tlog[0]);
	lk_link_close(L);
	free(img);
	free(p);
	free(f.b);
}

#define HDR(p) ((struct lk_payload_header *)(p))
#define CHUNK(p, i) ((struct lk_chunk *)((p) + HDR(p)->chunks.off) + (i))
#define SYM(p, i) ((struct lk_symbol *)((p) + HDR(p)->symbols.off) + (i))
#define RDELTA(p, i) ((lk_u32 *)((p) + HDR(p)->relocs.off) + (i))
#define RINFO(p, i) ((lk_u32 *)((p) + HDR(p)->relocs.off) + HDR(p)->relocs.count + (i))

static void m_trunc(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)f; (void)p; *s -= 1; }
static void m_tiny(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)f; (void)p; *s = 20; }
static void m_magic(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)f; (void)s; p[0] ^= 1; }
static void m_misalign(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)f; (void)s; HDR(p)->chunks.off += 4; }
static void m_count(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)f; (void)s; HDR(p)->objects.count = 0xffffffffu; }
static void m_maxalign(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)f; (void)s; HDR(p)->max_align = 48; }
static void m_obj(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)s; CHUNK(p, f->c_a)->object = 99; }
static void m_slot(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)s; CHUNK(p, f->c_a)->slot = 1; }
static void m_align3(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)s; CHUNK(p, f->c_a)->align = 3; }
static void m_align_big(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)s; CHUNK(p, f->c_a)->align = 8192; }
static void m_huge(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)s; CHUNK(p, f->c_bbss)->size = 1ull << 40; }
static void m_dataoff(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)s; CHUNK(p, f->c_a)->data_off = HDR(p)->data.count - 2; }
static void m_symref(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)s; SYM(p, f->y_afn)->ref = 1000; }
static void m_symkind(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)s; SYM(p, f->y_afn)->kind = 9; }
static void m_entry(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)f; (void)s; HDR(p)->entry_sym = 77; }
static void m_reloff(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)f; (void)s; *RDELTA(p, 1) = 7; } /* reloc 0 is at 0 */
static void m_reltype(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)f; (void)s; *RINFO(p, 0) = (*RINFO(p, 0) & ~0xffu) | 9; }
static void m_relsym(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)f; (void)s; *RINFO(p, 0) = lk_reloc_info(5000, lk_reloc_info_type(*RINFO(p, 0))); }
static void m_relwide(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)f; (void)s; *RINFO(p, 0) |= LK_RELOC_WIDE; }
/* The relocs table read as an addends entry: reserved is delta[1], 4. */
static void m_addends(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)f; (void)s; HDR(p)->addends = (struct lk_table){ HDR(p)->relocs.off, 1 }; }
static void m_relrange(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)s; CHUNK(p, f->c_a)->reloc_count = 50; }
static void m_strnul(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)f; (void)s; p[HDR(p)->strtab.off + HDR(p)->strtab.count - 1] = 'x'; }
static void m_name(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)s; CHUNK(p, f->c_a)->name = 0xfffff; }
static void m_slotrange(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)f; (void)s; ((struct lk_slot *)(p + HDR(p)->slots.off))[2].chunk_count = 5; }
/* Still inside the table, but overlapping slot 1: a chunk in two slots. */
static void m_slotover(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)f; (void)s; ((struct lk_slot *)(p + HDR(p)->slots.off))[0].chunk_count++; }
static void m_fill(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)f; (void)s; ((struct lk_outsec *)(p + HDR(p)->outsecs.off))[0].fill_len = 5; }
static void m_gapfill(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)s; CHUNK(p, f->c_gap)->data_off = 0x100; }
static void m_planidx(struct fix *f, lk_u8 *p, lk_u64 *s) { (void)f; (void)s; ((struct lk_op *)(p + HDR(p)->plan.off))[3].arg = 40; }

static void test_validation(void)
{
	bad_payload("valid_truncated", m_trunc, "data table (offset");
	bad_payload("valid_tiny", m_tiny, "payload too small");
	bad_payload("valid_magic", m_magic, "bad payload magic");
	bad_payload("valid_misaligned_table", m_misalign, "chunks table");
	bad_payload("valid_huge_count", m_count, "objects table (offset 0x");
	bad_payload("valid_max_align", m_maxalign, "bad max_align 0x30");
	bad_payload("valid_chunk_object", m_obj, "chunk 2: bad object 99");
	bad_payload("valid_chunk_slot", m_slot, "a.o(.text): bad flags");
	bad_payload("valid_align_not_pow2", m_align3, "align 0x3");
	bad_payload("valid_align_too_big", m_align_big, "align 0x2000");
	bad_payload("valid_huge_size", m_huge, "b.o(.bss): bad flags 0x1, size 0x10000000000");
	bad_payload("valid_data_offset", m_dataoff, "a.o(.text): bad flags");
	bad_payload("valid_symbol_ref", m_symref, "symbol 'a_fn': bad kind 0, reference 1000");
	bad_payload("valid_symbol_kind", m_symkind, "symbol 'a_fn': bad kind 9");
	bad_payload("valid_entry", m_entry, "entry symbol index 77");
	bad_record("valid_reloc_offset", m_reloff, "a.o(.text+0x7): bad relocation (type 11");
	bad_record("valid_reloc_type", m_reltype, "a.o(.text+0x0): bad relocation (type 9");
	bad_record("valid_reloc_symbol", m_relsym, "a.o(.text+0x0): bad relocation (type 2, symbol 5000)");
	bad_record("valid_reloc_wide", m_relwide, "a.o(.text+0x0): bad relocation (type 130, symbol");
	bad_payload("valid_addends", m_addends, "addends entry 0 (relocation 0) is out of order or range");
	bad_payload("valid_reloc_range", m_relrange, "a.o(.text): bad relocation range");
	bad_payload("valid_strtab_nul", m_strnul, "not NUL-terminated");
	bad_payload("valid_name_offset", m_name, "chunk 2: name offset 0xfffff");
	bad_payload("valid_slot_range", m_slotrange, "slot 2: bad outsec");
	bad_payload("valid_slot_overlap", m_slotover, "slots hold");
	bad_payload("valid_fill_len", m_fill, "output section .text: bad type");
	bad_payload("valid_gap_fill", m_gapfill, "gap(.text.gap): bad flags");
	bad_payload("valid_plan_index", m_planidx, "plan op 3");
}

/*
 * COMDAT copies and LK_SYM_ALT. a.o and b.o hold copies of group 'g' with
 * different sizes and alignments (only a.o's has .rodata); g_fn is weak in
 * both copies; w is weak in a.o and c.o; s is strong in b.o's copy and
 * weak in c.o. Nothing is pinned, so seeds give every order.
 */
struct cfix {
	struct pb *b;
	lk_u32 o_a, o_b, o_c, t_text, t_rod, t_data;
	lk_u32 c_a, c_ag, c_bg, c_c, c_arod, c_data;
	lk_u32 y_ga, y_gb, y_g, y_wa, y_wc, y_w, y_sb, y_sc, y_s, y_big;
};

static lk_u32 cand(struct pb *b, const char *name, lk_u32 chunk,
		   lk_u64 value, lk_u8 bind, lk_u64 size)
{
	lk_u32 s = pb_sym(b, name, LK_SYM_CHUNK, chunk, value);

	b->sym[s].emit = 0;
	b->sym[s].bind = bind;
	b->sym[s].size = size;
	return s;
}

static void cfix_plan(struct cfix *f)
{
	struct pb *b = f->b;

	pb_op(b, LK_E_CONST, 0, 0, VBASE);
	pb_op(b, LK_E_CONST, 0, 0, PBASE);
	plan_one_slot(b, LK_SEC_VMA | LK_SEC_LMA, f->t_text, 0);
	plan_one_slot(b, 0, f->t_rod, 1);
	plan_one_slot(b, 0, f->t_data, 2);
}

static void cfix_make(struct cfix *f)
{
	struct pb *b = pb_new();
	lk_u32 g;

	memset(f, 0, sizeof(*f));
	f->b = b;
	f->o_a = pb_obj(b, "a.o", 0, 0);
	f->o_b = pb_obj(b, "b.o", 0, 0);
	f->o_c = pb_obj(b, "c.o", 0, 0);
	g = pb_comdat(b, "g");
	f->t_text = pb_outsec(b, ".text", LK_SHT_PROGBITS, X_TEXT, 64);
	f->t_rod = pb_outsec(b, ".rodata", LK_SHT_PROGBITS, LK_SHF_ALLOC, 8);
	f->t_data = pb_outsec(b, ".data", LK_SHT_PROGBITS, X_DATA, 8);
	pb_slot(b, f->t_text, 0);
	f->c_a = pb_chunk(b, f->o_a, ".text", 8, 4, LK_CHUNK_EXEC, 0);
	f->c_ag = pb_chunk(b, f->o_a, ".text.g", 24, 64, LK_CHUNK_EXEC, 0);
	f->c_bg = pb_chunk(b, f->o_b, ".text.g", 5, 1, LK_CHUNK_EXEC, 0);
	f->c_c = pb_chunk(b, f->o_c, ".text", 12, 4, LK_CHUNK_EXEC, 0);
	pb_slot(b, f->t_rod, 0);
	f->c_arod = pb_chunk(b, f->o_a, ".rodata.g", 16, 8, 0, 0);
	pb_slot(b, f->t_data, 0);
	f->c_data = pb_chunk(b, f->o_c, ".data", 24, 8, LK_CHUNK_WRITE, 0);
	b->chunk[f->c_ag].comdat = b->chunk[f->c_bg].comdat = g;
	b->chunk[f->c_arod].comdat = g;
	f->y_ga = cand(b, "g_fn", f->c_ag, 2, LK_STB_WEAK, 10);
	f->y_gb = cand(b, "g_fn", f->c_bg, 1, LK_STB_WEAK, 3);
	f->y_g = pb_sym(b, "g_fn", LK_SYM_ALT, f->y_ga, 2);
	f->y_wa = cand(b, "w", f->c_a, 4, LK_STB_WEAK, 4);
	f->y_wc = cand(b, "w", f->c_c, 0, LK_STB_WEAK, 4);
	f->y_w = pb_sym(b, "w", LK_SYM_ALT, f->y_wa, 2);
	f->y_sb = cand(b, "s", f->c_bg, 3, LK_STB_GLOBAL, 1);
	f->y_sc = cand(b, "s", f->c_c, 8, LK_STB_WEAK, 1);
	f->y_s = pb_sym(b, "s", LK_SYM_ALT, f->y_sb, 2);
	f->y_big = pb_sym(b, "big", LK_SYM_ABS, 0, 0x1122334455667788ull);
	/* a.o's copy patches itself; .data points at the chosen ones. */
	pb_reloc(b, f->c_ag, 8, LK_R_X86_64_64, f->y_big, 0);
	pb_reloc(b, f->c_data, 0, LK_R_X86_64_64, f->y_g, 0);
	pb_reloc(b, f->c_data, 8, LK_R_X86_64_64, f->y_w, 0);
	pb_reloc(b, f->c_data, 16, LK_R_X86_64_64, f->y_s, 0);
	b->hdr.entry_sym = f->y_g;
	cfix_plan(f);
}

/* .text as GNU ld lays it out without the discarded copy: no room and no
 * alignment for it. */
static int text_as_ld(struct linked *k, const struct cfix *f)
{
	const struct lk_slot *sl = &k->L->slot[0];
	lk_u64 dot = VBASE;

	for (lk_u32 i = 0; i < sl->chunk_count; i++) {
		lk_u32 c = k->L->slot_order[sl->first_chunk + i];

		if (k->L->chunk_dead[c])
			continue;
		dot = (dot + f->b->chunk[c].align - 1) & ~(f->b->chunk[c].align - 1);
		if (k->L->chunk_vma[c] != dot)
			return 0;
		dot += f->b->chunk[c].size;
	}
	return k->L->os[f->t_text].size == dot - VBASE;
}

static int has_bytes(struct linked *k, lk_u64 v)
{
	lk_u64 n = k->info.load_hi - k->info.load_lo;

	for (lk_u64 i = 0; i + 8 <= n; i++)
		if (rd64(k->img + i) == v)
			return 1;
	return 0;
}

/* The emitted symbol takes the winner's size and bind. */
static int elf_sym_ok(struct linked *k, const char *name, lk_u64 size,
		      lk_u8 bind)
{
	struct lk_elf_view v;
	lk_u8 *buf;
	int n = 0;

	lk_link_elf_size(k->L, &v);
	buf = calloc(1, v.size);
	lk_link_elf_emit(k->L, buf, v.size, 0, &v);
	struct lk_elf64_shdr *sh = (void *)buf;
	struct lk_elf64_shdr *st = &sh[v.shnum - 3];
	struct lk_elf64_sym *sym = (void *)(buf + st->sh_offset);
	const char *str = (char *)buf + sh[v.shnum - 2].sh_offset;

	for (lk_u32 i = 1; i < st->sh_size / sizeof(*sym); i++)
		if (!strcmp(str + sym[i].st_name, name))
			n += sym[i].st_size == size && sym[i].st_info >> 4 == bind ? 1 : 100;
	free(buf);
	return n == 1;
}

static void test_comdat(void)
{
	struct cfix f;
	struct linked k;
	int bad = 0, a_won = 0, a_before_c = 0, n = 40;
	char why[600] = "";

	cfix_make(&f);
	for (int seed = 1; seed <= n; seed++) {
		do_link(f.b, (lk_u32)seed, &k);
		if (k.rc) {
			snprintf(why, sizeof(why), "seed %d: %s", seed, tlog[0]);
			bad++;
			unlink_(&k);
			continue;
		}
		const lk_u32 *pos = k.L->obj_pos;
		const lk_u64 *v = k.L->chunk_vma, *val = k.L->sym_val;
		int aw = pos[f.o_a] < pos[f.o_b], ac = pos[f.o_a] < pos[f.o_c];
		lk_u64 g = aw ? v[f.c_ag] + 2 : v[f.c_bg] + 1;
		lk_u64 w = ac ? v[f.c_a] + 4 : v[f.c_c];
		lk_u64 s = aw ? v[f.c_c] + 8 : v[f.c_bg] + 3;
		lk_u8 *d = at_vma(&k, f.t_data, v[f.c_data]);
		int ok = k.L->chunk_size[f.c_ag] == (aw ? 24u : 0u) &&
			 k.L->chunk_size[f.c_bg] == (aw ? 0u : 5u) &&
			 k.L->os[f.t_rod].size == (aw ? 16u : 0u) &&
			 k.info.noutsecs == (aw ? 3u : 2u) && text_as_ld(&k, &f) &&
			 val[f.y_g] == g && val[f.y_w] == w && val[f.y_s] == s &&
			 rd64(d) == g && rd64(d + 8) == w && rd64(d + 16) == s &&
			 has_bytes(&k, 0x1122334455667788ull) == aw &&
			 elf_sym_ok(&k, "g_fn", aw ? 10 : 3, LK_STB_WEAK) &&
			 elf_sym_ok(&k, "s", 1, aw ? LK_STB_WEAK : LK_STB_GLOBAL);
		if (!ok && !bad++)
			snprintf(why, sizeof(why), "seed %d (a.o %s b.o, a.o %s c.o) wrong",
				 seed, aw ? "before" : "after", ac ? "before" : "after");
		a_won += aw;
		a_before_c += ac;
		unlink_(&k);
	}
	CHECK("comdat_and_alt_follow_order", bad == 0, "%s", why);
	CHECK("comdat_orders_vary", a_won > 0 && a_won < n && a_before_c > 0 &&
	      a_before_c < n, "a.o won %d, before c.o %d of %d", a_won, a_before_c, n);
	/* With no live candidate the symbol is undefined, like in ld. */
	f.b->sym[f.y_s].value = 1; /* only b.o's copy defines s */
	int undef = 0;
	for (int seed = 1; seed <= 8; seed++) {
		tlog_reset();
		do_link(f.b, (lk_u32)seed, &k);
		if (k.L && k.L->laid_out && !k.L->chunk_dead[f.c_bg])
			undef += k.rc == 0;
		else if (k.L && k.L->laid_out)
			undef += k.rc == LK_ERR_LINK &&
				 tlog_has("c.o(.data+0x10): relocation R_X86_64_64 "
					  "against undefined symbol 's'");
		else
			undef -= 100;
		unlink_(&k);
	}
	CHECK("alt_without_live_candidate_undefined", undef == 8, "%d of 8", undef);
	free(f.b);
}

typedef void (*cmutator)(struct cfix *f, lk_u8 *payload);

static void bad_comdat(const char *name, cmutator m, const char *want)
{
	struct cfix f;
	struct lk_link *L = NULL;
	lk_u64 size;
	lk_u8 *p;
	int rc;

	cfix_make(&f);
	p = pb_build(f.b, &size);
	m(&f, p);
	tlog_reset();
	rc = lk_link_open(&th, p, size, "kernel.kit", &L);
	CHECK(name, rc == LK_ERR_FORMAT && L == NULL && tlog_total == 1 &&
	      !strcmp(tlog[0], want), "rc %d, %d lines: %s", rc, tlog_total, tlog[0]);
	lk_link_close(L);
	free(p);
	free(f.b);
}

#define COMDAT(p, i) ((struct lk_comdat *)((p) + HDR(p)->comdats.off) + (i))
#define OBJ(p, i) ((struct lk_object *)((p) + HDR(p)->objects.off) + (i))

static void mc_range(struct cfix *f, lk_u8 *p) { CHUNK(p, f->c_bg)->comdat = 2; }
static void mc_reserved(struct cfix *f, lk_u8 *p) { CHUNK(p, f->c_ag)->reserved = 1; }
static void mc_flags(struct cfix *f, lk_u8 *p) { (void)f; COMDAT(p, 0)->flags = 2; }
static void mc_name(struct cfix *f, lk_u8 *p) { (void)f; COMDAT(p, 0)->name = 0xfffff; }
static void mc_table(struct cfix *f, lk_u8 *p) { (void)f; HDR(p)->comdats.off = 2; }
static void mc_synth(struct cfix *f, lk_u8 *p) { OBJ(p, f->o_b)->flags = LK_OBJ_SYNTHETIC; }
static void mc_gap(struct cfix *f, lk_u8 *p) { CHUNK(p, f->c_ag)->flags = LK_CHUNK_GAP; CHUNK(p, f->c_ag)->data_off = 0xcc; }
static void mc_alt0(struct cfix *f, lk_u8 *p) { SYM(p, f->y_g)->value = 0; }
static void mc_altbig(struct cfix *f, lk_u8 *p) { SYM(p, f->y_w)->value = 1000; }
static void mc_altref(struct cfix *f, lk_u8 *p) { SYM(p, f->y_s)->ref = 5000; }
static void mc_altkind(struct cfix *f, lk_u8 *p) { SYM(p, f->y_wc)->kind = LK_SYM_ABS; }
static void mc_altnest(struct cfix *f, lk_u8 *p) { SYM(p, f->y_s)->ref = f->y_w; }
static void mc_version(struct cfix *f, lk_u8 *p) { (void)f; HDR(p)->version = 1; }

static void test_comdat_validation(void)
{
	bad_comdat("valid_comdat_range", mc_range,
		   "kernel.kit: b.o(.text.g): COMDAT group 1 out of range (1 groups)");
	bad_comdat("valid_chunk_reserved", mc_reserved,
		   "kernel.kit: a.o(.text.g): reserved field 0x1 is not 0");
	bad_comdat("valid_comdat_flags", mc_flags,
		   "kernel.kit: COMDAT group 'g': unknown flags 0x2");
	bad_comdat("valid_comdat_name", mc_name,
		   "kernel.kit: comdat 0: name offset 0xfffff outside strtab");
	bad_comdat("valid_comdat_table", mc_table,
		   "kernel.kit: comdats table (offset 0x2, 1 entries) is outside "
		   "the payload or misaligned");
	bad_comdat("valid_comdat_synthetic", mc_synth,
		   "kernel.kit: b.o(.text.g): a merge, gap or synthetic chunk "
		   "cannot be in COMDAT group 'g'");
	bad_comdat("valid_comdat_gap", mc_gap,
		   "kernel.kit: a.o(.text.g): a merge, gap or synthetic chunk "
		   "cannot be in COMDAT group 'g'");
	bad_comdat("valid_alt_empty", mc_alt0,
		   "kernel.kit: symbol 'g_fn': candidates 0+0 out of range");
	bad_comdat("valid_alt_count", mc_altbig,
		   "kernel.kit: symbol 'w': candidates 3+1000 out of range");
	bad_comdat("valid_alt_ref", mc_altref,
		   "kernel.kit: symbol 's': candidates 5000+2 out of range");
	bad_comdat("valid_alt_candidate_kind", mc_altkind,
		   "kernel.kit: symbol 'w': candidate 4 is not a chunk symbol");
	bad_comdat("valid_alt_nested", mc_altnest,
		   "kernel.kit: symbol 's': candidate 5 is not a chunk symbol");
	bad_comdat("valid_payload_version", mc_version,
		   "kernel.kit: bad payload magic or version 1");
}

/* Random corruption never crashes, and every failure says why. */
static void garbage(const char *name, const lk_u8 *good, lk_u64 size)
{
	lk_u8 *p;
	int silent = 0, linked = 0;
	lk_u32 x = 12345;

	p = malloc(size);
	for (int it = 0; it < 6000; it++) {
		struct lk_link *L = NULL;
		struct lk_rng r;
		lk_u64 n = size;
		int rc, flips;

		memcpy(p, good, size);
		x = x * 1103515245u + 12345u;
		flips = 1 + (x >> 16) % 6;
		for (int i = 0; i < flips; i++) {
			x = x * 1103515245u + 12345u;
			lk_u64 at = (x >> 8) % size;
			x = x * 1103515245u + 12345u;
			/* Favour the header and tables, where structure lives. */
			if (i == 0 && (x & 1))
				at = (x >> 8) % 224;
			if (x & 2 && at + 4 <= size) {
				/* A whole field set to an edge value. */
				static const lk_u32 edge[] = { 0, 1, 2, 0x7fffffffu,
					0x80000000u, 0xffffffffu, 0xfffffff0u, 64 };
				lk_u32 w = edge[(x >> 20) & 7];
				memcpy(p + (at & ~3ull), &w, 4);
			} else
				p[at] = (lk_u8)(x >> 16);
		}
		if (it % 10 == 0)
			n = (x >> 4) % size;
		tlog_reset();
		rc = lk_link_open(&th, p, n, "fuzz.kit", &L);
		if (rc == LK_OK) {
			rng_seed(&r, (lk_u32)it);
			rc = lk_link_layout(L, &r);
		}
		if (rc == LK_OK) {
			struct lk_image_info in;
			lk_link_info(L, &in);
			if (in.load_hi - in.load_lo <= (16u << 20)) {
				lk_u8 *img = malloc(in.load_hi - in.load_lo + 1);
				rc = lk_link_write(L, img, &r);
				free(img);
				linked += rc == LK_OK;
			}
		}
		silent += rc != LK_OK && tlog_total == 0;
		lk_link_close(L);
	}
	CHECK(name, silent == 0, "%d failures without a line", silent);
	printf("# %s: %d of 6000 mutated payloads still linked\n", name, linked);
	free(p);
}

static void test_garbage(void)
{
	struct fix f;
	struct cfix c;
	lk_u64 size;
	lk_u8 *good;

	fix_make(&f);
	fix_relocs(&f);
	good = pb_build(f.b, &size);
	garbage("garbage_errors_logged", good, size);
	free(good);
	free(f.b);
	/* COMDAT groups and LK_SYM_ALT candidates as well. */
	cfix_make(&c);
	good = pb_build(c.b, &size);
	garbage("garbage_comdat_errors_logged", good, size);
	free(good);
	free(c.b);
}

static void test_elf_view(void)
{
	struct fix f;
	struct linked k;
	struct lk_elf_view v, v2;
	lk_u8 *buf;
	int found = 0;

	fix_make(&f);
	fix_relocs(&f);
	/* PHDRS: text for .text, data for .data and .bss. */
	f.b->phdr[0].name = pb_str(f.b, "text");
	f.b->phdr[0].type = LK_PT_LOAD;
	f.b->phdr[1].name = pb_str(f.b, "data");
	f.b->phdr[1].type = LK_PT_LOAD;
	f.b->nphdr = 2;
	f.b->outsec[f.t_text].phdr_mask = 1;
	f.b->outsec[f.t_data].phdr_mask = 2;
	f.b->outsec[f.t_bss].phdr_mask = 2;
	f.b->sym[f.y_afn].bind = LK_STB_LOCAL;
	tlog_reset();
	do_link(f.b, 5, &k);
	if (k.rc) {
		CHECK("elf_view", 0, "link failed: %s", tlog[0]);
		return;
	}
	lk_link_elf_size(k.L, &v);
	buf = calloc(1, v.size);
	CHECK("elf_view_emit", lk_link_elf_emit(k.L, buf, v.size, 0x9000, &v2) == 0 &&
	      v.shnum == 7 && v.shstrndx == 6 && v2.size == v.size, "shnum %u", v.shnum);
	struct lk_elf64_shdr *sh = (void *)buf;
	const char *shstr = (char *)buf + sh[6].sh_offset;
	struct lk_elf64_sym *sym = (void *)(buf + sh[4].sh_offset);
	const char *str = (char *)buf + sh[5].sh_offset;
	CHECK("elf_view_sections", strcmp(shstr + sh[1].sh_name, ".text") == 0 &&
	      strcmp(shstr + sh[3].sh_name, ".bss") == 0 && sh[3].sh_type == LK_SHT_NOBITS &&
	      sh[1].sh_addr == VBASE && sh[1].sh_offset == 0 &&
	      strcmp(shstr + sh[4].sh_name, ".symtab") == 0 &&
	      sh[4].sh_addr == 0x9000 + sh[4].sh_offset && sh[4].sh_link == 5,
	      "section headers wrong");
	lk_u32 nsyms = sh[4].sh_size / sizeof(*sym);
	CHECK("elf_view_locals_first", nsyms == 6 && sh[4].sh_info == 2 &&
	      strcmp(str + sym[1].st_name, "a_fn") == 0, "nsyms %u info %u", nsyms,
	      sh[4].sh_info);
	for (lk_u32 i = 1; i < nsyms; i++) {
		if (!strcmp(str + sym[i].st_name, "start"))
			found += sym[i].st_value == VBASE && sym[i].st_shndx == 1 &&
				 sym[i].st_info == (LK_STB_GLOBAL << 4);
		if (!strcmp(str + sym[i].st_name, "_end"))
			found += sym[i].st_value == k.L->sym_val[f.y_end] &&
				 sym[i].st_shndx == LK_SHN_ABS;
		if (!strcmp(str + sym[i].st_name, "etext"))
			found += sym[i].st_value == VBASE + k.L->os[f.t_text].size;
	}
	CHECK("elf_view_symbols", found == 3, "%d of 3 symbols right", found);
	struct lk_elf64_phdr ph[2];
	lk_u32 np;
	int rc = lk_link_phdrs(k.L, ph, sizeof(ph), &np);
	const struct lk_os *d = &k.L->os[f.t_data], *bs = &k.L->os[f.t_bss];
	CHECK("phdrs", rc == 0 && np == 2 && ph[0].p_paddr == PBASE &&
	      ph[0].p_vaddr == VBASE && ph[0].p_flags == (LK_PF_R | LK_PF_X) &&
	      ph[0].p_filesz == k.L->os[f.t_text].size &&
	      ph[1].p_paddr == d->lma && ph[1].p_filesz == d->size &&
	      ph[1].p_memsz == bs->vma + bs->size - d->vma &&
	      ph[1].p_flags == (LK_PF_R | LK_PF_W) && ph[1].p_offset == d->lma - PBASE,
	      "phdr values wrong");
	free(buf);
	unlink_(&k);
	free(f.b);
}

static void test_random_fill(void)
{
	struct fix f;
	struct linked k1, k2;
	lk_u32 rd;

	fix_make(&f);
	f.b->outsec[f.t_data].oflags = LK_OUTSEC_RANDOM_FILL;
	(void)rd;
	tlog_reset();
	do_link(f.b, 1, &k1);
	do_link(f.b, 2, &k2);
	if (k1.rc || k2.rc) {
		CHECK("random_fill", 0, "link failed: %s", tlog[0]);
		return;
	}
	lk_u8 *a = at_vma(&k1, f.t_data, k1.L->os[f.t_data].vma);
	lk_u8 *b = at_vma(&k2, f.t_data, k2.L->os[f.t_data].vma);
	lk_u64 n = k1.L->os[f.t_data].size;
	int zeros = 0, pattern = 0;
	for (lk_u64 i = 0; i < n; i++)
		zeros += a[i] == 0, pattern += a[i] == 0x40 + f.c_adata;
	CHECK("random_fill", n == 24 && memcmp(a, b, n) != 0 && zeros < 6 && pattern < 6,
	      "n %llu zeros %d", n, zeros);
	unlink_(&k1);
	unlink_(&k2);
	free(f.b);
}

/* A small ELF executable: two PT_LOADs, optional Multiboot2 header. */
static lk_u8 *make_elf(lk_u64 *size, int mb2)
{
	lk_u8 *e = calloc(1, 0x3000);
	struct lk_elf64_ehdr *h = (void *)e;
	struct lk_elf64_phdr *p = (void *)(e + 64);

	memcpy(h->e_ident, "\x7f" "ELF", 4);
	h->e_ident[4] = LK_ELFCLASS64;
	h->e_ident[5] = LK_ELFDATA2LSB;
	h->e_type = LK_ET_EXEC;
	h->e_machine = LK_EM_X86_64;
	h->e_entry = VBASE + 0x10;
	h->e_phoff = 64;
	h->e_phentsize = sizeof(*p);
	h->e_phnum = 3;
	p[0].p_type = LK_PT_LOAD;
	p[0].p_offset = 0x1000;
	p[0].p_vaddr = VBASE;
	p[0].p_paddr = PBASE;
	p[0].p_filesz = 0x800;
	p[0].p_memsz = 0x800;
	p[1].p_type = LK_PT_LOAD;
	p[1].p_offset = 0x2000;
	p[1].p_vaddr = VBASE + 0x2000;
	p[1].p_paddr = PBASE + 0x2000;
	p[1].p_filesz = 0x100;
	p[1].p_memsz = 0x400;
	p[2].p_type = 4; /* PT_NOTE: ignored */
	memset(e + 0x1000, 0xaa, 0x800);
	memset(e + 0x2000, 0xbb, 0x1000); /* bytes past filesz must not load */
	if (mb2) {
		lk_u32 w[4] = { 0xe85250d6u, 0, 16, 0 };
		w[3] = 0u - (w[0] + w[1] + w[2]);
		memcpy(e + 0x1008, w, 16);
	}
	*size = 0x3000;
	return e;
}

static void elf_bad(const char *name, void (*m)(lk_u8 *, lk_u64 *),
		    const char *needle)
{
	lk_u64 size;
	lk_u8 *e = make_elf(&size, 0);
	struct lk_elf_image img;
	int rc;

	m(e, &size);
	tlog_reset();
	rc = lk_elf_check(&th, e, size, "FALLBACK.ELF", &img);
	CHECK(name, rc == LK_ERR_ELF && tlog_total == 1 && tlog_has(needle),
	      "rc %d: %s", rc, tlog[0]);
	free(e);
}

#define PH(e) ((struct lk_elf64_phdr *)((e) + 64))
static void me_magic(lk_u8 *e, lk_u64 *s) { (void)s; e[1] = 'X'; }
static void me_small(lk_u8 *e, lk_u64 *s) { (void)e; *s = 40; }
static void me_phoff(lk_u8 *e, lk_u64 *s) { (void)s; ((struct lk_elf64_ehdr *)e)->e_phoff = 0x2ff0; }
static void me_filesz(lk_u8 *e, lk_u64 *s) { (void)s; PH(e)[1].p_filesz = 0x500; }
static void me_offset(lk_u8 *e, lk_u64 *s) { (void)s; PH(e)[1].p_offset = ~0ull - 4; }
static void me_overlap(lk_u8 *e, lk_u64 *s) { (void)s; PH(e)[1].p_paddr = PBASE + 0x700; }
static void me_entry(lk_u8 *e, lk_u64 *s) { (void)s; ((struct lk_elf64_ehdr *)e)->e_entry = 5; }
static void me_class(lk_u8 *e, lk_u64 *s) { (void)s; e[4] = 1; }

static void test_elfload(void)
{
	lk_u64 size;
	lk_u8 *e = make_elf(&size, 1), *dst;
	struct lk_elf_image img;
	int rc;

	tlog_reset();
	rc = lk_elf_check(&th, e, size, "FALLBACK.ELF", &img);
	CHECK("elf_check", rc == 0 && img.load_lo == PBASE &&
	      img.load_hi == PBASE + 0x2400 && img.entry_vma == VBASE + 0x10 &&
	      img.entry_lma == PBASE + 0x10 && img.nload == 2 &&
	      img.protocol == LK_PROTO_MULTIBOOT2, "rc %d lo %llx hi %llx",
	      rc, img.load_lo, img.load_hi);
	dst = malloc(0x2400);
	memset(dst, 0x77, 0x2400);
	rc = lk_elf_load(&th, e, size, dst);
	CHECK("elf_load", rc == 0 && dst[0] == 0xaa && dst[0x7ff] == 0xaa &&
	      dst[0x800] == 0 && dst[0x1fff] == 0 && dst[0x2000] == 0xbb &&
	      dst[0x20ff] == 0xbb && dst[0x2100] == 0 && dst[0x23ff] == 0,
	      "bytes wrong");
	free(dst);
	free(e);
	e = make_elf(&size, 0);
	rc = lk_elf_check(&th, e, size, "FALLBACK.ELF", &img);
	CHECK("elf_protocol_none", rc == 0 && img.protocol == LK_PROTO_NONE,
	      "protocol %u", img.protocol);
	free(e);
	elf_bad("elf_bad_magic", me_magic, "FALLBACK.ELF: not an x86-64 ELF");
	elf_bad("elf_too_small", me_small, "too small");
	elf_bad("elf_bad_class", me_class, "not an x86-64 ELF");
	elf_bad("elf_phdrs_outside", me_phoff, "valid program headers");
	elf_bad("elf_filesz_gt_memsz", me_filesz, "PT_LOAD outside the file");
	elf_bad("elf_offset_wrap", me_offset, "PT_LOAD outside the file");
	elf_bad("elf_overlap", me_overlap, "overlapping PT_LOAD at physical address (0x1000700)");
	elf_bad("elf_entry_outside", me_entry, "entry point outside every PT_LOAD (0x5)");
}

lk_u8 *test_make_kit(const lk_u8 *payload, lk_u64 size, lk_u64 *kit_size);

static int kit_try(lk_u8 *kit, lk_u64 n, lk_u8 *dst, lk_u64 dn)
{
	struct lk_kit k;
	int rc = lk_kit_open(&th, kit, n, "KERNEL.KIT", &k);

	return rc ? rc : lk_kit_inflate(&th, &k, "KERNEL.KIT", dst, dn);
}

static void test_kit(void)
{
	struct fix f;
	lk_u64 size, ksize;
	lk_u8 *payload, *kit, *dst;
	struct lk_kit_header *h;
	int rc;

	fix_make(&f);
	fix_relocs(&f);
	payload = pb_build(f.b, &size);
	kit = test_make_kit(payload, size, &ksize);
	h = (void *)kit;
	dst = calloc(1, size + 64);
	tlog_reset();
	rc = kit_try(kit, ksize, dst, size);
	CHECK("kit_roundtrip", rc == 0 && memcmp(dst, payload, size) == 0,
	      "rc %d: %s", rc, tlog[0]);
	struct lk_link *L = NULL;
	CHECK("kit_payload_opens", lk_link_open(&th, dst, size, "KERNEL.KIT", &L) == 0,
	      "%s", tlog[0]);
	lk_link_close(L);
	tlog_reset();
	rc = kit_try(kit, ksize - 1, dst, size);
	CHECK("kit_truncated", rc == LK_ERR_FORMAT && tlog_has("KERNEL.KIT: payload "
	      "size out of range (truncated kit?)"), "rc %d: %s", rc, tlog[0]);
	tlog_reset();
	rc = kit_try(kit, 30, dst, size);
	CHECK("kit_tiny", rc == LK_ERR_FORMAT && tlog_has("too small"), "rc %d", rc);
	kit[3] ^= 1;
	tlog_reset();
	rc = kit_try(kit, ksize, dst, size);
	CHECK("kit_magic", rc == LK_ERR_FORMAT && tlog_has("bad magic"), "rc %d", rc);
	kit[3] ^= 1;
	h->version = 2;
	tlog_reset();
	rc = kit_try(kit, ksize, dst, size);
	CHECK("kit_version", rc == LK_ERR_UNSUPPORTED && tlog_total == 1, "rc %d", rc);
	h->version = 1;
	kit[64 + 20] ^= 0x55;
	tlog_reset();
	rc = kit_try(kit, ksize, dst, size);
	CHECK("kit_hash", rc == LK_ERR_HASH && tlog_has("SHA-256"), "rc %d", rc);
	kit[64 + 20] ^= 0x55;
	/* The first block's type set to the reserved 3: no deflate stream has
	 * it, stored (the i386 build's kits) or compressed. A change inside a
	 * block's data could still inflate, and stages skip the Adler-32. */
	lk_u8 block0 = kit[64 + 2];
	kit[64 + 2] |= 0x06;
	lk_sha256(kit + 64, h->payload_zsize, h->payload_hash);
	tlog_reset();
	rc = kit_try(kit, ksize, dst, size);
	CHECK("kit_corrupt_stream", rc == LK_ERR_INFLATE && tlog_total == 1 &&
	      tlog_has("KERNEL.KIT: "), "rc %d: %s", rc, tlog[0]);
	kit[64 + 2] = block0;
	lk_sha256(kit + 64, h->payload_zsize, h->payload_hash);
	h->payload_size = size + 8;
	tlog_reset();
	rc = kit_try(kit, ksize, dst, size + 8);
	CHECK("kit_short_payload", rc == LK_ERR_INFLATE && tlog_total == 1,
	      "rc %d: %s", rc, tlog[0]);
	h->payload_size = size;
	tlog_reset();
	rc = kit_try(kit, ksize, dst, size - 1);
	CHECK("kit_small_buffer", rc == LK_ERR_RANGE && tlog_total == 1, "rc %d", rc);
	free(dst);
	free(kit);
	free(payload);
	free(f.b);
}

static void test_dump_layout(void)
{
	struct fix f;
	struct linked k;
	int ok = 1;

	fix_make(&f);
	tlog_reset();
	do_link(f.b, 11, &k);
	lk_link_dump_layout(k.L, LK_LOG_ERROR); /* must not show at ERROR */
	CHECK("dump_layout_hidden", k.rc == 0 && tlog_total == 0, "%d lines",
	      tlog_total);
	th.log_level = LK_LOG_DEBUG;
	lk_link_dump_layout(k.L, LK_LOG_DEBUG);
	for (lk_u32 i = 0; i < 6 && k.L; i++) {
		char want[64];
		snprintf(want, sizeof(want), "object %s",
			 k.L->str + k.L->obj[k.L->order[i]].name);
		ok &= i < (lk_u32)tlog_n && strcmp(tlog[i], want) == 0;
	}
	char gap[64];
	snprintf(gap, sizeof(gap), "gap .text.gap %llu",
		 k.L ? k.L->chunk_size[f.c_gap] : 0);
	CHECK("dump_layout_debug", ok && tlog_total == 7 && strcmp(tlog[6], gap) == 0,
	      "%d lines, last '%s'", tlog_total, tlog[tlog_n ? tlog_n - 1 : 0]);
	unlink_(&k);
	free(f.b);
	tlog_reset();
}

static int less_key(const void *ctx, lk_u32 a, lk_u32 b)
{
	const lk_u32 *key = ctx;

	return key[a] < key[b];
}

/* The merge sort against insertion sort (stable by construction). */
static void test_sort(void)
{
	lk_u32 key[300], v[300], w[300], tmp[300], x = 99;
	int ok = 1;

	for (lk_u32 n = 0; n < 300 && ok; n += 1 + n / 16) {
		for (lk_u32 i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			key[i] = (x >> 16) % 7;
			v[i] = w[i] = i;
		}
		lk_stable_sort(v, tmp, n, less_key, key);
		for (lk_u32 i = 1; i < n; i++)
			for (lk_u32 j = i; j > 0 && key[w[j]] < key[w[j - 1]]; j--) {
				lk_u32 t = w[j];
				w[j] = w[j - 1];
				w[j - 1] = t;
			}
		ok = memcmp(v, w, n * 4) == 0;
	}
	CHECK("stable_sort", ok, "differs from insertion sort");
	CHECK("align_up", lk_align_up(10, 6) == 12 && lk_align_up(12, 6) == 12 &&
	      lk_align_up(17, 16) == 32 && lk_align_up(5, 0) == 5, "arithmetic wrong");
}

static int alloc_left;

static void *fail_alloc(void *ctx, lk_size n)
{
	(void)ctx;
	return alloc_left-- > 0 ? calloc(1, n) : NULL;
}

/* Every allocation failure gives LK_ERR_NOMEM, one line, and no leak. */
static void test_nomem(void)
{
	struct fix f;
	lk_u64 size;
	lk_u8 *p;
	int bad = 0, limit;

	fix_make(&f);
	fix_relocs(&f);
	p = pb_build(f.b, &size);
	for (limit = 0; limit < 40; limit++) {
		struct lk_link *L = NULL;
		struct lk_rng r;
		int rc;

		tlog_reset();
		th.alloc = fail_alloc;
		alloc_left = limit;
		rng_seed(&r, 1);
		rc = lk_link_open(&th, p, size, "kernel.kit", &L);
		if (rc == LK_OK)
			rc = lk_link_layout(L, &r);
		lk_link_close(L);
		if (rc == LK_OK)
			break;
		bad += rc != LK_ERR_NOMEM || tlog_total != 1;
	}
	CHECK("nomem_reported", bad == 0 && limit > 5 && limit < 40,
	      "%d wrong results, %d allocations needed", bad, limit);
	tlog_reset();
	free(p);
	free(f.b);
}

/* Mutations of a real kit's payload (the demo kernel's): never a crash,
 * every failure explained, and the unmodified payload links. */
static int fuzz_kit(const char *path)
{
	FILE *fp = fopen(path, "rb");
	static lk_u8 kitbuf[4 << 20];
	size_t n;
	struct lk_kit kit;
	lk_u8 *pl, *p;
	int silent = 0, linked = 0, base_ok = 0;
	lk_u32 x = 777;

	if (!fp) {
		printf("skip fuzz_demo_kit: %s not built\n", path);
		return 0;
	}
	n = fread(kitbuf, 1, sizeof(kitbuf), fp);
	fclose(fp);
	tlog_reset();
	if (lk_kit_open(&th, kitbuf, n, path, &kit) ||
	    !(pl = malloc(kit.payload_size)) ||
	    lk_kit_inflate(&th, &kit, path, pl, kit.payload_size)) {
		printf("not ok fuzz_demo_kit: cannot read %s: %s\n", path, tlog[0]);
		return 1;
	}
	p = malloc(kit.payload_size);
	for (int it = 0; it <= 4000; it++) {
		struct lk_link *L = NULL;
		struct lk_rng r;
		int rc;

		memcpy(p, pl, kit.payload_size);
		for (int i = 0; it > 0 && i < 1 + it % 4; i++) {
			x = x * 1103515245u + 12345u;
			lk_u64 at = ((lk_u64)x << 7 ^ x >> 9) % (kit.payload_size - 4);
			lk_u32 w = (x >> 28) < 8 ? (lk_u32[]){ 0, 1, 0xffffffffu,
				0x80000000u, 7, 64, 0x10000, 3 }[x >> 28] : x;
			memcpy(p + (at & ~3ull), &w, (x & 1) ? 4 : 1);
		}
		tlog_reset();
		rng_seed(&r, (lk_u32)it);
		rc = lk_link_open(&th, p, kit.payload_size, "KERNEL.KIT", &L);
		if (rc == LK_OK)
			rc = lk_link_layout(L, &r);
		if (rc == LK_OK) {
			struct lk_image_info in;
			lk_link_info(L, &in);
			if (in.load_hi - in.load_lo <= (64u << 20)) {
				lk_u8 *img = malloc(in.load_hi - in.load_lo + 1);
				rc = lk_link_write(L, img, &r);
				free(img);
			}
		}
		if (it == 0)
			base_ok = rc == LK_OK;
		linked += rc == LK_OK;
		silent += rc != LK_OK && tlog_total == 0;
		lk_link_close(L);
	}
	CHECK("fuzz_demo_kit_base_links", base_ok, "the unmodified payload fails");
	CHECK("fuzz_demo_kit_errors_logged", silent == 0,
	      "%d failures without a line", silent);
	printf("# fuzz_demo_kit: %d of 4000 mutated payloads still linked\n",
	       linked - base_ok);
	free(p);
	free(pl);
	return failures != 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "--fuzz-kit"))
		return fuzz_kit(argv[2]);
	test_basic();
	test_entry_outside();
	test_determinism();
	test_slot_orders();
	test_plan_semantics();
	test_plan_errors();
	test_base_shift();
	test_nop_fill();
	discard_case("empty_section_discarded", 0, 0);
	discard_case("empty_section_with_symbol_discarded", 1, 1);
	test_merge();
	test_merge_lld();
	test_reloc_types();
	test_reloc_cap_and_undefined();
	test_reloc_unnamed();
	test_split_write();
	test_validation();
	test_comdat();
	test_comdat_validation();
	test_elf_view();
	test_random_fill();
	test_elfload();
	test_kit();
	test_nomem();
	test_dump_layout();
	test_sort();
	test_garbage();
	CHECK("close_wipes_everything", unwiped_frees == 0,
	      "%d buffers freed without a wipe", unwiped_frees);
	return failures ? 1 : 0;
}
