/* Internal state of the kit builder, shared by tools/kb*.c and kitbuild.c. */
#ifndef KBINT_H
#define KBINT_H

#include "kb.h"

#define NONE UINT32_MAX

enum { SEC_IGNORED = 0, SEC_INPUT, SEC_COMDAT_LOSER };
enum { DEF_NONE = 0, DEF_OBJ, DEF_COMMON, DEF_PLAN };

/* A string piece of an SHF_MERGE|SHF_STRINGS section. */
struct kb_piece {
	uint32_t off, len; /* in the section; len includes the NUL */
	uint32_t cls;      /* merge class holding it */
	uint32_t coff;     /* offset of the piece inside that class */
};

struct kb_sec {
	const char *name;
	GElf_Shdr sh;
	const void *data;
	int state;
	uint32_t input;      /* index into inputs */
	uint32_t chunk;      /* index into the kit chunk table */
	uint32_t secsym;     /* kit symbol for the section symbol */
	uint32_t reloc_first, reloc_count; /* into kb.relocs (scan order) */
	uint32_t comdat; /* 1 + index into kb.csets: member of a copy of a
			    COMDAT group the boot side chooses; 0: none */
	struct kb_piece *pieces; /* merge strings, else NULL */
	uint32_t npieces;
};

struct kb_obj {
	const char *path;
	char *name;
	int fd;
	Elf *elf;
	size_t nsec;
	struct kb_sec *secs;
	size_t symtab, nsym;
	GElf_Sym *syms;
	const char **symname;
	uint32_t *ksym; /* kit symbol of each ELF symbol, NONE if none */
};

struct kb_sym {
	const char *name;
	uint8_t bind, type, emit, kind;
	uint8_t global, weak_def, referenced, strong_ref, script_ref, gotent;
	uint8_t has_common, alt; /* alt: LK_SYM_ALT over alt_first.. */
	uint8_t vis; /* most constraining STV_* of every occurrence */
	uint32_t alt_first, alt_count;
	int def;
	uint32_t obj, sec; /* defining object/section (DEF_OBJ) */
	uint32_t input;    /* DEF_COMMON: its input */
	uint32_t ref;      /* final ref (chunk/outsec/class) */
	uint64_t value, size, common_align;
	uint32_t got;      /* GOT slot + 1, 0: none */
};

struct kb_reloc {
	uint64_t offset;
	uint32_t type;
	uint32_t sym; /* kit symbol */
	int64_t addend;
	uint32_t obj, sec; /* where it patches (for messages) */
	uint32_t esym;     /* ELF symbol index in obj (messages, merge) */
};

/* A COMDAT signature and its copies (one per object). */
struct kb_group {
	const char *sig;
	uint32_t obj;     /* object of the first copy in canonical order */
	uint32_t ncopies;
	uint32_t cset;    /* 1 + index into kb.csets, 0: none */
	uint8_t merge;    /* some copy has a merge section: kept canonical */
};

struct kb_copy {
	uint32_t group, obj, sec; /* sec: the SHT_GROUP section */
};

/* A definition of a global in an input section or absolute, in
 * canonical order (COMMON and dropped COMDAT copies excluded). */
struct kb_def {
	uint32_t sym, obj, esym;
};

/* Extra data describing an input the compiler sees. */
/* Policy `build-id`: an ELF note {namesz 4, descsz 20, NT_GNU_BUILD_ID 3,
 * "GNU", 20-byte id}, as ld --build-id=sha1 sizes it (kbserial.c). */
#define KB_BUILD_ID_SIZE 36

struct kb_inref {
	uint32_t obj, sec, sym, gap;
};

struct kb {
	unsigned errors;
	struct kb_policy pol;
	struct ls_script *script;
	struct ls_compiled comp;
	int compiled; /* comp holds a result to free */
	struct kb_obj *objs;
	uint32_t nobjs, nsynth, gap_obj, got_obj, got_input;
	uint32_t bid_input; /* policy `build-id`: the note's input, or NONE */
	const char *ksyms_map, *ksyms_obj; /* kb_options' */
	struct kb_sym *syms;
	size_t nsyms;
	uint32_t *htab;
	size_t hsize, hcount;
	struct kb_group *groups;
	size_t ngroups;
	struct kb_copy *copies;
	size_t ncopies;
	uint32_t *csets; /* groups with copies the boot side picks from */
	size_t ncsets;
	struct kb_def *defs;
	size_t ndefs;
	struct ls_input *inputs;
	struct kb_inref *inref;
	size_t ninputs;
	uint32_t abs0;      /* 1 + the absolute-zero symbol, 0: none yet */
	uint32_t *got_syms; /* kit symbols with a GOT slot, in slot order */
	size_t ngot;
	struct kb_reloc *relocs;
	size_t nrelocs;
	/* final chunk table */
	struct lk_chunk *chunks;
	uint32_t *chunk_input; /* chunk -> input */
	size_t nchunks;
	uint32_t *input_chunk; /* input -> chunk or NONE */
	/* merge */
	struct lk_merge_group *mgroups;
	size_t nmgroups;
	struct lk_merge_class *mclasses;
	size_t nmclasses;
	uint32_t *mrefs;
	size_t nmrefs;
	struct kb_buf mdata; /* class contents, appended to data later */
	struct kb_buf strtab;
	uint32_t *itab; /* strtab offsets by name hash (0: empty) */
	size_t isize, icount;
};

void kb_err(struct kb *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void kb_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint32_t kb_intern(struct kb *b, const char *s);
uint32_t kb_new_sym(struct kb *b, const char *name);
uint32_t kb_global(struct kb *b, const char *name, int create);

/* kbalt.c: order-dependent choices left to the boot side */
void kb_resolve_comdat(struct kb *b);
int kb_noncanonical_copy(const struct kb *b, uint32_t oi, uint32_t si);
void kb_add_def(struct kb *b, uint32_t sym, uint32_t oi, uint32_t esym);
void kb_sym_define(struct kb_sym *s, uint32_t obj, const GElf_Sym *es);
void kb_adopt_defs(struct kb *b);
void kb_comdat_align(struct kb *b);
void kb_finish_alts(struct kb *b);
const char *kb_comdat_sig(const struct kb *b, uint32_t comdat);

/* kbreloc.c */
/* Bytes of the field an x86-64 relocation type patches (0: unknown). */
unsigned kb_reloc_width(uint32_t type);
void kb_scan_relocs(struct kb *b);
void kb_finish_relocs(struct kb *b);
uint32_t kb_section_sym(struct kb *b, uint32_t oi, uint32_t si);
/* kbmerge.c */
/* The piece holding section offset off (the end counts as the last). */
const struct kb_piece *kb_piece_at(const struct kb_sec *s, uint64_t off);
void kb_merge_build(struct kb *b);
void kb_merge_free(struct kb *b);
/* kbnote.c: `linker lld` drops unmatched .note.gnu.property as lld does */
void kb_lld_property_notes(struct kb *b);
/* kbserial.c */
void kb_order_chunks(struct kb *b);
void kb_finish_symbols(struct kb *b);
int kb_serialize(struct kb *b, uint8_t **payload, size_t *size);
/* kbbase.c: policy random-base. */
int kb_base_insert(struct kb *b);
int kb_base_fix(uint8_t *payload, size_t len, const struct kb_policy *pol);

#endif
