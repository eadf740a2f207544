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

/* Unnamed symbols (sections, merged pieces) are named by where they are. */
static const char *lk_sym_label(const struct lk_link *L, lk_u32 s, char *buf,
				lk_size n)
{
	const struct lk_symbol *y = &L->sym[s];

	if (L->str[y->name] != '\0')
		return L->str + y->name;
	if (y->kind == LK_SYM_CHUNK)
		lk_snprintf(buf, n, "%s(%s+0x%llx)",
			    lk_chunk_obj_name(L, y->ref),
			    lk_str(L, L->chunk[y->ref].name), y->value);
	else if (y->kind == LK_SYM_MERGE)
		lk_snprintf(buf, n, "merged piece %u+0x%llx", y->ref, y->value);
	else
		lk_snprintf(buf, n, "#%u", s);
	return buf;
}

static void lk_reloc_error(const struct lk_link *L, lk_u32 chunk,
			   const struct lk_reloc *r, const char *what,
			   lk_u64 value, lk_u32 *nerr)
{
	char label[160];

	if ((*nerr)++ >= LK_RELOC_ERR_CAP)
		return;
	lk_log(L->h, LK_LOG_ERROR,
	       "%s: %s(%s+0x%llx): relocation %s %s "
	       "symbol '%s' (value 0x%llx)",
	       L->name, lk_chunk_obj_name(L, chunk),
	       lk_str(L, L->chunk[chunk].name), (lk_u64)r->offset,
	       lk_reloc_name(lk_reloc_type(r)), what,
	       lk_sym_label(L, lk_reloc_sym(r), label, sizeof(label)), value);
}

/* A record that does not fit its chunk, names no symbol or has a type
 * the kit format does not know (the untrusted payload's records are
 * checked only here, as they are applied). */
static void lk_reloc_bad(const struct lk_link *L, lk_u32 chunk,
			 const struct lk_reloc *r, lk_u32 *nerr)
{
	if ((*nerr)++ >= LK_RELOC_ERR_CAP)
		return;
	lk_log(L->h, LK_LOG_ERROR,
	       "%s: %s(%s+0x%llx): bad relocation (type %u, symbol %u)",
	       L->name, lk_chunk_obj_name(L, chunk),
	       lk_str(L, L->chunk[chunk].name), (lk_u64)r->offset,
	       lk_reloc_type(r), lk_reloc_sym(r));
}

typedef lk_u64 __attribute__((may_alias, aligned(1))) lk_unal_u64;
typedef lk_u32 __attribute__((may_alias, aligned(1))) lk_unal_u32;

/* Patches one relocation of `chunk` at loc, a record lk_reloc_chunk_apply
 * has checked; counts errors in *nerr. The
 * four types kernels are made of (PC32, 32S, 64, 32: PLT32 arrives as
 * PC32) take a direct path with one store; the rest share the general
 * one. Both compute S + A (- P) and check the range the same way. */
int lk_reloc_apply(const struct lk_link *L, lk_u32 chunk, lk_u32 idx,
		   lk_u8 *loc, lk_u32 *nerr)
{
	const struct lk_reloc *r = &L->rel[idx];
	lk_u32 type = lk_reloc_type(r), sym = lk_reloc_sym(r);
	lk_u64 v = L->sym_val[sym] + (lk_u64)r->addend;
	lk_u64 P = L->chunk_vma[chunk] + r->offset;

	if (!L->sym_known[sym]) {
		lk_reloc_error(L, chunk, r, "against undefined", 0, nerr);
		return 0;
	}
	switch (type) {
	case LK_R_X86_64_PC32:
		v -= P;
		/* fall through */
	case LK_R_X86_64_32S:
		if (v + 0x80000000ull > 0xffffffffull)
			break;
		*(lk_unal_u32 *)loc = (lk_u32)v;
		return 1;
	case LK_R_X86_64_64:
		*(lk_unal_u64 *)loc = v;
		return 1;
	case LK_R_X86_64_32:
		if (v > 0xffffffffull)
			break;
		*(lk_unal_u32 *)loc = (lk_u32)v;
		return 1;
	case LK_R_X86_64_16:
	case LK_R_X86_64_8:
		if (!lk_reloc_fits(type, v))
			break;
		lk_put_le(loc, v, lk_reloc_width(type));
		return 1;
	default: /* the other PC-relative forms lk_reloc_chunk_apply let by */
		v -= P;
		if (!lk_reloc_fits(type, v))
			break;
		lk_put_le(loc, v, lk_reloc_width(type));
		return 1;
	}
	lk_reloc_error(L, chunk, r, "out of range for", v, nerr);
	return 0;
}

/*
 * The forms kernels are made of, as a table instead of a switch: the
 * boot-time loop then has no indirect branch per relocation (the types
 * alternate unpredictably). pc: P is subtracted; the value fits when
 * (v + bias) & mask == 0 (the same ranges as lk_reloc_fits); w: bytes,
 * 0 for the types that take lk_reloc_apply's general path. 32 entries,
 * so a type is looked up with a mask and checked once.
 */
struct lk_fast_form {
	lk_u64 pc, bias, mask;
	lk_u32 w;
};
#define LK_HI32 0xffffffff00000000ull
#define LK_FAST_N 32
_Static_assert(LK_RELOC_NTYPES <= LK_FAST_N, "fast table covers every type");
static const struct lk_fast_form lk_fast[LK_FAST_N] = {
	[LK_R_X86_64_64] = { 0, 0, 0, 8 },
	[LK_R_X86_64_PC64] = { ~0ull, 0, 0, 8 },
	[LK_R_X86_64_PC32] = { ~0ull, 0x80000000ull, LK_HI32, 4 },
	[LK_R_X86_64_32S] = { 0, 0x80000000ull, LK_HI32, 4 },
	[LK_R_X86_64_32] = { 0, 0, LK_HI32, 4 },
};

/* Everything off the fast path: a record that does not fit its chunk,
 * names no symbol or has an unknown type is reported here; the rest
 * (other types, undefined symbols, values out of range) goes through
 * lk_reloc_apply, which reports what is wrong. */
static void lk_reloc_slow(const struct lk_link *L, lk_u32 chunk,
			  const struct lk_reloc *r, lk_u8 *p, lk_u32 *nerr)
{
	lk_u64 size = L->chunk[chunk].size, off = r->offset;
	lk_u64 w = (lk_u64)lk_reloc_width(lk_reloc_type(r));

	if (w == 0 || lk_reloc_sym(r) >= L->nsym || off > size ||
	    size - off < w) {
		lk_reloc_bad(L, chunk, r, nerr);
		return;
	}
	lk_reloc_apply(L, chunk, (lk_u32)(r - L->rel), p + off, nerr);
}

/* Applies every relocation of `chunk`, whose bytes are at p. Each record
 * is checked first (OR-ed, one branch; the symbol's known flag only once
 * its index is). The link's arrays are read into locals: the stores
 * below may alias anything, so the compiler would reload them. */
void lk_reloc_chunk_apply(const struct lk_link *L, lk_u32 chunk, lk_u8 *p,
			  lk_u32 *nerr)
{
	const struct lk_chunk *ch = &L->chunk[chunk];
	const struct lk_reloc *r = L->rel + ch->reloc_first;
	const struct lk_reloc *end = r + ch->reloc_count;
	const lk_u64 *val = L->sym_val;
	const lk_u8 *known = L->sym_known;
	lk_u64 vma = L->chunk_vma[chunk], size = ch->size, v, off;
	lk_u32 nsym = L->nsym, type, sym;
	const struct lk_fast_form *f;
	lk_u8 spare[4], *hi;

	for (; r < end; r++) {
		type = lk_reloc_type(r);
		sym = lk_reloc_sym(r);
		off = r->offset;
		f = &lk_fast[type & (LK_FAST_N - 1)];
		if (((type >= LK_FAST_N) | (f->w == 0) | (sym >= nsym) |
		     (off > size) | (size - off < f->w)) ||
		    !known[sym]) {
			lk_reloc_slow(L, chunk, r, p, nerr);
			continue;
		}
		v = val[sym] + (lk_u64)r->addend - ((vma + off) & f->pc);
		if ((v + f->bias) & f->mask) {
			lk_reloc_slow(L, chunk, r, p, nerr);
			continue;
		}
		/* Low half always, high half only for 8-byte fields (else
		 * into spare), so the store needs no branch on the width. */
		*(lk_unal_u32 *)(p + off) = (lk_u32)v;
		hi = f->w == 8 ? p + off + 4 : spare;
		*(lk_unal_u32 *)hi = (lk_u32)(v >> 32);
	}
}
