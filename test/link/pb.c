/* Test-only payload builder: records tables, then packs them 8-aligned. */
#include "pb.h"

struct pb *pb_new(void)
{
	struct pb *b = calloc(1, sizeof(*b));

	b->nstr = 1; /* offset 0 is the empty name */
	b->hdr.magic = LK_PAYLOAD_MAGIC;
	b->hdr.version = LK_PAYLOAD_VERSION;
	b->hdr.max_align = 4096;
	return b;
}

lk_u32 pb_str(struct pb *b, const char *s)
{
	lk_u32 off = b->nstr;

	if (!*s)
		return 0;
	memcpy(b->str + off, s, strlen(s) + 1);
	b->nstr += strlen(s) + 1;
	return off;
}

lk_u32 pb_obj(struct pb *b, const char *name, lk_u32 pin, lk_u32 flags)
{
	struct lk_object *o = &b->obj[b->nobj];

	o->name = pb_str(b, name);
	o->pin_rank = pin;
	o->flags = flags;
	return b->nobj++;
}

lk_u32 pb_outsec(struct pb *b, const char *name, lk_u32 type, lk_u64 flags,
		 lk_u64 align)
{
	struct lk_outsec *o = &b->outsec[b->nout];

	o->name = pb_str(b, name);
	o->type = type;
	o->flags = flags;
	o->align = align;
	return b->nout++;
}

lk_u32 pb_slot(struct pb *b, lk_u32 outsec, lk_u32 flags)
{
	struct lk_slot *s = &b->slot[b->nslot];

	s->outsec = outsec;
	s->flags = flags;
	s->first_chunk = b->nchunk;
	return b->nslot++;
}

/* Chunks go into the slot made last, so slots stay contiguous. */
lk_u32 pb_chunk(struct pb *b, lk_u32 obj, const char *name, lk_u64 size,
		lk_u64 align, lk_u32 flags, const void *bytes)
{
	struct lk_chunk *c = &b->chunk[b->nchunk];

	c->object = obj;
	c->name = pb_str(b, name);
	c->slot = b->nslot - 1;
	c->flags = flags;
	c->size = size;
	c->align = align;
	if (!(flags & (LK_CHUNK_NOBITS | LK_CHUNK_GAP | LK_CHUNK_MERGE))) {
		c->data_off = b->ndata;
		if (bytes)
			memcpy(b->data + b->ndata, bytes, size);
		else
			for (lk_u64 i = 0; i < size; i++)
				b->data[b->ndata + i] = (lk_u8)(0x40 + b->nchunk);
		b->ndata += size;
	}
	b->slot[b->nslot - 1].chunk_count++;
	return b->nchunk++;
}

/* Returns the value for lk_chunk.comdat (1 + index). */
lk_u32 pb_comdat(struct pb *b, const char *signature)
{
	b->comdat[b->ncomdat].name = pb_str(b, signature);
	return ++b->ncomdat;
}

lk_u32 pb_sym(struct pb *b, const char *name, lk_u8 kind, lk_u32 ref,
	      lk_u64 value)
{
	struct lk_symbol *s = &b->sym[b->nsym];

	s->name = pb_str(b, name);
	s->kind = kind;
	s->ref = ref;
	s->value = value;
	s->bind = LK_STB_GLOBAL;
	s->emit = 1;
	return b->nsym++;
}

/* Relocations go to the chunk made last. */
void pb_reloc(struct pb *b, lk_u32 chunk, lk_u64 off, lk_u32 type, lk_u32 sym,
	      lk_i64 addend)
{
	struct lk_chunk *c = &b->chunk[chunk];
	struct pb_reloc *r = &b->rel[b->nrel];

	if (c->reloc_count == 0)
		c->reloc_first = b->nrel;
	c->reloc_count++;
	r->chunk = chunk;
	r->off = off;
	r->info = lk_reloc_info(sym, type);
	r->addend = addend;
	b->nrel++;
}

/* The relocs table's columns, the addends in their fields (in b->data)
 * where they fit, the rest in the addends table (kit_format.h). */
static lk_u32 pb_encode_relocs(struct pb *b, lk_u32 *cols,
			       struct lk_reloc_addend *wide)
{
	lk_u32 nwide = 0;

	for (lk_u32 i = 0; i < b->nrel; i++) {
		const struct pb_reloc *r = &b->rel[i];
		const struct lk_chunk *c = &b->chunk[r->chunk];
		lk_u32 type = lk_reloc_info_type(r->info);
		int w = lk_reloc_width(type);
		lk_i64 lim = w >= 1 && w < 8 ? (lk_i64)1 << (8 * w - 1) : 0;
		int fits = w == 8 || (w && r->addend >= -lim && r->addend < lim);

		cols[i] = (lk_u32)(r->off - (i == c->reloc_first ? 0 : b->rel[i - 1].off));
		if (fits && !(c->flags & (LK_CHUNK_NOBITS | LK_CHUNK_GAP | LK_CHUNK_MERGE)) &&
		    r->off + (lk_u64)w <= c->size) {
			for (int k = 0; k < w; k++)
				b->data[c->data_off + r->off + k] =
					(lk_u8)((lk_u64)r->addend >> (8 * k));
			cols[b->nrel + i] = r->info;
			continue;
		}
		cols[b->nrel + i] = r->info | LK_RELOC_WIDE;
		wide[nwide++] = (struct lk_reloc_addend){ i, 0, r->addend };
	}
	return nwide;
}

void pb_op(struct pb *b, lk_u16 code, lk_u16 flags, lk_u32 arg, lk_u64 imm)
{
	struct lk_op *o = &b->op[b->nop++];

	o->code = code;
	o->flags = flags;
	o->arg = arg;
	o->imm = imm;
}

static void pb_put(lk_u8 *out, lk_u64 *pos, struct lk_table *t,
		   const void *src, lk_u32 count, lk_u32 recsize)
{
	*pos = (*pos + 7) & ~7ull;
	t->off = (lk_u32)*pos;
	t->count = count;
	memcpy(out + *pos, src, (size_t)count * recsize);
	*pos += (lk_u64)count * recsize;
}

lk_u8 *pb_build(struct pb *b, lk_u64 *size)
{
	lk_u8 *out = calloc(1, sizeof(*b) + 64);
	lk_u64 pos = sizeof(b->hdr);
	struct lk_payload_header *h = &b->hdr;

	pb_put(out, &pos, &h->objects, b->obj, b->nobj, sizeof(b->obj[0]));
	pb_put(out, &pos, &h->chunks, b->chunk, b->nchunk, sizeof(b->chunk[0]));
	pb_put(out, &pos, &h->slots, b->slot, b->nslot, sizeof(b->slot[0]));
	pb_put(out, &pos, &h->outsecs, b->outsec, b->nout, sizeof(b->outsec[0]));
	pb_put(out, &pos, &h->phdrs, b->phdr, b->nphdr, sizeof(b->phdr[0]));
	pb_put(out, &pos, &h->symbols, b->sym, b->nsym, sizeof(b->sym[0]));
	lk_u32 cols[2 * PB_MAX];
	struct lk_reloc_addend wide[PB_MAX];
	lk_u32 nwide = pb_encode_relocs(b, cols, wide);

	pb_put(out, &pos, &h->relocs, cols, b->nrel, 8);
	pb_put(out, &pos, &h->addends, wide, nwide, sizeof(wide[0]));
	pb_put(out, &pos, &h->plan, b->op, b->nop, sizeof(b->op[0]));
	pb_put(out, &pos, &h->mgroups, b->mg, b->nmg, sizeof(b->mg[0]));
	pb_put(out, &pos, &h->mclasses, b->mc, b->nmc, sizeof(b->mc[0]));
	pb_put(out, &pos, &h->mrefs, b->mref, b->nmref, 4);
	pb_put(out, &pos, &h->comdats, b->comdat, b->ncomdat,
	       sizeof(b->comdat[0]));
	pb_put(out, &pos, &h->strtab, b->str, b->nstr, 1);
	pb_put(out, &pos, &h->data, b->data, b->ndata, 1);
	memcpy(out, h, sizeof(*h));
	*size = pos;
	return out;
}

struct lk_host th;
char tlog[64][512];
int tlog_n, tlog_total;

static void *t_alloc(void *ctx, lk_size n)
{
	(void)ctx;
	return calloc(1, n);
}

int unwiped_frees;

/* The core must wipe everything before it frees it. */
static void t_free(void *ctx, void *p, lk_size n)
{
	const lk_u8 *b = p;

	(void)ctx;
	for (lk_size i = 0; i < n; i++)
		if (b[i]) {
			unwiped_frees++;
			break;
		}
	free(p);
}

static void t_log(void *ctx, int level, const char *line)
{
	(void)ctx;
	if (getenv("LINK_TEST_VERBOSE"))
		fprintf(stderr, "[%d] %s\n", level, line);
	if (level > th.log_level)
		return;
	if (tlog_n < 64)
		snprintf(tlog[tlog_n++], sizeof(tlog[0]), "%s", line);
	tlog_total++;
}

void tlog_reset(void)
{
	tlog_n = tlog_total = 0;
	th.alloc = t_alloc;
	th.free = t_free;
	th.log = t_log;
	th.log_level = LK_LOG_ERROR;
}

int tlog_has(const char *needle)
{
	for (int i = 0; i < tlog_n; i++)
		if (strstr(tlog[i], needle))
			return 1;
	return 0;
}
