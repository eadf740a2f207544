/*
 * Relocation classification. The boot side only knows the plain data and
 * PC-relative types, so PLT32 becomes PC32 (static link: the PLT entry is
 * the function itself), GOT loads are relaxed the way ld.bfd relaxes them in
 * a static non-PIE link, and what cannot be relaxed goes through a GOT chunk
 * synthesized here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbint.h"

unsigned kb_reloc_width(uint32_t t)
{
	switch (t) {
	case R_X86_64_64:
	case R_X86_64_PC64:
		return 8;
	case R_X86_64_PC32:
	case R_X86_64_32:
	case R_X86_64_32S:
	case R_X86_64_PLT32:
	case R_X86_64_GOTPCREL:
	case R_X86_64_GOTPCRELX:
	case R_X86_64_REX_GOTPCRELX:
		return 4;
	case R_X86_64_16:
	case R_X86_64_PC16:
		return 2;
	case R_X86_64_8:
	case R_X86_64_PC8:
		return 1;
	}
	return 0;
}

/* Kit symbol for "start of section si of object oi". A reference into a
 * discarded COMDAT member is an error, as in ld.bfd (NONE). */
uint32_t kb_section_sym(struct kb *b, uint32_t oi, uint32_t si)
{
	struct kb_sec *s = &b->objs[oi].secs[si];
	uint32_t i;

	if (s->state == SEC_COMDAT_LOSER)
		return NONE;
	if (s->secsym != NONE)
		return s->secsym;
	i = kb_new_sym(b, "");
	b->syms[i].obj = oi;
	b->syms[i].sec = si;
	b->syms[i].def = DEF_OBJ;
	b->syms[i].bind = STB_LOCAL;
	b->syms[i].type = STT_SECTION;
	s->secsym = i;
	return i;
}

static int sym_is_local_def(const struct kb *b, uint32_t k)
{
	const struct kb_sym *s = &b->syms[k];

	return s->def == DEF_OBJ || s->def == DEF_COMMON;
}

static uint32_t got_slot(struct kb *b, uint32_t k)
{
	uint32_t e;

	if (b->syms[k].got)
		return b->syms[k].got - 1;
	b->got_syms = kb_xgrow(b->got_syms, b->ngot, sizeof(*b->got_syms));
	b->got_syms[b->ngot] = k;
	e = kb_new_sym(b, "");
	b->syms[e].def = DEF_OBJ;
	b->syms[e].bind = STB_LOCAL;
	b->syms[e].value = 8 * (uint64_t)b->ngot;
	b->syms[e].gotent = 1;
	b->syms[e].obj = NONE;
	b->syms[k].got = e + 1;
	b->ngot++;
	return e;
}

/* Register-operand rewrite shared by the immediate forms: the register
 * moves from ModRM.reg to ModRM.rm, so REX.R becomes REX.B. */
static void to_imm_form(uint8_t *p, uint64_t o, uint8_t opcode, uint8_t modrm)
{
	if (o >= 3 && (p[o - 3] & 0xf0) == 0x40 && (p[o - 3] & 0x4)) {
		p[o - 3] &= (uint8_t)~0x4;
		p[o - 3] |= 0x1;
	}
	p[o - 2] = opcode;
	p[o - 1] = modrm;
}

static int has_rex_w(const uint8_t *p, uint64_t o)
{
	return o >= 3 && (p[o - 3] & 0xf8) == 0x48;
}

/*
 * ld.bfd (elf_x86_64_convert_load_reloc) in a static non-PIE link: branches
 * and plain GOTPCREL loads become PC-relative (call -> addr32 call, jmp ->
 * jmp; nop, mov -> lea); GOTPCRELX mov/test/binop take the address as a
 * sign-extended immediate. Returns 1 when the instruction was rewritten.
 */
static int relax_got(struct kb *b, struct kb_sec *s, struct kb_reloc *r)
{
	uint8_t *p = (uint8_t *)s->data;
	uint64_t o = r->offset;
	int relocx = r->type != R_X86_64_GOTPCREL;
	uint8_t op, modrm, reg;

	if (!p || o < 2 || !sym_is_local_def(b, r->sym))
		return 0;
	op = p[o - 2];
	modrm = p[o - 1];
	reg = (uint8_t)((modrm & 0x38) >> 3);
	if ((modrm & 0xc7) != 0x05)
		return 0; /* not RIP-relative */
	if (op == 0xff && modrm == 0x15) {
		p[o - 2] = 0x67; /* addr32 call foo */
		p[o - 1] = 0xe8;
	} else if (op == 0xff && modrm == 0x25) {
		memmove(p + o - 1, p + o, 4); /* jmp foo; nop */
		p[o - 2] = 0xe9;
		p[o + 3] = 0x90;
		r->offset = o - 1;
	} else if (op == 0x8b && !relocx) {
		p[o - 2] = 0x8d; /* mov foo@GOTPCREL(%rip) -> lea foo(%rip) */
	} else if (!relocx || !has_rex_w(p, o)) {
		return 0;
	} else if (op == 0x8b) {
		to_imm_form(p, o, 0xc7, (uint8_t)(0xc0 | reg)); /* mov $foo */
	} else if (op == 0x85) {
		to_imm_form(p, o, 0xf7, (uint8_t)(0xc0 | reg)); /* test $foo */
	} else if ((op & 0xc7) == 0x03) {
		to_imm_form(p, o, 0x81, (uint8_t)(0xc0 | reg | (op & 0x38))); /* binop $foo */
	} else {
		return 0;
	}
	if (p[o - 2] == 0xc7 || p[o - 2] == 0xf7 || p[o - 2] == 0x81) {
		r->type = R_X86_64_32S; /* an absolute: no PC bias */
		r->addend = 0;
	} else {
		r->type = R_X86_64_PC32;
	}
	return 1;
}

static void classify(struct kb *b, struct kb_sec *s, struct kb_reloc *r)
{
	switch (r->type) {
	case R_X86_64_PLT32:
		r->type = R_X86_64_PC32;
		return;
	case R_X86_64_GOTPCREL:
	case R_X86_64_GOTPCRELX:
	case R_X86_64_REX_GOTPCRELX:
		if (!relax_got(b, s, r)) {
			r->sym = got_slot(b, r->sym);
			r->type = R_X86_64_PC32;
		}
		return;
	}
}

/* Symbol index 0 in a relocation means "no symbol": S = 0. */
static uint32_t abs_zero(struct kb *b)
{
	if (b->abs0 == 0) {
		uint32_t i = kb_new_sym(b, "");

		b->syms[i].def = DEF_OBJ;
		b->syms[i].sec = SHN_ABS;
		b->syms[i].bind = STB_LOCAL;
		b->syms[i].obj = 0;
		b->abs0 = i + 1;
	}
	return b->abs0 - 1;
}

static const char *esym_name(const struct kb_obj *o, uint32_t k)
{
	if (k < o->nsym && GELF_ST_TYPE(o->syms[k].st_info) == STT_SECTION &&
	    o->syms[k].st_shndx < o->nsec)
		return o->secs[o->syms[k].st_shndx].name;
	return k < o->nsym ? o->symname[k] : "?";
}

static uint32_t reloc_symbol(struct kb *b, uint32_t oi, uint32_t k)
{
	struct kb_obj *o = &b->objs[oi];
	const GElf_Sym *es = &o->syms[k];

	if (GELF_ST_TYPE(es->st_info) == STT_SECTION && GELF_ST_BIND(es->st_info) == STB_LOCAL) {
		if (es->st_shndx == 0 || es->st_shndx >= o->nsec)
			return NONE;
		return kb_section_sym(b, oi, es->st_shndx);
	}
	return o->ksym[k];
}

static void scan_one(struct kb *b, uint32_t oi, struct kb_sec *rs)
{
	struct kb_obj *o = &b->objs[oi];
	struct kb_sec *s = &o->secs[rs->sh.sh_info];
	size_t n = rs->sh.sh_size / sizeof(Elf64_Rela);
	const Elf64_Rela *ra = rs->data;

	s->reloc_first = (uint32_t)b->nrelocs;
	for (size_t i = 0; i < n; i++) {
		struct kb_reloc r = { 0 };
		uint32_t k = (uint32_t)ELF64_R_SYM(ra[i].r_info);
		unsigned w;

		r.offset = ra[i].r_offset;
		r.type = (uint32_t)ELF64_R_TYPE(ra[i].r_info);
		r.addend = ra[i].r_addend;
		r.obj = oi;
		r.sec = rs->sh.sh_info;
		r.esym = k;
		if (r.type == R_X86_64_NONE)
			continue;
		if (k >= o->nsym) {
			kb_err(b, "%s: section %s+0x%llx: relocation symbol index %u out of range",
			       o->name, s->name, (unsigned long long)r.offset, k);
			continue;
		}
		w = kb_reloc_width(r.type);
		if (!w) {
			kb_err(b, "%s: section %s+0x%llx: unsupported relocation type %u against '%s'",
			       o->name, s->name, (unsigned long long)r.offset, r.type,
			       esym_name(o, k));
			continue;
		}
		if (r.offset > s->sh.sh_size || s->sh.sh_size - r.offset < w ||
		    s->sh.sh_type == SHT_NOBITS) {
			kb_err(b, "%s: section %s+0x%llx: relocation outside the section",
			       o->name, s->name, (unsigned long long)r.offset);
			continue;
		}
		r.sym = k ? reloc_symbol(b, oi, k) : abs_zero(b);
		if (r.sym == NONE) {
			kb_err(b, "%s: section %s+0x%llx: relocation against '%s' in a discarded section",
			       o->name, s->name, (unsigned long long)r.offset, esym_name(o, k));
			continue;
		}
		classify(b, s, &r);
		b->relocs = kb_xgrow(b->relocs, b->nrelocs, sizeof(*b->relocs));
		b->relocs[b->nrelocs++] = r;
	}
	s->reloc_count = (uint32_t)(b->nrelocs - s->reloc_first);
}

void kb_scan_relocs(struct kb *b)
{
	for (uint32_t oi = 0; oi < b->nobjs; oi++) {
		struct kb_obj *o = &b->objs[oi];

		for (size_t i = 1; i < o->nsec; i++) {
			struct kb_sec *rs = &o->secs[i];
			struct kb_sec *t;

			if (rs->sh.sh_type != SHT_RELA && rs->sh.sh_type != SHT_REL)
				continue;
			if (rs->sh.sh_info == 0 || rs->sh.sh_info >= o->nsec) {
				kb_err(b, "%s: section %s: bad target section", o->name, rs->name);
				continue;
			}
			t = &o->secs[rs->sh.sh_info];
			if (t->state == SEC_COMDAT_LOSER || !(t->sh.sh_flags & SHF_ALLOC) ||
			    (t->sh.sh_flags & SHF_EXCLUDE))
				continue;
			if (rs->sh.sh_type == SHT_REL || rs->sh.sh_link != o->symtab ||
			    rs->sh.sh_entsize != sizeof(Elf64_Rela) || !rs->data) {
				kb_err(b, "%s: section %s: unsupported relocation section format",
				       o->name, rs->name);
				continue;
			}
			scan_one(b, oi, rs);
		}
	}
}

/* A local symbol of a COMDAT copy the boot side may drop, referenced
 * from outside that copy: ld fails when the copy is discarded, and any
 * copy may be. Global symbols are fine: they move to the kept copy. */
static int local_of_other_copy(struct kb *b, const struct kb_reloc *r,
			       const struct kb_sym *s)
{
	const struct kb_obj *o = &b->objs[r->obj];
	const struct kb_obj *d;
	uint32_t cs;

	if (s->bind != STB_LOCAL || s->obj == NONE || s->sec >= SHN_LORESERVE ||
	    s->sec >= b->objs[s->obj].nsec)
		return 0;
	d = &b->objs[s->obj];
	cs = d->secs[s->sec].comdat;
	if (!cs || (s->obj == r->obj && o->secs[r->sec].comdat == cs))
		return 0;
	kb_err(b,
	       "%s: section %s+0x%llx: relocation against local symbol '%s' of "
	       "COMDAT group '%s' from outside the group (the copy in %s may "
	       "be "
	       "discarded)",
	       o->name, o->secs[r->sec].name, (unsigned long long)r->offset,
	       *s->name ? s->name : d->secs[s->sec].name, kb_comdat_sig(b, cs),
	       d->name);
	return 1;
}

/* Checks one kept relocation's symbol and rewrites merge-section targets. */
static void finish_one(struct kb *b, struct kb_reloc *r)
{
	struct kb_obj *o = &b->objs[r->obj];
	struct kb_sym *s = &b->syms[r->sym];
	const char *sname = o->secs[r->sec].name;

	if (s->def == DEF_NONE) {
		if (!s->strong_ref && s->global)
			return; /* weak undefined: resolves to 0 */
		kb_err(b, "%s: section %s+0x%llx: undefined symbol '%s'", o->name, sname,
		       (unsigned long long)r->offset, s->name);
		return;
	}
	if (s->def == DEF_OBJ && s->obj != NONE && s->sec < SHN_LORESERVE &&
	    b->objs[s->obj].secs[s->sec].chunk == NONE) {
		struct kb_obj *d = &b->objs[s->obj];

		kb_err(b, "%s: section %s+0x%llx: '%s' is defined in discarded section %s of %s",
		       o->name, sname, (unsigned long long)r->offset,
		       *s->name ? s->name : d->secs[s->sec].name, d->secs[s->sec].name, d->name);
		return;
	}
	if (local_of_other_copy(b, r, s))
		return;
	if (s->type == STT_SECTION && s->obj != NONE && b->objs[s->obj].secs[s->sec].pieces) {
		struct kb_sec *ms = &b->objs[s->obj].secs[s->sec];
		uint64_t t = (uint64_t)r->addend; /* section symbols are 0 */
		const struct kb_piece *p = kb_piece_at(ms, t);
		uint32_t n;

		if (p && t < (uint64_t)p->off + p->len) {
			n = kb_new_sym(b, "");
			b->syms[n].def = DEF_OBJ;
			b->syms[n].kind = LK_SYM_MERGE;
			b->syms[n].ref = p->cls;
			b->syms[n].value = p->coff + (t - p->off);
			b->syms[n].bind = STB_LOCAL;
			b->syms[n].obj = NONE;
			r->sym = n;
			r->addend = 0;
			return;
		}
		kb_err(b, "%s: section %s+0x%llx: reference past the end of merge section %s",
		       o->name, sname, (unsigned long long)r->offset, ms->name);
	}
}

void kb_finish_relocs(struct kb *b)
{
	for (size_t i = 0; i < b->nrelocs; i++) {
		struct kb_reloc *r = &b->relocs[i];

		if (b->objs[r->obj].secs[r->sec].chunk == NONE)
			continue;
		finish_one(b, r);
	}
}
