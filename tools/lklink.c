/*
 * `linkkit link`: links a kit on the host into an ELF64 executable, the
 * prelinked fallback kernel the boot stages load by p_paddr.
 *
 * File layout: [Ehdr][Phdrs] pad [image of load_lo..load_hi] [Shdrs +
 * .symtab + .strtab + .shstrtab as lk_link_elf_emit lays them out].
 * When the script loads the headers (FILEHDR/PHDRS), the core wrote them
 * at the start of the image, which then sits at file offset 0.
 */
#include <elf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb.h"
#include "lkcli.h"

#define PAGE 4096u
#define MAX_PHDRS 64

struct link_opts {
	const char *out, *kit, *map;
	uint8_t seed[64];
	size_t seedlen;
	int have_seed, random, print_layout;
	unsigned write_parts; /* 0: lk_link_write; else the split write */
};

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Hex digits to bytes; an odd count gets a leading zero nibble. */
static int parse_seed(const char *s, struct link_opts *o)
{
	size_t n = strlen(s), odd = n & 1;

	if (!strncmp(s, "0x", 2)) {
		s += 2;
		n -= 2;
		odd = n & 1;
	}
	if (n == 0 || (n + odd) / 2 > sizeof(o->seed))
		return -1;
	memset(o->seed, 0, sizeof(o->seed));
	for (size_t i = 0; i < n; i++) {
		int v = hexval((unsigned char)s[i]);
		size_t nib = i + odd;

		if (v < 0)
			return -1;
		o->seed[nib / 2] |= (uint8_t)(v << ((nib & 1) ? 0 : 4));
	}
	o->seedlen = (n + odd) / 2;
	return 0;
}

static int parse_opts(int argc, char **argv, struct link_opts *o)
{
	memset(o, 0, sizeof(*o));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int needs = !strcmp(a, "-o") || !strcmp(a, "--seed") || !strcmp(a, "--map") ||
			    !strcmp(a, "--write-parts");

		if (needs && i + 1 >= argc) {
			fprintf(stderr, "linkkit: link: %s needs an argument\n", a);
			return -1;
		}
		if (!strcmp(a, "-o"))
			o->out = argv[++i];
		else if (!strcmp(a, "--map"))
			o->map = argv[++i];
		else if (!strcmp(a, "--seed")) {
			if (parse_seed(argv[++i], o)) {
				fprintf(stderr, "linkkit: link: bad seed '%s' (hex, up to 128 digits)\n",
					argv[i]);
				return -1;
			}
			o->have_seed = 1;
		} else if (!strcmp(a, "--write-parts")) {
			char *end;
			unsigned long n = strtoul(argv[++i], &end, 10);

			if (*end || n < 1 || n > LK_WRITE_MAX_PARTS) {
				fprintf(stderr, "linkkit: link: --write-parts wants 1..%u, not '%s'\n",
					LK_WRITE_MAX_PARTS, argv[i]);
				return -1;
			}
			o->write_parts = (unsigned)n;
		} else if (!strcmp(a, "--random"))
			o->random = 1;
		else if (!strcmp(a, "--print-layout"))
			o->print_layout = 1;
		else if (a[0] == '-') {
			fprintf(stderr, "linkkit: link: unknown option %s\n", a);
			return -1;
		} else if (o->kit) {
			fprintf(stderr, "linkkit: link: more than one kit given\n");
			return -1;
		} else
			o->kit = a;
	}
	if (!o->out || !o->kit || o->have_seed == o->random) {
		fprintf(stderr, "linkkit: link: needs -o OUT, a KIT, and one of --seed HEX or --random\n");
		return -1;
	}
	return 0;
}

struct elf_out {
	Elf64_Phdr ph[MAX_PHDRS];
	uint32_t nph;
	uint64_t img_off, img_len, shoff;
	struct lk_image_info info;
	uint8_t *view;
	struct lk_elf_view ev;
};

/* File offset of a VMA through the PT_LOAD that maps it. */
static int vma_to_off(const struct elf_out *e, uint64_t vma, uint64_t *off)
{
	for (uint32_t i = 0; i < e->nph; i++) {
		const Elf64_Phdr *p = &e->ph[i];

		if (p->p_type == PT_LOAD && vma >= p->p_vaddr && vma - p->p_vaddr <= p->p_memsz) {
			*off = e->img_off + (p->p_paddr - e->info.load_lo) + (vma - p->p_vaddr);
			return 0;
		}
	}
	return -1;
}

static void place_segments(struct elf_out *e)
{
	uint64_t hdrs = sizeof(Elf64_Ehdr) + (uint64_t)e->nph * sizeof(Elf64_Phdr);

	/* p_offset must be congruent to p_vaddr modulo the page size. */
	e->img_off = (hdrs + PAGE - 1) / PAGE * PAGE + e->info.load_lo % PAGE;
	if (e->info.flags & LK_IMAGE_HEADERS)
		e->img_off = 0;
	e->img_len = e->info.load_hi - e->info.load_lo;
	for (uint32_t i = 0; i < e->nph; i++)
		if (e->ph[i].p_type == PT_LOAD || e->ph[i].p_filesz)
			e->ph[i].p_offset = e->img_off + (e->ph[i].p_paddr - e->info.load_lo);
	e->shoff = (e->img_off + e->img_len + 7) & ~7ull;
}

static void fix_sections(struct elf_out *e)
{
	Elf64_Shdr *sh = (Elf64_Shdr *)e->view;

	for (uint32_t i = 1; i < e->ev.shnum; i++) {
		uint64_t off;

		if (!(sh[i].sh_flags & SHF_ALLOC))
			sh[i].sh_offset += e->shoff;
		else if (!vma_to_off(e, sh[i].sh_addr, &off))
			sh[i].sh_offset = off;
	}
}

static uint8_t *build_elf(struct elf_out *e, const uint8_t *img, size_t *len)
{
	uint64_t total = e->shoff + e->ev.size;
	uint8_t *f = kb_xcalloc(total, 1);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)f;

	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_entry = e->info.entry_vma;
	eh->e_phoff = e->nph ? sizeof(Elf64_Ehdr) : 0;
	eh->e_shoff = e->shoff;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = (Elf64_Half)e->nph;
	eh->e_shentsize = (Elf64_Half)e->ev.shentsize;
	eh->e_shnum = (Elf64_Half)e->ev.shnum;
	eh->e_shstrndx = (Elf64_Half)e->ev.shstrndx;
	memcpy(f + sizeof(*eh), e->ph, e->nph * sizeof(Elf64_Phdr));
	/* With loaded headers the image holds the same ones (the core
	 * wrote them with these values): it overwrites them here. */
	memcpy(f + e->img_off, img, e->img_len);
	memcpy(f + e->shoff, e->view, e->ev.size);
	*len = total;
	return f;
}

static int cmp_u64(const void *a, const void *b)
{
	const Elf64_Sym *x = a, *y = b;

	return x->st_value < y->st_value ? -1 : x->st_value > y->st_value;
}

/* Output sections, then symbols by address. */
/* Non-allocated sections were moved to file offsets by fix_sections. */
static const void *in_view(const struct elf_out *e, const Elf64_Shdr *sh)
{
	return e->view + (sh->sh_offset - e->shoff);
}

static int write_map(const char *path, const struct elf_out *e)
{
	const Elf64_Shdr *sh = (const Elf64_Shdr *)e->view;
	const char *shstr = in_view(e, &sh[e->ev.shstrndx]);
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "linkkit: %s: cannot write\n", path);
		return -1;
	}
	fprintf(f, "Output sections:\n");
	for (uint32_t i = 1; i < e->ev.shnum; i++) {
		if (!(sh[i].sh_flags & SHF_ALLOC))
			continue;
		fprintf(f, "%-24s 0x%016llx 0x%08llx\n", shstr + sh[i].sh_name,
			(unsigned long long)sh[i].sh_addr, (unsigned long long)sh[i].sh_size);
	}
	fprintf(f, "\nSymbols:\n");
	for (uint32_t i = 1; i < e->ev.shnum; i++) {
		Elf64_Sym *syms;
		size_t n;
		const char *str;

		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= e->ev.shnum)
			continue;
		n = sh[i].sh_size / sizeof(Elf64_Sym);
		syms = kb_xcalloc(n, sizeof(*syms));
		memcpy(syms, in_view(e, &sh[i]), n * sizeof(*syms));
		str = in_view(e, &sh[sh[i].sh_link]);
		qsort(syms, n, sizeof(*syms), cmp_u64);
		for (size_t k = 0; k < n; k++)
			if (syms[k].st_name)
				fprintf(f, "0x%016llx 0x%06llx %s\n",
					(unsigned long long)syms[k].st_value,
					(unsigned long long)syms[k].st_size, str + syms[k].st_name);
		free(syms);
	}
	return fclose(f) ? -1 : 0;
}

static void print_layout(struct lk_link *L)
{
	struct lkc_capture c;

	lkc_capture_begin(&c);
	lk_link_dump_layout(L, LK_LOG_DEBUG);
	lkc_capture_end(&c);
	for (size_t i = 0; i < c.n; i++)
		puts(c.lines[i]);
	lkc_capture_free(&c);
}

/* --write-parts N: the write the UEFI stage splits across its processors,
 * here one thread per part, the parts of a group all at once, so the
 * image is only right if the parts really are independent (test-lld-real
 * compares it with ld.lld's, test-diff with ld.bfd's and sorttable's).
 * The sorted tables' parts (ws.nfirst) run beside the sections; their
 * sort runs after them and before the other parts, so a table chunk left
 * to the others, or another chunk written into a table, shows. */
struct part_run {
	struct lk_link *L;
	void *img;
	const struct lk_write_split *ws;
	uint32_t k, nerr;
	pthread_t th;
	int started;
};

static void *part_main(void *arg)
{
	struct part_run *r = arg;

	r->nerr = lk_link_write_part(r->L, r->img, r->ws, r->k);
	return NULL;
}

static void parts_start(struct part_run *run, uint32_t from, uint32_t to)
{
	for (uint32_t k = from; k < to; k++) {
		run[k].started = !pthread_create(&run[k].th, NULL, part_main, &run[k]);
		if (!run[k].started)
			part_main(&run[k]);
	}
}

static uint32_t parts_join(struct part_run *run, uint32_t from, uint32_t to)
{
	uint32_t nerr = 0;

	for (uint32_t k = from; k < to; k++) {
		if (run[k].started)
			pthread_join(run[k].th, NULL);
		nerr += run[k].nerr;
	}
	return nerr;
}

static int write_split(struct lk_link *L, void *img, struct lk_rng *rng, unsigned n)
{
	struct lk_write_split ws;
	struct part_run run[LK_WRITE_MAX_PARTS];
	uint32_t k, nerr;

	if (lk_link_write_begin(L, n, &ws))
		return -1;
	for (k = 0; k < ws.nparts; k++)
		run[k] = (struct part_run){ L, img, &ws, k, 0, 0, 0 };
	parts_start(run, 0, ws.nfirst ? ws.nfirst : ws.nparts);
	lk_link_write_sections(L, img, rng, &ws);
	nerr = parts_join(run, 0, ws.nfirst);
	if (ws.nfirst) {
		lk_link_write_sort(L, img, &ws);
		parts_start(run, ws.nfirst, ws.nparts);
	}
	nerr += parts_join(run, ws.nfirst, ws.nparts);
	return lk_link_write_end(L, img, &ws, nerr);
}

static int link_kit(struct link_opts *o, struct lk_link *L, struct lk_rng *rng)
{
	struct elf_out e;
	uint8_t *img = NULL, *file = NULL;
	size_t flen;
	int rc = -1;

	memset(&e, 0, sizeof(e));
	if (lk_link_layout(L, rng))
		return -1;
	lk_link_info(L, &e.info);
	img = kb_xcalloc(e.info.load_hi - e.info.load_lo + 1, 1);
	if ((o->write_parts ? write_split(L, img, rng, o->write_parts)
			    : lk_link_write(L, img, rng)) ||
	    lk_link_phdrs(L, e.ph, sizeof(e.ph), &e.nph) ||
	    lk_link_elf_size(L, &e.ev))
		goto out;
	e.view = kb_xcalloc(e.ev.size ? e.ev.size : 1, 1);
	if (lk_link_elf_emit(L, e.view, e.ev.size, 0, &e.ev))
		goto out;
	place_segments(&e);
	fix_sections(&e);
	file = build_elf(&e, img, &flen);
	if (lkc_write_file(o->out, file, flen) || (o->map && write_map(o->map, &e)))
		goto out;
	if (o->print_layout)
		print_layout(L);
	rc = 0;
out:
	free(img);
	free(file);
	free(e.view);
	return rc;
}

int lkc_link(int argc, char **argv)
{
	struct link_opts o;
	uint8_t *kit, *p;
	size_t ksize, psize;
	struct lk_kit k;
	struct lk_link *L;
	struct lk_rng rng;
	int rc;

	if (parse_opts(argc, argv, &o))
		return 1;
	if (o.random && lkc_host.entropy(NULL, o.seed, 32) != 32) {
		fprintf(stderr, "linkkit: link: no entropy from the system\n");
		return 1;
	}
	if (o.random)
		o.seedlen = 32;
	if (lkc_read_file(o.kit, &kit, &ksize))
		return 1;
	rc = lkc_unpack(o.kit, kit, ksize, &p, &psize, &k);
	free(kit);
	if (rc)
		return 1;
	if (lk_link_open(&lkc_host, p, psize, o.kit, &L)) {
		free(p);
		return 1;
	}
	lk_rng_init(&rng, o.seed, o.seedlen);
	rc = link_kit(&o, L, &rng);
	lk_rng_wipe(&rng);
	lk_link_close(L);
	free(p);
	return rc ? 1 : 0;
}
