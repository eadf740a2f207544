/*
 * x86-64 relocations, after the host's classification (kit_format.h):
 * one switch computes the value from the psABI's S, A and P, one helper
 * checks the range, and errors name the object, section, offset and symbol.
 */
#include "link_internal.h"

/* A table, not a switch: lk_link_open looks up every relocation. */
const lk_u8 lk_reloc_widths[LK_RELOC_NTYPES] = {
	[LK_R_X86_64_64] = 8,
	[LK_R_X86_64_PC64] = 8,
	[LK_R_X86_64_PC32] = 4,
	[LK_R_X86_64_32] = 4,
	[LK_R_X86_64_32S] = 4,
	[LK_R_X86_64_16] = 2,
	[LK_R_X86_64_PC16] = 2,
	[LK_R_X86_64_8] = 1,
	[LK_R_X86_64_PC8] = 1,
};

const char *lk_reloc_name(lk_u32 type)
{
	switch (type) {
	case LK_R_X86_64_64:
		return "R_X86_64_64";
	case LK_R_X86_64_PC64:
		return "R_X86_64_PC64";
	case LK_R_X86_64_PC32:
		return "R_X86_64_PC32";
	case LK_R_X86_64_32:
		return "R_X86_64_32";
	case LK_R_X86_64_32S:
		return "R_X86_64_32S";
	case LK_R_X86_64_16:
		return "R_X86_64_16";
	case LK_R_X86_64_PC16:
		return "R_X86_64_PC16";
	case LK_R_X86_64_8:
		return "R_X86_64_8";
	case LK_R_X86_64_PC8:
		return "R_X86_64_PC8";
	}
	return "R_X86_64_?";
}

/* Whether v fits the field, with the psABI's (and GNU ld's) overflow rule:
 * unsigned for 32, signed for 32S and PC forms, either for 16 and 8. */
static int lk_reloc_fits(lk_u32 type, lk_u64 v)
{
	lk_i64 s = (lk_i64)v;

	switch (type) {
	case LK_R_X86_64_32:
		return v <= 0xffffffffull;
	case LK_R_X86_64_32S:
	case LK_R_X86_64_PC32:
		return s >= -0x80000000ll && s <= 0x7fffffffll;
	case LK_R_X86_64_16:
		return s >= -0x8000ll && s <= 0xffffll;
	case LK_R_X86_64_PC16:
		return s >= -0x8000ll && s <= 0x7fffll;
	case LK_R_X86_64_8:
		return s >= -0x80ll && s <= 0xffll;
	case LK_R_X86_64_PC8:
		return s >= -0x80ll && s <= 0x7fll;
	}
	return 1; /* 64-bit fields hold any value */
}

static void lk_put_le(lk_u8 *p, lk_u64 v, int width)
{
	int i;

	for (i = 0; i < width; i++)
		p[i] = (lk_u8)(v >> (8 * i));
}

/* One relocation as the loop found it: record r (an index into the
 * relocs table) of `chunk`, at offset off, with its decoded info. */
struct lk_reloc_site {
	lk_u32 chunk, r, info;
	lk_u64 off;
};

static void lk_reloc_error(const struct lk_link *L,
			   const struct lk_reloc_site *at, const char *what,
			   lk_u64 value, lk_u32 *nerr)
{
	char label[LK_SYM_LABEL];

	if ((*nerr)++ >= LK_RELOC_ERR_CAP)
		return;
	lk_log(L->h, LK_LOG_ERROR,
	       "%s: %s(%s+0x%llx): relocation %s %s "
	       "symbol '%s' (value 0x%llx)",
	       L->name, lk_chunk_obj_name(L, at->chunk),
	       lk_str(L, L->chunk[at->chunk].name), at->off,
	       lk_reloc_name(lk_reloc_info_type(at->info) & ~LK_RELOC_WIDE),
	       what,
	       lk_sym_label(L, lk_reloc_info_sym(at->info), label),
	       value);
}

/* A record that does not fit its chunk, names no symbol or has a type
 * the kit format does not know, or a wide addend the addends table
 * lacks (the untrusted payload's records are checked only here, as they
 * are applied). */
static void lk_reloc_bad(const struct lk_link *L,
			 const struct lk_reloc_site *at, lk_u32 *nerr)
{
	if ((*nerr)++ >= LK_RELOC_ERR_CAP)
		return;
	lk_log(L->h, LK_LOG_ERROR,
	       "%s: %s(%s+0x%llx): bad relocation (type %u, symbol %u)",
	       L->name, lk_chunk_obj_name(L, at->chunk),
	       lk_str(L, L->chunk[at->chunk].name), at->off,
	       lk_reloc_info_type(at->info), lk_reloc_info_sym(at->info));
}

typedef lk_u64 __attribute__((may_alias, aligned(1))) lk_unal_u64;
typedef lk_u32 __attribute__((may_alias, aligned(1))) lk_unal_u32;

/* The addend a field of w bytes holds: sign-extended (kit_format.h). */
static lk_u64 lk_field_addend(const lk_u8 *loc, int w)
{
	lk_u64 v = 0;
	int i;

	for (i = 0; i < w; i++)
		v |= (lk_u64)loc[i] << (8 * i);
	if (w < 8 && (v >> (8 * w - 1)) & 1)
		v |= ~0ull << (8 * w);
	return v;
}

/* The addends table entry of relocation r (sorted: lk_link_open). */
static int lk_wide_addend(const struct lk_link *L, lk_u32 r, lk_u64 *a)
{
	lk_u32 lo = 0, hi = L->nradd;

	while (lo < hi) {
		lk_u32 mid = lo + (hi - lo) / 2;

		if (L->radd[mid].reloc == r) {
			*a = (lk_u64)L->radd[mid].addend;
			return 1;
		}
		if (L->radd[mid].reloc < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Patches one relocation, a record lk_reloc_slow has checked, with S + A
 * (- P); counts errors in *nerr. */
static void lk_reloc_apply(const struct lk_link *L,
			   const struct lk_reloc_site *at, lk_u64 A,
			   lk_u8 *loc, lk_u32 *nerr)
{
	lk_u32 type = lk_reloc_info_type(at->info) & ~LK_RELOC_WIDE;
	lk_u32 sym = lk_reloc_info_sym(at->info);
	lk_u64 v = L->sym_val[sym] + A;
	lk_u64 P = L->chunk_vma[at->chunk] + at->off;
	int w = lk_reloc_width(type);

	if (!L->sym_known[sym]) {
		lk_reloc_error(L, at, "against undefined", 0, nerr);
		return;
	}
	switch (type) {
	case LK_R_X86_64_PC64:
	case LK_R_X86_64_PC32:
	case LK_R_X86_64_PC16:
	case LK_R_X86_64_PC8:
		v -= P;
		break;
	}
	if (!lk_reloc_fits(type, v)) {
		lk_reloc_error(L, at, "out of range for", v, nerr);
		return;
	}
	lk_put_le(loc, v, w);
}

/*
 * The forms kernels are made of, as a table instead of a switch: the
 * boot-time loop then has no indirect branch per relocation (the types
 * alternate unpredictably). pc: P is subtracted; the value fits when
 * (v + bias) & mask == 0 (the same ranges as lk_reloc_fits); w: bytes,
 * 0 for the types that take the general path (lk_reloc_slow). 32
 * entries, so a type is looked up with a mask and checked once.
 */
struct lk_fast_form {
	lk_u64 pc, bias, mask;
	lk_u32 w;
};
#define LK_HI32 0xffffffff00000000ull
#define LK_FAST_N 32
_Static_assert(LK_RELOC_NTYPES <= LK_FAST_N, "fast table covers every type");
_Static_assert(LK_RELOC_WIDE >= LK_FAST_N, "wide addends take the slow path");
static const struct lk_fast_form lk_fast[LK_FAST_N] = {
	[LK_R_X86_64_64] = { 0, 0, 0, 8 },
	[LK_R_X86_64_PC64] = { ~0ull, 0, 0, 8 },
	[LK_R_X86_64_PC32] = { ~0ull, 0x80000000ull, LK_HI32, 4 },
	[LK_R_X86_64_32S] = { 0, 0x80000000ull, LK_HI32, 4 },
	[LK_R_X86_64_32] = { 0, 0, LK_HI32, 4 },
};

/* Everything off the fast path: a record that does not fit its chunk,
 * names no symbol, has an unknown type or a wide addend with no entry is
 * reported here; the rest (other types, wide addends, undefined symbols,
 * values out of range) goes through lk_reloc_apply. */
static void lk_reloc_slow(const struct lk_link *L,
			  const struct lk_reloc_site *at, lk_u8 *p,
			  lk_u32 *nerr)
{
	lk_u64 size = L->chunk[at->chunk].size, off = at->off, A;
	lk_u32 type = lk_reloc_info_type(at->info);
	lk_u64 w = (lk_u64)lk_reloc_width(type & ~LK_RELOC_WIDE);

	if (w == 0 || lk_reloc_info_sym(at->info) >= L->nsym || off > size ||
	    size - off < w) {
		lk_reloc_bad(L, at, nerr);
		return;
	}
	if (!(type & LK_RELOC_WIDE))
		A = lk_field_addend(p + off, (int)w);
	else if (!lk_wide_addend(L, at->r, &A)) {
		lk_reloc_bad(L, at, nerr);
		return;
	}
	lk_reloc_apply(L, at, A, p + off, nerr);
}

/* Applies every relocation of `chunk`, whose bytes (with the addends in
 * their fields) are at p. Offsets are summed from the deltas. Each record
 * is checked first (OR-ed, one branch; the symbol's known flag only once
 * its index is). The link's arrays are read into locals: the stores
 * below may alias anything, so the compiler would reload them. */
void lk_reloc_chunk_apply(const struct lk_link *L, lk_u32 chunk, lk_u8 *p,
			  lk_u32 *nerr)
{
	const struct lk_chunk *ch = &L->chunk[chunk];
	const lk_u32 *delta = L->rel_delta, *info = L->rel_info;
	const lk_u64 *val = L->sym_val;
	const lk_u8 *known = L->sym_known;
	lk_u64 vma = L->chunk_vma[chunk], size = ch->size, v, off, A;
	lk_u32 nsym = L->nsym, type, sym, i, end, o = 0, lo, hi;
	const struct lk_fast_form *f;
	lk_u8 spare[4] = { 0 }, *hp;

	for (i = ch->reloc_first, end = i + ch->reloc_count; i < end; i++) {
		o += delta[i];
		off = o;
		type = lk_reloc_info_type(info[i]);
		sym = lk_reloc_info_sym(info[i]);
		f = &lk_fast[type & (LK_FAST_N - 1)];
		if (((type >= LK_FAST_N) | (f->w == 0) | (sym >= nsym) |
		     (off > size) | (size - off < f->w)) ||
		    !known[sym]) {
			struct lk_reloc_site at = { chunk, i, info[i], off };

			lk_reloc_slow(L, &at, p, nerr);
			continue;
		}
		/* A: the field, sign-extended from 4 bytes, or all 8 (the
		 * high half read from spare when the field has 4, so
		 * neither load needs a branch on the width). */
		lo = *(lk_unal_u32 *)(p + off);
		hp = f->w == 8 ? p + off + 4 : spare;
		hi = *(lk_unal_u32 *)hp;
		A = f->w == 8 ? ((lk_u64)hi << 32 | lo)
			      : (lk_u64)(lk_i64)(lk_i32)lo;
		v = val[sym] + A - ((vma + off) & f->pc);
		if ((v + f->bias) & f->mask) {
			struct lk_reloc_site at = { chunk, i, info[i], off };

			lk_reloc_apply(L, &at, A, p + off, nerr);
			continue;
		}
		/* Low half always, high half only for 8-byte fields (else
		 * into spare), so the store needs no branch on the width. */
		*(lk_unal_u32 *)(p + off) = (lk_u32)v;
		*(lk_unal_u32 *)hp = (lk_u32)(v >> 32);
	}
}
