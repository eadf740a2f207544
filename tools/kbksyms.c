/*
 * `create --linux`: the ksyms table (kit_format.h, LK_PAYLOAD_F_LINUX_KALLSYMS)
 * that lets every link rewrite kallsyms. The symbols kallsyms lists come
 * from the build's System.map (which link-vmlinux.sh checked equal to
 * the list its last kallsyms pass used); each is matched to the kit
 * symbol with its name and, in a canonical-order link of the payload
 * (the build's own order, so the build's addresses), its value. Names
 * alone would not do: thousands of static symbols share a name. Then the
 * kallsyms object's .rodata is zeroed in the payload (every link
 * rewrites it) and the table appended. Hosted C.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linkkit/linkkit.h"
#include "../linkkit/linux_kallsyms.h"
#include "kbint.h"
#include "kbkallsyms.h"

/* Emitted kit symbols with a value, by name, for the matching. */
struct ks_index {
	uint32_t *head, *next; /* hash chains over symbol indices */
	uint8_t *used;
	size_t mask;
	const struct lk_symbol *sym;
	const char *str;
	uint32_t nsym, nstr;
};

static size_t ks_hash(const char *s)
{
	size_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

static const char *ks_name(const struct ks_index *x, uint32_t s)
{
	uint32_t off = x->sym[s].name;

	return off < x->nstr ? x->str + off : "";
}

static void ks_index_build(struct ks_index *x, const struct lk_link *L)
{
	x->mask = 1;
	while (x->mask < 2 * (size_t)x->nsym)
		x->mask <<= 1;
	x->mask--;
	x->head = kb_xcalloc(x->mask + 1, sizeof(*x->head));
	x->next = kb_xcalloc(x->nsym, sizeof(*x->next));
	x->used = kb_xcalloc(x->nsym, 1);
	/* Chains in reverse so that a walk meets symbols in kit order. */
	for (uint32_t s = x->nsym; s-- > 0;) {
		lk_u64 v;
		size_t h;

		if (!x->sym[s].emit || !x->sym[s].name || !lk_link_sym_value(L, s, &v))
			continue;
		h = ks_hash(ks_name(x, s)) & x->mask;
		x->next[s] = x->head[h];
		x->head[h] = s + 1;
	}
}

/* The first unused kit symbol named `name` whose value is `addr`. */
static uint32_t ks_match(struct ks_index *x, const struct lk_link *L, const char *name,
			 uint64_t addr)
{
	for (uint32_t e = x->head[ks_hash(name) & x->mask]; e; e = x->next[e - 1]) {
		uint32_t s = e - 1;
		lk_u64 v;

		if (!x->used[s] && lk_link_sym_value(L, s, &v) && v == addr &&
		    !strcmp(ks_name(x, s), name)) {
			x->used[s] = 1;
			return s;
		}
	}
	return UINT32_MAX;
}

static int ks_cmp_line(const void *a, const void *b, void *ctx)
{
	const struct kb_ksym *s = ctx;
	uint32_t la = s[*(const uint32_t *)a].line, lb = s[*(const uint32_t *)b].line;

	return la < lb ? -1 : la > lb;
}

/* refs[i]: the kit symbol of blob symbol i, matched in map order. */
static int ks_refs(const struct kb_ksyms *k, struct ks_index *x, const struct lk_link *L,
		   const char *map_path, uint32_t *refs)
{
	uint32_t *by_line = kb_xcalloc(k->n ? k->n : 1, sizeof(*by_line));
	int rc = 0;

	for (uint32_t i = 0; i < k->n; i++)
		by_line[i] = i;
	qsort_r(by_line, k->n, sizeof(*by_line), ks_cmp_line, k->syms);
	for (uint32_t j = 0; j < k->n && !rc; j++) {
		const struct kb_ksym *s = &k->syms[by_line[j]];

		refs[by_line[j]] = ks_match(x, L, s->name, s->addr);
		if (refs[by_line[j]] == UINT32_MAX) {
			fprintf(stderr, "linkkit: %s:%u: %s at 0x%llx: no symbol of the "
					"objects' link has that name and address (System.map "
					"not from this build?)\n",
				map_path, s->line + 1, s->name, (unsigned long long)s->addr);
			rc = -1;
		}
	}
	free(by_line);
	return rc;
}

/* The chunk of the kallsyms object's .rodata, or UINT32_MAX. */
static uint32_t ks_chunk(const uint8_t *pl, const struct lk_payload_header *h,
			 const char *obj)
{
	const struct lk_chunk *c = (const void *)(pl + h->chunks.off);
	const struct lk_object *o = (const void *)(pl + h->objects.off);
	const char *str = (const char *)pl + h->strtab.off;

	for (uint32_t i = 0; i < h->chunks.count; i++)
		if (c[i].object < h->objects.count && !strcmp(str + c[i].name, ".rodata") &&
		    !strcmp(str + o[c[i].object].name, obj))
			return i;
	return UINT32_MAX;
}

static int ks_place(struct kb_buf *buf, struct lk_payload_header *h, const struct kb_ksyms *k,
		    const uint32_t *refs, const char *obj)
{
	uint32_t chunk = ks_chunk(buf->p, h, obj), n = k->n;
	struct lk_ksym_blob b;
	struct lk_ksym_layout lay;
	struct lk_chunk *c;

	if (chunk == UINT32_MAX) {
		fprintf(stderr, "linkkit: %s: no .rodata (not a kallsyms object?)\n", obj);
		return -1;
	}
	if (lk_ksym_open(&b, k->blob, k->blob_len))
		return -1;
	lk_ksym_layout(&b, &lay);
	c = (struct lk_chunk *)(buf->p + h->chunks.off) + chunk;
	if (c->size != lay.size || (c->flags & LK_CHUNK_NOBITS)) {
		fprintf(stderr, "linkkit: %s(.rodata): 0x%llx bytes, but kallsyms' tables for "
				"System.map need 0x%llx\n",
			obj, (unsigned long long)c->size, (unsigned long long)lay.size);
		return -1;
	}
	/* Every link writes it: zeros compress to nothing. */
	memset(buf->p + h->data.off + c->data_off, 0, c->size);
	h->ksyms.off = (uint32_t)kb_buf_align(buf, 8);
	kb_buf_add(buf, &chunk, 4);
	kb_buf_add(buf, &n, 4);
	kb_buf_add(buf, refs, 4 * (size_t)n);
	kb_buf_add(buf, k->blob, k->blob_len);
	h->ksyms.count = (uint32_t)(buf->len - h->ksyms.off);
	h->flags |= LK_PAYLOAD_F_LINUX_KALLSYMS;
	memcpy(buf->p, h, sizeof(*h));
	return 0;
}

/*
 * A listed symbol's name is in the blob already (token-compressed, as
 * kallsyms_names holds it): strtab need not hold it too. Linux defconfig:
 * 2.4 MB less payload, 0.7 MB less kit. The boot side reads such a name
 * from the blob where a message or `linkkit link`'s .symtab wants it
 * (lk_sym_label, link_elf.c). Names the boot side looks up stay.
 */
static const char *const ks_looked_up[] = { "main_extable_sort_needed" };

static int ks_looked_up_name(const char *name)
{
	for (size_t i = 0; i < sizeof(ks_looked_up) / sizeof(ks_looked_up[0]); i++)
		if (!strcmp(name, ks_looked_up[i]))
			return 1;
	return 0;
}

static void ks_unname(struct kb_buf *buf, const struct lk_payload_header *h,
		      const uint32_t *refs, uint32_t n)
{
	struct lk_symbol *y = (struct lk_symbol *)(buf->p + h->symbols.off);
	const char *str = (const char *)buf->p + h->strtab.off;

	for (uint32_t i = 0; i < n; i++)
		if (!ks_looked_up_name(str + y[refs[i]].name))
			y[refs[i]].name = 0;
}

int kb_ksyms_attach(struct kb_buf *buf, struct lk_payload_header *h, const char *map_path,
		    const char *obj)
{
	struct kb_ksyms k;
	struct ks_index x = { 0 };
	struct lk_link *L = NULL;
	uint32_t *refs = NULL;
	size_t len;
	char *map = (char *)kb_slurp(map_path, &len, (size_t)1 << 30);
	int rc = -1;

	memset(&k, 0, sizeof(k));
	if (!map) {
		fprintf(stderr, "linkkit: %s: cannot read (kallsyms needs the build's "
				"System.map)\n", map_path);
		return -1;
	}
	if (kb_ksyms_prep(map, len, &k)) {
		fprintf(stderr, "linkkit: %s: %s\n", map_path, k.err);
		goto out;
	}
	memcpy(buf->p, h, sizeof(*h));
	if (kb_canonical_link(buf->p, buf->len, &L))
		goto out;
	x.sym = (const void *)(buf->p + h->symbols.off);
	x.nsym = h->symbols.count;
	x.str = (const char *)buf->p + h->strtab.off;
	x.nstr = h->strtab.count;
	ks_index_build(&x, L);
	refs = kb_xcalloc(k.n ? k.n : 1, sizeof(*refs));
	if (ks_refs(&k, &x, L, map_path, refs))
		goto out;
	lk_link_close(L);
	L = NULL;
	rc = ks_place(buf, h, &k, refs, obj);
	if (!rc) {
		ks_unname(buf, h, refs, k.n);
		rc = kb_strtab_compact(buf, h);
	}
out:
	if (L)
		lk_link_close(L);
	free(x.head);
	free(x.next);
	free(x.used);
	free(refs);
	kb_ksyms_free(&k);
	free(map);
	return rc;
}
