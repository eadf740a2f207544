/* `linkkit create`, `info` and `verify`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb.h"
#include "lkcli.h"
#include "../linkkit/proto/proto.h"

#define PREFLIGHT_SEEDS 4

static int preflight(const uint8_t *kit, size_t n, const char *out)
{
	uint8_t *payload;
	size_t psize;
	struct lk_kit k;
	int rc = 0;

	if (lkc_unpack(out, kit, n, &payload, &psize, &k))
		return -1;
	for (uint32_t seed = 1; seed <= PREFLIGHT_SEEDS && !rc; seed++)
		rc = lkc_trial_link(out, payload, psize, seed);
	free(payload);
	if (rc)
		fprintf(stderr, "linkkit: %s: the new kit does not link; not written\n", out);
	return rc;
}

/* --openbsd: the record of what the kit is made from (LK_KIT_F_PROV).
 * An archive of bare files names no kernel: no record, one warning. */
static int create_prov(const struct kb_options *o, const char *obsd, const char *tardir,
		       uint8_t **prov, size_t *plen)
{
	if (tardir && !*kb_tarball_kernel()) {
		fprintf(stderr, "linkkit: warning: %s: no kernel directory in the archive: "
				"the kit does not record what it is made from\n", obsd);
		return 0;
	}
	return lkc_prov_build(o, tardir ? tardir : obsd, tardir ? kb_tarball_kernel() : NULL,
			      prov, plen);
}

int lkc_create(int argc, char **argv)
{
	struct kb_options o = { 0 };
	const char *out = NULL, *key = NULL, *obsd = NULL, *lnx = NULL;
	char *tardir = NULL;
	uint8_t *payload = NULL, *kit = NULL, *prov = NULL;
	size_t psize, ksize, plen = 0;
	int rc = 1;

	o.objs = kb_xcalloc((size_t)argc, sizeof(*o.objs));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if ((!strcmp(a, "-o") || !strcmp(a, "-T") || !strcmp(a, "-P") ||
		     !strcmp(a, "--sign") || !strcmp(a, "--openbsd") || !strcmp(a, "--linux")) &&
		    i + 1 >= argc) {
			fprintf(stderr, "linkkit: create: %s needs an argument\n", a);
			goto out;
		}
		if (!strcmp(a, "-o"))
			out = argv[++i];
		else if (!strcmp(a, "-T"))
			o.script_path = argv[++i];
		else if (!strcmp(a, "-P"))
			o.policy_path = argv[++i];
		else if (!strcmp(a, "--sign"))
			key = argv[++i];
		else if (!strcmp(a, "--openbsd"))
			obsd = argv[++i];
		else if (!strcmp(a, "--linux"))
			lnx = argv[++i]; /* kblinux.c */
		else if (a[0] == '-') {
			fprintf(stderr, "linkkit: create: unknown option %s\n", a);
			goto out;
		} else
			o.objs[o.nobjs++] = a;
	}
	if (lnx && out && !obsd && !o.script_path && !o.nobjs) {
		free(o.objs);
		o.objs = NULL;
		if (kb_linux_inputs(lnx, &o))
			goto out;
	} else if (obsd && out && !o.script_path && !o.nobjs && !lnx) {
		free(o.objs);
		o.objs = NULL;
		if (!o.policy_path)
			o.policy_text = kb_obsd_default_policy();
		if (kb_is_tarball(obsd) && kb_tarball_extract(obsd, &tardir))
			goto out;
		if (kb_obsd_inputs(tardir ? tardir : obsd, &o))
			goto out;
	} else if (!out || !o.script_path || !o.policy_path || !o.nobjs || obsd || lnx) {
		fprintf(stderr, "linkkit: create: needs -o OUT, -T SCRIPT, -P POLICY and objects,\n"
				"  or -o OUT --openbsd DIR|KERNEL.TGZ[:NAME] [-P POLICY],\n"
				"  or -o OUT --linux BUILD_DIR [-P POLICY]\n");
		goto out;
	}
	if (kb_build_payload(&o, &payload, &psize))
		goto out;
	if (obsd && create_prov(&o, obsd, tardir, &prov, &plen))
		goto out;
	if (kb_wrap_kit(payload, psize, prov, plen, &kit, &ksize)) {
		fprintf(stderr, "linkkit: %s: compression failed\n", out);
		goto out;
	}
	if ((key && lkc_sign(key, &kit, &ksize)) || preflight(kit, ksize, out) ||
	    lkc_write_file(out, kit, ksize))
		goto out;
	rc = 0;
out:
	if (obsd)
		kb_obsd_free(&o);
	else if (lnx)
		kb_linux_free(&o);
	else
		free(o.objs);
	kb_tarball_cleanup(tardir);
	free(payload);
	free(prov);
	free(kit);
	return rc;
}

/* Loads a kit file, checks it and inflates the payload. */
static int load(const char *path, uint8_t **payload, size_t *psize, struct lk_kit *k,
		size_t *ksize, uint8_t **kit)
{
	int rc;

	if (lkc_read_file(path, kit, ksize))
		return -1;
	rc = lkc_unpack(path, *kit, *ksize, payload, psize, k);
	if (rc) {
		free(*kit);
		*kit = NULL;
	}
	return rc;
}

#define TAB(p, h, f) ((const void *)((p) + (h)->f.off))

static double log2_fact(uint64_t n)
{
	return lgamma((double)n + 1) / log(2);
}

/* log2 of the number of distinct layouts: object (or chunk) orders times
 * the gap choices. */
static void entropy(const uint8_t *p, double *order, double *gaps)
{
	const struct lk_payload_header *h = (const void *)p;
	const struct lk_object *obj = TAB(p, h, objects);
	const struct lk_chunk *ch = TAB(p, h, chunks);
	const struct lk_slot *sl = TAB(p, h, slots);
	uint8_t *owns = calloc(h->objects.count + 1, 1);
	uint64_t m = 0;

	*order = *gaps = 0;
	for (uint32_t i = 0; i < h->slots.count; i++)
		if (sl[i].flags & LK_SLOT_SHUFFLE)
			*order += log2_fact(sl[i].chunk_count);
	for (uint32_t i = 0; i < h->chunks.count; i++) {
		if (ch[i].flags & LK_CHUNK_GAP) {
			*gaps += log2((double)((ch[i].size + ch[i].align - 1) / ch[i].align));
			continue;
		}
		if (!(sl[ch[i].slot].flags & (LK_SLOT_SHUFFLE | LK_SLOT_CANONICAL)))
			owns[ch[i].object] = 1;
	}
	for (uint32_t i = 0; i < h->objects.count; i++)
		if (owns[i] && !obj[i].pin_rank && !(obj[i].flags & LK_OBJ_GAP))
			m++;
	*order += log2_fact(m);
	free(owns);
}

/* Policy random-base: log2 of the base positions (printed with them), or
 * -1 when the plan moves no base. */
static double base_bits(const uint8_t *p, const struct lk_payload_header *h)
{
	const struct lk_op *op = TAB(p, h, plan);

	for (uint32_t i = 0; i < h->plan.count; i++)
		if (op[i].code == LK_E_SHIFT) {
			printf("random base: %u positions, 0x%llx apart\n", op[i].arg + 1,
			       (unsigned long long)op[i].imm);
			return log2((double)op[i].arg + 1);
		}
	return -1;
}

static const char *proto_name(uint32_t p)
{
	return lk_proto_name(p);
}

static void print_info(const char *path, const uint8_t *p, size_t psize,
		       const struct lk_kit *k, size_t ksize)
{
	const struct lk_payload_header *h = (const void *)p;
	const struct lk_object *obj = TAB(p, h, objects);
	const struct lk_chunk *ch = TAB(p, h, chunks);
	uint64_t prog = 0, nobits = 0;
	uint32_t pinned = 0, synth = 0;
	double order, gaps, base;

	for (uint32_t i = 0; i < h->objects.count; i++) {
		pinned += obj[i].pin_rank != 0;
		synth += (obj[i].flags & LK_OBJ_SYNTHETIC) != 0;
	}
	for (uint32_t i = 0; i < h->chunks.count; i++)
		if (!(ch[i].flags & LK_CHUNK_GAP))
			*((ch[i].flags & LK_CHUNK_NOBITS) ? &nobits : &prog) += ch[i].size;
	entropy(p, &order, &gaps);
	printf("kit: %s\n", path);
	printf("format: version %u, flags 0x%x%s\n", LK_KIT_VERSION, k->flags,
	       (k->flags & LK_KIT_F_SIGNED) ? " (signed)" : "");
	printf("size: %zu bytes (payload %zu bytes inflated, %.1f%%)\n", ksize, psize,
	       psize ? 100.0 * (double)ksize / (double)psize : 0.0);
	printf("hash: %s\n", (k->flags & LK_KIT_F_BLAKE3) ? "BLAKE3" : "SHA-256");
	printf("protocol: %s\n", proto_name(h->protocol));
	lkc_prov_info(path, k);
	printf("objects: %u (%u pinned, %u synthetic)\n", h->objects.count, pinned, synth);
	printf("chunks: %u (%llu bytes of contents, %llu bytes zero-filled)\n", h->chunks.count,
	       (unsigned long long)prog, (unsigned long long)nobits);
	printf("slots: %u, output sections: %u, program headers: %u, plan ops: %u\n",
	       h->slots.count, h->outsecs.count, h->phdrs.count, h->plan.count);
	printf("symbols: %u, relocations: %u\n", h->symbols.count, h->relocs.count);
	if ((h->flags & LK_PAYLOAD_F_LINUX_KALLSYMS) && h->ksyms.count >= 8 &&
	    (uint64_t)h->ksyms.off + h->ksyms.count <= psize) {
		uint32_t n;

		memcpy(&n, p + h->ksyms.off + 4, 4);
		printf("kallsyms: %u symbols rewritten at each link (table %u bytes)\n", n,
		       h->ksyms.count);
	}
	if (h->flags & LK_PAYLOAD_F_LINUX_SORT)
		printf("sorted at each link: ORC, __ex_table\n");
	printf("merge: %u groups, %u strings\n", h->mgroups.count, h->mclasses.count);
	base = base_bits(p, h);
	if (base >= 0)
		printf("entropy: %.1f bits (order %.1f, gaps %.1f, base %.1f)\n",
		       order + gaps + base, order, gaps, base);
	else
		printf("entropy: %.1f bits (order %.1f, gaps %.1f)\n", order + gaps, order, gaps);
}

int lkc_info(int argc, char **argv)
{
	uint8_t *p, *kit;
	size_t psize, ksize;
	struct lk_kit k;
	struct lk_link *L;

	if (argc != 2) {
		fprintf(stderr, "linkkit: info: usage: linkkit info KIT\n");
		return 1;
	}
	if (load(argv[1], &p, &psize, &k, &ksize, &kit))
		return 1;
	/* Validate every table before reading them. */
	if (lk_link_open(&lkc_host, p, psize, argv[1], &L)) {
		free(p);
		free(kit);
		return 1;
	}
	lk_link_close(L);
	print_info(argv[1], p, psize, &k, ksize); /* k points into kit */
	free(p);
	free(kit);
	return 0;
}

/* A segment index that lies still boots, slower (a stage with several
 * processors inflates the stream twice): refused here, so it is fixed. */
static int check_segments(const char *path, const struct lk_kit *k, const uint8_t *payload,
			  size_t psize)
{
	uint8_t *scratch;
	int rc;

	if (k->nseg < 2)
		return 0;
	scratch = kb_xcalloc(psize ? psize : 1, 1);
	rc = lk_kit_check_segments(&lkc_host, k, path, payload, scratch);
	free(scratch);
	return rc;
}

int lkc_verify(int argc, char **argv)
{
	const char *pub = NULL, *path, *against = NULL;
	uint8_t *p = NULL, *kit;
	size_t psize, ksize;
	struct lk_kit k;
	int rc;

	/* --against DIR, before or after KIT: the rest parses as before. */
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--against")) {
			against = argv[i + 1];
			memmove(argv + i, argv + i + 2, (size_t)(argc - i - 2) * sizeof(*argv));
			argc -= 2;
			break;
		}
	if (argc == 4 && !strcmp(argv[1], "-p"))
		pub = argv[2];
	/* A detached signature of any file (the fallback): lksign.c. */
	if (argc == 6 && !strcmp(argv[1], "-p") && !strcmp(argv[3], "-x") && !against)
		return lkc_verify_detached(argv[2], argv[4], argv[5]);
	if (argc != 2 && !pub) {
		fprintf(stderr, "linkkit: verify: usage: linkkit verify [-p PUBKEY] [--against DIR] KIT\n"
				"       linkkit verify -p KEY.pub -x FILE.sig FILE\n");
		return 1;
	}
	path = argv[argc - 1];
	if (lkc_read_file(path, &kit, &ksize))
		return 1;
	rc = lkc_unpack(path, kit, ksize, &p, &psize, &k);
	if (!rc && pub)
		rc = lkc_check_sig(pub, path, kit, ksize, &k);
	if (!rc)
		rc = check_segments(path, &k, p, psize);
	if (!rc && against)
		rc = lkc_prov_against(path, &k, against);
	free(kit);
	if (rc) {
		free(p);
		return 1;
	}
	rc = lkc_trial_link(path, p, psize, 1);
	free(p);
	if (rc)
		return 1;
	printf("%s: ok%s\n", path, pub ? " (signature verified)" : "");
	return 0;
}
