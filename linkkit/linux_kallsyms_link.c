/*
 * The kallsyms tables of a `create --linux` kit, rewritten after every
 * link (LK_PAYLOAD_F_LINUX_KALLSYMS; the ksyms table is described in
 * kit_format.h, the blob in linux_kallsyms.h). The host did the name
 * compression; here each listed symbol gets its final value and
 * lk_ksym_emit_section sorts them and fills the kallsyms object's .rodata,
 * which the host sized for exactly these tables.
 *
 * Boot memory: 8 bytes per symbol for the addresses and
 * lk_ksym_work_size() for the sort, both wiped and freed before return
 * (they are the layout).
 */
#include "link_internal.h"

#define LK_ERR_KSYM(L, ...) lk_log((L)->h, LK_LOG_ERROR, __VA_ARGS__)

static lk_u32 lk_ksym_rd32(const lk_u8 *p)
{
	return (lk_u32)p[0] | (lk_u32)p[1] << 8 | (lk_u32)p[2] << 16 |
	       (lk_u32)p[3] << 24;
}

static int lk_ksym_bad(struct lk_link *L, const char *why)
{
	LK_ERR_KSYM(L, "%s: ksyms table: %s", L->name, why);
	return 0;
}

/* The chunk the tables fill: a live-able PROGBITS input of that size. */
static int lk_ksym_chunk_ok(struct lk_link *L, lk_u64 need)
{
	const struct lk_chunk *c;

	if (L->kchunk >= L->nchunk)
		return lk_ksym_bad(L, "chunk index out of range");
	c = &L->chunk[L->kchunk];
	if (c->flags & (LK_CHUNK_NOBITS | LK_CHUNK_GAP | LK_CHUNK_MERGE))
		return lk_ksym_bad(L, "the kallsyms chunk is not plain PROGBITS");
	if (c->size != need) {
		LK_ERR_KSYM(L, "%s: ksyms table: %s(%s) is 0x%llx bytes, the "
			       "tables need 0x%llx",
			    L->name, lk_chunk_obj_name(L, L->kchunk),
			    lk_str(L, c->name), (unsigned long long)c->size,
			    (unsigned long long)need);
		return 0;
	}
	return 1;
}

int lk_linux_kallsyms_open(struct lk_link *L)
{
	int on = (L->hdr->flags & LK_PAYLOAD_F_LINUX_KALLSYMS) != 0;
	struct lk_ksym_layout lay;
	const lk_u8 *ref;
	const char *why;
	lk_u64 n;

	if (!on || L->nksyms == 0)
		return on == (L->nksyms != 0) ||
		       lk_ksym_bad(L, "flag and table disagree");
	if (L->nksyms < 8)
		return lk_ksym_bad(L, "shorter than its header");
	L->kchunk = lk_ksym_rd32(L->ksyms);
	n = lk_ksym_rd32(L->ksyms + 4);
	if (n > (L->nksyms - 8) / 4)
		return lk_ksym_bad(L, "symbol count past the table's end");
	ref = L->ksyms + 8;
	why = lk_ksym_open(&L->kblob, ref + 4 * n, L->nksyms - 8 - 4 * n);
	if (why)
		return lk_ksym_bad(L, why);
	if (L->kblob.n != n)
		return lk_ksym_bad(L, "symbol count differs from the blob's");
	for (lk_u64 i = 0; i < n; i++)
		if (lk_ksym_rd32(ref + 4 * i) >= L->nsym)
			return lk_ksym_bad(L, "symbol index out of range");
	lk_ksym_layout(&L->kblob, &lay);
	if (!lk_ksym_chunk_ok(L, lay.size))
		return 0;
	L->kref = ref; /* only now may lk_linux_sym_name read the blob */
	return 1;
}

lk_u32 lk_linux_ksym_ref(const struct lk_link *L, lk_u32 i)
{
	return lk_ksym_rd32(L->kref + 4 * (lk_size)i);
}

const char *lk_linux_sym_name(const struct lk_link *L, lk_u32 s, char *out)
{
	struct lk_ksym_names it;
	lk_u32 i, at = LK_KSYM_NONE;

	if (!L->kref)
		return LK_NULL;
	for (i = 0; i < L->kblob.n && at == LK_KSYM_NONE; i++)
		if (lk_linux_ksym_ref(L, i) == s)
			at = i;
	if (at == LK_KSYM_NONE)
		return LK_NULL;
	lk_ksym_names_begin(&it, &L->kblob);
	for (i = 0; i <= at; i++)
		if (!lk_ksym_names_next(&it, out))
			return LK_NULL;
	return out;
}

/* addr[i]: blob symbol i's final value; 0 and *bad set if it has none. */
static int lk_ksym_values(const struct lk_link *L, lk_u64 *addr, lk_u32 *bad)
{
	for (lk_u32 i = 0; i < L->kblob.n; i++) {
		lk_u32 s = lk_linux_ksym_ref(L, i);

		if (!L->sym_known[s]) {
			*bad = s;
			return 0;
		}
		addr[i] = L->sym_val[s];
	}
	return 1;
}

static lk_u8 *lk_ksym_dest(const struct lk_link *L, lk_u8 *img, lk_u64 size)
{
	lk_u64 lma, span = L->load_hi - L->load_lo;

	if (L->chunk_dead[L->kchunk] || !L->slot_done[L->chunk[L->kchunk].slot])
		return LK_NULL;
	lma = lk_chunk_lma(L, L->kchunk);
	if (lma < L->load_lo || size > span || lma - L->load_lo > span - size)
		return LK_NULL;
	return img + (lma - L->load_lo);
}

/* Frees in reverse order of allocation (the BIOS stage's heap), wiped:
 * they held this layout's addresses and order. */
static void lk_ksym_free(const struct lk_host *h, lk_u64 *addr, void *work,
			 lk_u64 n, lk_u64 wlen)
{
	if (work) {
		lk_wipe(work, (lk_size)wlen);
		h->free(h->ctx, work, (lk_size)wlen);
	}
	if (addr) {
		lk_wipe(addr, (lk_size)(8 * n));
		h->free(h->ctx, addr, (lk_size)(8 * n));
	}
}

void lk_linux_kallsyms_run(const struct lk_link *L, lk_u8 *img,
			   struct lk_kallsyms_result *res)
{
	const struct lk_host *h = L->h;
	lk_u64 n = L->kblob.n, wlen = lk_ksym_work_size(&L->kblob);
	lk_u64 size = L->chunk[L->kchunk].size;
	lk_u8 *dst = lk_ksym_dest(L, img, size);
	lk_u64 *addr;
	void *work;
	lk_u32 bad = LK_KSYM_NONE;

	lk_memset(res, 0, sizeof(*res));
	res->sym = LK_KSYM_NONE;
	if (!dst) {
		res->rc = LK_ERR_LINK;
		res->why = LK_NULL; /* lk_linux_kallsyms_say: not in the image */
		return;
	}
	addr = h->alloc(h->ctx, (lk_size)(8 * n));
	work = addr ? h->alloc(h->ctx, (lk_size)wlen) : LK_NULL;
	if (!work) {
		lk_ksym_free(h, addr, work, n, wlen);
		res->rc = LK_ERR_NOMEM;
		res->bytes = 8 * n + wlen;
		return;
	}
	if (!lk_ksym_values(L, addr, &res->sym))
		res->why = "a listed symbol is undefined in this link";
	else
		res->why = lk_ksym_emit_section(&L->kblob, addr, n, dst, size,
						work, wlen, &bad);
	if (bad != LK_KSYM_NONE && bad < n)
		res->sym = lk_linux_ksym_ref(L, bad);
	lk_ksym_free(h, addr, work, n, wlen);
	res->rc = res->why ? LK_ERR_LINK : LK_OK;
}

int lk_linux_kallsyms_say(const struct lk_link *L,
			  const struct lk_kallsyms_result *res)
{
	char label[LK_SYM_LABEL];

	if (res->rc == LK_ERR_NOMEM)
		LK_ERR_KSYM(L, "%s: kallsyms: out of memory (%llu bytes)",
			    L->name, (unsigned long long)res->bytes);
	else if (res->rc && !res->why)
		LK_ERR_KSYM(L, "%s: kallsyms: %s(.rodata) is not in the loaded image",
			    L->name, lk_chunk_obj_name(L, L->kchunk));
	else if (res->rc && res->sym != LK_KSYM_NONE)
		LK_ERR_KSYM(L, "%s: kallsyms: %s (symbol %s)", L->name, res->why,
			    lk_sym_label(L, res->sym, label));
	else if (res->rc)
		LK_ERR_KSYM(L, "%s: kallsyms: %s", L->name, res->why);
	return res->rc;
}

int lk_linux_kallsyms(const struct lk_link *L, lk_u8 *img)
{
	struct lk_kallsyms_result res;

	lk_linux_kallsyms_run(L, img, &res);
	return lk_linux_kallsyms_say(L, &res);
}
