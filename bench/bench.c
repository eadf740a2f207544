/*
 * `make bench`: runs the boot-side core on the host, phase by phase, on a
 * real kit, and prints the median of several runs per phase. The core is
 * linked from the freestanding objects the UEFI stage uses (-Os, general
 * registers only), so the numbers are the boot code's, not a tuned host
 * build's. Also times zlib's inflate of the same stream and a memcpy of
 * the image, because the targets are ratios against those.
 *
 * Usage: bench KIT [RUNS [GZ]]   (environment: BENCH_PAGES=4k, see big_alloc)
 * GZ: a gzip file (the prelinked kernel, gzip -9) that libdeflate
 * decompresses in every run right after the relink, when the bench was
 * built with libdeflate (bench/deps.sh): the issue-16 target compares the
 * two in the same run.
 * Output: one `phase NAME MS MB/s` line per phase, then `key value` lines
 * (bench/run.sh turns them into the docs/bench.md table).
 * BENCH_LINK_LOOP=N: afterwards, inflate once and link (parse, place,
 * write) N times with fresh seeds, for `perf record` and the link's own
 * medians (`link_loop` line); not used by bench/run.sh.
 * Built with -DBENCH_BIOS (bench-bios, -m32) it links the i386 objects the
 * BIOS stage links ($(LINKKIT_FS32_OBJS): -mgeneral-regs-only, SHA-NI when
 * the CPU has it, as stand/start.S turns SSE on): its parse, place and
 * write (split over the processors as stand/mp.c splits it, and on one as
 * write-1cpu), and all of the relink on one processor without long mode
 * (elsewhere the stage hashes and inflates with the x86-64 objects this
 * bench links: stand/lm64.c); no zlib row (no i386 zlib on the host), and
 * its libdeflate figure is the 64-bit bench's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <pthread.h>
#include <unistd.h>
#ifdef BENCH_BIOS
#define BENCH_IS_BIOS 1
#else
#define BENCH_IS_BIOS 0
#endif
#ifndef BENCH_BIOS /* no i386 zlib on the host: no zlib row there */
#include <zlib.h>
#define BENCH_HAVE_ZLIB 1
#else
#define BENCH_HAVE_ZLIB 0
#endif
#ifdef BENCH_LIBDEFLATE
#include <libdeflate.h>
#endif
#include "cpu.h"
#include "link_internal.h"
#include "sha256_impl.h"

#define MAX_RUNS 31

/* Peak of bytes held through the host's alloc: the core's own memory. */
struct mem_count {
	lk_size cur, peak;
};

/*
 * The core's allocations come from one arena that is faulted in once, as
 * the big buffers are: at boot they are firmware pool memory, mapped and
 * present. calloc'ed afresh each run they timed this machine's page faults
 * instead (a first touch costs ~40 us per 4 KiB page in these VMs: 25 of
 * place's 31 ms on the OpenBSD kit, whose symbol arrays are 3 MB). Blocks
 * are zeroed like efi_host.c's eb_alloc does; the last block is popped on
 * free and the arena restarts when nothing is held. calloc beyond it.
 */
#define ARENA_BYTES (64u << 20)
static unsigned char *arena;
static size_t arena_top;

static void *count_alloc(void *ctx, lk_size size)
{
	struct mem_count *m = ctx;
	size_t n = ((size_t)size + 63) & ~(size_t)63;
	void *p;

	if (arena && n >= size && n <= ARENA_BYTES - arena_top) {
		p = arena + arena_top;
		arena_top += n;
		memset(p, 0, size);
	} else {
		p = calloc(1, size ? size : 1);
	}
	if (p) {
		m->cur += size;
		if (m->cur > m->peak)
			m->peak = m->cur;
	}
	return p;
}

static void count_free(void *ctx, void *ptr, lk_size size)
{
	struct mem_count *m = ctx;
	unsigned char *b = ptr;

	if (!ptr)
		return;
	m->cur -= size;
	if (arena && b >= arena && b < arena + ARENA_BYTES) {
		if (b + (((size_t)size + 63) & ~(size_t)63) == arena + arena_top)
			arena_top = b - arena;
		if (m->cur == 0)
			arena_top = 0;
		return;
	}
	free(ptr);
}

static void print_log(void *ctx, int level, const char *line)
{
	(void)ctx;
	(void)level;
	fprintf(stderr, "bench: %s\n", line);
}

static lk_size no_entropy(void *ctx, void *buf, lk_size len)
{
	(void)ctx;
	memset(buf, 0, len);
	return 0;
}

static struct mem_count mem;
static const struct lk_host host = {
	&mem, count_alloc, count_free, print_log, no_entropy, LK_LOG_WARN,
};

/*
 * Kit, payload and image buffers in 2 MiB pages where the kernel gives
 * them (BENCH_PAGES=4k: ordinary pages). At boot these buffers sit in the
 * firmware's identity map, which OVMF/EDK2 builds from 2 MiB (or 1 GiB)
 * pages, so 4 KiB pages would time TLB misses the boot does not have.
 */
static int huge_pages = 1;

/* 2 MiB aligned (mmap gives 4 KiB alignment: a buffer at a random 4 KiB
 * offset got huge pages only inside its first 2 MiB boundary, and the
 * link's times split into two modes, ~4.7 and ~7.5 ms, by where mmap
 * put the arena). The slack before and after is unmapped. */
#define HUGE (2u << 20)
static void *big_alloc(size_t n)
{
	size_t len = (n + HUGE - 1) & ~(size_t)(HUGE - 1);
	unsigned char *p, *q;

	len = len ? len : HUGE;
	p = mmap(NULL, len + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	q = (unsigned char *)(((uintptr_t)p + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
	if (q > p)
		munmap(p, q - p);
	if (q + len < p + len + HUGE)
		munmap(q + len, p + len + HUGE - (q + len));
	if (huge_pages)
		madvise(q, len, MADV_HUGEPAGE);
	return q;
}

static void big_free(void *p, size_t n)
{
	size_t len = (n + HUGE - 1) & ~(size_t)(HUGE - 1);

	if (p)
		munmap(p, len ? len : HUGE);
}

/* Writes every page so later timings see no page faults; volatile so the
 * compiler cannot drop it as a dead store before a memcpy. */
static void touch(void *p, size_t n)
{
	volatile unsigned char *v = p;

	for (size_t i = 0; i < n; i += 4096)
		v[i] = 1;
}

static double clock_ms(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static unsigned char *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p = NULL;
	long len;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto out;
	p = big_alloc(len);
	if (p && fread(p, 1, len, f) != (size_t)len) {
		big_free(p, len);
		p = NULL;
	}
	*n = len;
out:
	if (f)
		fclose(f);
	return p;
}

enum {
	P_VERIFY, P_INFLATE, P_PARSE, P_PLACE, P_WRITE, P_FILL, P_RELOC, P_VERIFY_PORT,
	P_ZLIB, P_MEMCPY, P_GUNZIP, P_INFLATE1, P_WRITE1, P_VERIFY1, P_INFLATE_ITEMS,
	P_CONTENTS, NPHASE
};
static const char *const phase_name[NPHASE] = {
	"verify", "inflate", "parse", "place", "write", "fill", "relocate",
	"verify-portable", "zlib-inflate", "memcpy-image", "libdeflate-gunzip",
	"inflate-1cpu", "write-1cpu", "verify-1cpu", "inflate-items",
	"inflate-contents",
};

/* Wall time (what a boot waits) and this thread's CPU time (what the
 * phase costs when other processes share the cores) of each phase. */
struct result {
	double t[NPHASE][MAX_RUNS];
	double cpu[NPHASE][MAX_RUNS];
	double ratio[MAX_RUNS], cpu_ratio[MAX_RUNS]; /* per run: relink / gunzip */
	double ratio1[MAX_RUNS]; /* per run: one-processor relink / gunzip */
	lk_u64 payload, image, zsize, kit, gz, gz_out, contents;
	lk_u32 nreloc, nobj, nseg;
	lk_size core_peak;
	int overlap; /* parse and place ran inside the 2-CPU inflate */
	int blake3;  /* the kit's hash is BLAKE3 (LK_KIT_F_BLAKE3) */
};

static double wall0, cpu0;

/* The gzip file of the third argument and libdeflate's output buffer. */
static unsigned char *gz, *gz_out;
static size_t gz_size, gz_out_size;
#ifdef BENCH_LIBDEFLATE
static struct libdeflate_decompressor *gz_dec;
#endif

/* libdeflate's whole-buffer gzip decompression of GZ (not a stream API:
 * the fastest way it has), into a warm buffer; 0 when not built in. */
static int gunzip(void)
{
#ifdef BENCH_LIBDEFLATE
	size_t n = 0;

	return libdeflate_gzip_decompress(gz_dec, gz, gz_size, gz_out, gz_out_size, &n) !=
		       LIBDEFLATE_SUCCESS ||
	       n != gz_out_size;
#else
	return 0;
#endif
}

/*
 * The payload's section contents (its data table) alone, deflated once
 * as one stream at the kit's level (12): the bytes any kit of these
 * objects must inflate, whatever its tables hold. Timed through the
 * stage's lk_inflate_raw, it is the floor of the inflate, set against
 * the gunzip of the prelinked kernel.
 */
static unsigned char *contents_z, *contents_out;
static size_t contents_zn, contents_n;

#ifdef BENCH_LIBDEFLATE
static int contents_prepare(const unsigned char *kit, size_t kn)
{
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(12);
	const struct lk_payload_header *h;
	unsigned char *payload;
	struct lk_kit k;
	size_t cap;

	if (!c || lk_kit_open(&host, kit, kn, "kit", &k))
		return 1;
	payload = big_alloc(k.payload_size);
	if (!payload || lk_kit_inflate(&host, &k, "kit", payload, k.payload_size))
		return 1;
	h = (const void *)payload;
	contents_n = h->data.count;
	cap = libdeflate_deflate_compress_bound(c, contents_n);
	contents_z = big_alloc(cap);
	contents_out = big_alloc(contents_n);
	if (!contents_z || !contents_out)
		return 1;
	contents_zn = libdeflate_deflate_compress(c, payload + h->data.off, contents_n,
						  contents_z, cap);
	touch(contents_out, contents_n);
	big_free(payload, k.payload_size);
	libdeflate_free_compressor(c);
	return contents_zn == 0;
}
#endif

static int inflate_contents(void)
{
	lk_size out = 0, used = 0;

	return lk_inflate_raw(contents_z, contents_zn, contents_out, contents_n, &out, &used) ||
	       out != contents_n;
}

static void start(void)
{
	wall0 = clock_ms(CLOCK_MONOTONIC);
	cpu0 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
}

static void stop(struct result *r, int phase, int run)
{
	r->cpu[phase][run] = clock_ms(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	r->t[phase][run] = clock_ms(CLOCK_MONOTONIC) - wall0;
}

/*
 * Parallel inflate of a segmented kit (LK_KIT_F_SEGMENTS): BENCH_THREADS
 * threads (default: the online CPUs) claim the kit's SHA-256 and then the
 * segments one at a time, as the UEFI stage's processors do (efi/mp.c);
 * the calling thread is one of them. The
 * threads are started inside the timed phase, as a stage would wake its
 * application processors. The phase's CPU time is the largest of the
 * threads' own: the critical path, what a boot waits on quiet cores.
 */
static int nthreads = 1;
/* The BLAKE3 build the timed runs use (bench-bios: at most SSSE3). */
static int blake3_path = LK_BLAKE3_AUTO;

static const char *blake3_name(void)
{
	int p = lk_blake3_build();

	return p == LK_BLAKE3_AVX2 ? "blake3-avx2" : p == LK_BLAKE3_SSSE3 ? "blake3-ssse3"
									    : "blake3-portable";
}

struct par {
	const struct lk_kit *k;
	unsigned char *dst;
	lk_u32 next; /* the next unclaimed item */
	int failed;
	lk_u8 state[LK_KIT_MAX_SEGMENTS + 1]; /* item i: 0 pending, 1 done */
	lk_u8 sum[32];
};

/* Item 0 is the kit's SHA-256, as efi/mp.c hashes while it inflates;
 * item i > 0 is segment i - 1. Returns 0 when no item was left. */
static int par_item(struct par *p)
{
	lk_u32 i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);

	if (i > p->k->nseg)
		return 0;
	if (i == 0)
		lk_kit_hash(p->k, p->sum);
	else if (lk_kit_inflate_segment(p->k, i - 1, p->dst, p->k->payload_size))
		__atomic_store_n(&p->failed, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&p->state[i], 1, __ATOMIC_RELEASE);
	return 1;
}

static double par_worker(struct par *p)
{
	double c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID);

	while (par_item(p))
		;
	return clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
}

struct par_thread {
	struct par *p;
	double cpu;
};

static void *par_thread_main(void *a)
{
	struct par_thread *t = a;

	t->cpu = par_worker(t->p);
	return NULL;
}

/*
 * Returns 0 on success; *cpu gets the critical path's CPU ms. With L
 * (the UEFI stage's order, efi/mp.c): this thread takes items until the
 * hash and the segments before the contents (lk_kit_prefix_ready) are
 * done, parses and lays out (timed into parse_ms, place_ms) while the
 * others go on inflating, then takes what is left.
 */
static int par_inflate(const struct lk_kit *k, unsigned char *dst, double *cpu,
		       struct lk_link **L, struct lk_rng *rng, double *parse_ms,
		       double *place_ms)
{
	static struct par p;
	pthread_t th[16];
	struct par_thread t[16];
	int n = nthreads - 1, i, started = 0, rc = 0;
	double c0;

	memset(&p, 0, sizeof(p));
	p.k = k;
	p.dst = dst;
	for (i = 0; i < n && i < 16; i++) {
		t[i].p = &p;
		t[i].cpu = 0;
		if (pthread_create(&th[i], NULL, par_thread_main, &t[i]))
			break;
		started++;
	}
	c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
	if (L) {
		while (!(__atomic_load_n(&p.state[0], __ATOMIC_ACQUIRE) &&
			 lk_kit_prefix_ready(k, dst, p.state + 1, 1)))
			if (!par_item(&p))
				__builtin_ia32_pause();
		if (lk_kit_check_hash(&host, k, "kit", p.sum) != LK_OK || p.failed)
			rc = 1;
		double w = clock_ms(CLOCK_MONOTONIC);
		rc = rc ? rc : lk_link_open(&host, dst, k->payload_size, "kit", L);
		*parse_ms = clock_ms(CLOCK_MONOTONIC) - w;
		w = clock_ms(CLOCK_MONOTONIC);
		rc = rc ? rc : lk_link_layout(*L, rng);
		*place_ms = clock_ms(CLOCK_MONOTONIC) - w;
	}
	while (par_item(&p))
		;
	*cpu = clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
	for (i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		if (t[i].cpu > *cpu)
			*cpu = t[i].cpu;
	}
	return rc || lk_kit_check_hash(&host, k, "kit", p.sum) != LK_OK || p.failed;
}

/*
 * The write split as the UEFI stage splits it across its processors
 * (efi/mp.c): the other threads take parts (16 per thread, for balance)
 * while this one writes the sections, then joins them; this one
 * finishes. The stage's APs have been up since the inflate, waiting for
 * the job, so these threads are started before the timed phase (a
 * pthread took 0.17-0.27 ms to start here) and spin on the posted job.
 */
struct par_write {
	const struct lk_link *L;
	unsigned char *dst;
	struct lk_write_split ws;
	lk_u32 next, nerr, first_done;
};

/* Takes parts below limit, in order, as efi/mp.c's eb_job_run_below. */
static void par_write_parts(struct par_write *p, lk_u32 limit)
{
	lk_u32 k = __atomic_load_n(&p->next, __ATOMIC_RELAXED);

	while (k < limit) {
		if (!__atomic_compare_exchange_n(&p->next, &k, k + 1, 0, __ATOMIC_RELAXED,
						 __ATOMIC_RELAXED))
			continue;
		__atomic_fetch_add(&p->nerr, lk_link_write_part(p->L, p->dst, &p->ws, k),
				   __ATOMIC_RELAXED);
		if (k < p->ws.nfirst)
			__atomic_fetch_add(&p->first_done, 1, __ATOMIC_RELEASE);
		k = __atomic_load_n(&p->next, __ATOMIC_RELAXED);
	}
}

static double par_write_worker(void *arg)
{
	struct par_write *p = arg;
	double c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID);

	par_write_parts(p, p->ws.nparts);
	return clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
}

/* The waiting threads: one job each time (posted), then quit. */
static struct pool {
	pthread_t th[16];
	double cpu[16];
	int n;
	struct par_write *posted; /* atomic */
	int quit;		  /* atomic */
	int done;		  /* atomic: threads through the posted job */
} pool;

static void *pool_main(void *a)
{
	int i = (int)(intptr_t)a;
	struct par_write *j;

	while (!(j = __atomic_load_n(&pool.posted, __ATOMIC_ACQUIRE)))
		if (__atomic_load_n(&pool.quit, __ATOMIC_ACQUIRE))
			return NULL;
		else
			__builtin_ia32_pause();
	pool.cpu[i] = par_write_worker(j);
	__atomic_fetch_add(&pool.done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void pool_start(void)
{
	pool.posted = NULL;
	pool.quit = pool.done = 0;
	for (pool.n = 0; pool.n < nthreads - 1 && pool.n < 16; pool.n++)
		if (pthread_create(&pool.th[pool.n], NULL, pool_main, (void *)(intptr_t)pool.n))
			break;
}

static void pool_stop(void)
{
	__atomic_store_n(&pool.quit, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < pool.n; i++)
		pthread_join(pool.th[i], NULL);
	pool.n = 0;
}

static int par_write(struct lk_link *L, unsigned char *dst, struct lk_rng *rng, double *cpu)
{
	static struct par_write p;
	double c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID), cb, c1;
	int rc, i;

	memset(&p, 0, sizeof(p));
	p.L = L;
	p.dst = dst;
	if (lk_link_write_begin(L, 16 * (lk_u32)nthreads, &p.ws))
		return 1;
	cb = clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
	__atomic_store_n(&pool.posted, &p, __ATOMIC_RELEASE);
	lk_link_write_sections(L, dst, rng, &p.ws);
	/* The sorted tables' parts first, then their sort here while the
	 * others write the rest (efi/mp.c). */
	par_write_parts(&p, p.ws.nfirst);
	while (__atomic_load_n(&p.first_done, __ATOMIC_ACQUIRE) < p.ws.nfirst)
		__builtin_ia32_pause();
	lk_link_write_sort(L, dst, &p.ws);
	par_write_worker(&p);
	while (__atomic_load_n(&pool.done, __ATOMIC_ACQUIRE) < pool.n)
		__builtin_ia32_pause();
	c1 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
	rc = lk_link_write_end(L, dst, &p.ws, p.nerr);
	/* The critical path: this thread's own time, or begin, the slowest
	 * other thread's parts and end, whichever is more. */
	c1 = clock_ms(CLOCK_THREAD_CPUTIME_ID) - c1;
	*cpu = clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
	for (i = 0; i < pool.n; i++)
		if (cb + pool.cpu[i] + c1 > *cpu)
			*cpu = cb + pool.cpu[i] + c1;
	return rc;
}

/* One whole boot-side relink, as a stage does it, timed per phase. */
static int one_run(const unsigned char *kit, size_t kn, int run, lk_u32 seed, struct result *r)
{
	struct lk_kit k;
	struct lk_link *L = NULL;
	struct lk_image_info in;
	struct lk_rng rng, rng1;
	unsigned char *payload, *img, *img1;
	int rc;

	if (lk_kit_open(&host, kit, kn, "kit", &k))
		return 1;
	/* With several threads the hash is one of the inflate's items
	 * (efi/mp.c): verify is then only the header and index checks. */
	start();
	if (k.nseg > 1 && nthreads > 1 && !BENCH_IS_BIOS)
		rc = lk_kit_open_unhashed(&host, kit, kn, "kit", &k);
	else
		rc = lk_kit_open(&host, kit, kn, "kit", &k);
	stop(r, P_VERIFY, run);
	payload = big_alloc(k.payload_size);
	/* Touch the buffers first: page faults are the host's, not the core's. */
	touch(payload, k.payload_size);
	lk_rng_init(&rng, &seed, sizeof(seed));
	start();
	if (k.nseg > 1 && nthreads > 1 && !BENCH_IS_BIOS) {
		double cpu = 0;

		/* Parse and place run inside, beside the inflate (efi/mp.c). */
		rc = rc ? rc : par_inflate(&k, payload, &cpu, &L, &rng,
					   &r->t[P_PARSE][run], &r->t[P_PLACE][run]);
		stop(r, P_INFLATE, run);
		r->cpu[P_INFLATE][run] = cpu;
		r->cpu[P_PARSE][run] = r->t[P_PARSE][run];
		r->cpu[P_PLACE][run] = r->t[P_PLACE][run];
		r->overlap = 1;
	} else {
		rc = rc ? rc : lk_kit_inflate(&host, &k, "kit", payload, k.payload_size);
		stop(r, P_INFLATE, run);
		start();
		rc = rc ? rc : lk_link_open(&host, payload, k.payload_size, "kit", &L);
		stop(r, P_PARSE, run);
		start();
		rc = rc ? rc : lk_link_layout(L, &rng);
		stop(r, P_PLACE, run);
	}
	if (rc) {
		big_free(payload, k.payload_size);
		return 1;
	}
	lk_link_info(L, &in);
	r->image = in.load_hi - in.load_lo;
	img = big_alloc(r->image);
	img1 = big_alloc(r->image);
	touch(img, r->image);
	touch(img1, r->image);
	rng1 = rng; /* the same random-fill bytes for the one-CPU write */
	if (nthreads > 1)
		pool_start();
	start();
	if (nthreads > 1) {
		double cpu = 0;

		rc = par_write(L, img, &rng, &cpu);
		stop(r, P_WRITE, run);
		pool_stop();
		r->cpu[P_WRITE][run] = cpu;
	} else {
		rc = lk_link_write(L, img, &rng);
		stop(r, P_WRITE, run);
	}
	/* As the BIOS stage writes: one processor, one pass. */
	start();
	rc = rc ? rc : lk_link_write(L, img1, &rng1);
	stop(r, P_WRITE1, run);
	if (!rc && memcmp(img, img1, r->image)) {
		fprintf(stderr, "bench: the split write's image differs from lk_link_write's\n");
		rc = 1;
	}
	big_free(img1, r->image);
	lk_rng_wipe(&rng1);
	/* The two halves of write, each on its own (the boot does them in
	 * one pass, relocating each chunk while it is in the cache): fill =
	 * contents, fills and random-fill; relocate = every relocation as a
	 * separate pass over the written image. */
	start();
	rc = rc ? rc : lk_link_write_parts(L, img, &rng, LK_WRITE_CONTENTS);
	stop(r, P_FILL, run);
	start();
	rc = rc ? rc : lk_link_write_parts(L, img, &rng, LK_WRITE_RELOCS);
	stop(r, P_RELOC, run);
	r->payload = k.payload_size;
	r->nseg = k.nseg;
	r->blake3 = (k.flags & LK_KIT_F_BLAKE3) != 0;
	r->zsize = k.zsize;
	r->kit = kn;
	{
		const struct lk_payload_header *h = (const void *)payload;
		r->nreloc = h->relocs.count;
		r->nobj = h->objects.count;
	}
	lk_link_close(L);
	/* Right after the relink, so both see the same minute of the machine. */
	if (gz_out) {
		start();
		rc = rc ? rc : gunzip();
		stop(r, P_GUNZIP, run);
		if (contents_z) {
			start();
			rc = rc ? rc : inflate_contents();
			stop(r, P_CONTENTS, run);
		}
		int apart = !r->overlap; /* parse, place not inside inflate */

		r->ratio[run] = (r->t[P_VERIFY][run] + r->t[P_INFLATE][run] +
				 apart * (r->t[P_PARSE][run] + r->t[P_PLACE][run]) +
				 r->t[P_WRITE][run]) /
				r->t[P_GUNZIP][run];
		r->cpu_ratio[run] = (r->cpu[P_VERIFY][run] + r->cpu[P_INFLATE][run] +
				     apart * (r->cpu[P_PARSE][run] + r->cpu[P_PLACE][run]) +
				     r->cpu[P_WRITE][run]) /
				    r->cpu[P_GUNZIP][run];
	}
	/* The whole stream on one processor, as the BIOS stage inflates,
	 * after the hash on that processor: these objects are the ones its
	 * long mode runs (stand/lm64.c, with the YMM state on for AVX2). */
	start();
	rc = rc ? rc : lk_kit_open(&host, kit, kn, "kit", &k);
	stop(r, P_VERIFY1, run);
	start();
	rc = rc ? rc : lk_kit_inflate(&host, &k, "kit", payload, k.payload_size);
	stop(r, P_INFLATE1, run);
	/* The hash and the segments shared by every thread, parse and place
	 * after: as the BIOS stage's processors share them (stand/mp.c). */
	if (k.nseg > 1 && nthreads > 1 && !BENCH_IS_BIOS) {
		double cpu = 0;

		start();
		rc = rc ? rc : par_inflate(&k, payload, &cpu, NULL, NULL, NULL, NULL);
		stop(r, P_INFLATE_ITEMS, run);
		r->cpu[P_INFLATE_ITEMS][run] = cpu;
	}

	if (gz_out)
		r->ratio1[run] = (r->t[P_VERIFY1][run] + r->t[P_INFLATE1][run] +
				  r->t[P_PARSE][run] + r->t[P_PLACE][run] + r->t[P_WRITE1][run]) /
				 r->t[P_GUNZIP][run];
	/* verify with the portable hash (SHA-256 or BLAKE3, as the kit
	 * says), for comparison with SHA-NI or the vector lanes. */
	lk_sha256_select(LK_SHA256_PORTABLE);
	lk_blake3_path(LK_BLAKE3_PORTABLE);
	start();
	rc = rc ? rc : lk_kit_open(&host, kit, kn, "kit", &k);
	stop(r, P_VERIFY_PORT, run);
	lk_sha256_select(LK_SHA256_AUTO);
	lk_blake3_path(blake3_path);
#ifndef BENCH_BIOS
	/* zlib's inflate of the same stream into the same (warm) buffer. */
	uLongf out = k.payload_size;
	start();
	if (uncompress(payload, &out, k.zdata, k.zsize) != Z_OK || out != k.payload_size)
		rc = 1;
	stop(r, P_ZLIB, run);
#endif
	/* A plain copy of an image-sized buffer into warm memory. */
	unsigned char *copy = big_alloc(r->image);
	touch(copy, r->image);
	start();
	memcpy(copy, img, r->image);
	stop(r, P_MEMCPY, run);
	if (copy[r->image / 2] != img[r->image / 2])
		rc = 1;
	big_free(copy, r->image);
	big_free(img, r->image);
	big_free(payload, k.payload_size);
	return rc;
}

static void report(struct result *r, int runs)
{
	double med[NPHASE], cpu[NPHASE], bytes[NPHASE];
	double relink, link, link1;
	int p;

	bytes[P_VERIFY] = r->kit;
	bytes[P_INFLATE] = bytes[P_ZLIB] = bytes[P_INFLATE1] = bytes[P_INFLATE_ITEMS] = r->payload;
	bytes[P_PARSE] = r->payload;
	bytes[P_PLACE] = r->payload;
	bytes[P_WRITE] = bytes[P_MEMCPY] = bytes[P_FILL] = bytes[P_WRITE1] = r->image;
	bytes[P_RELOC] = r->image;
	bytes[P_VERIFY_PORT] = bytes[P_VERIFY1] = r->kit;
	bytes[P_GUNZIP] = r->gz_out;
	bytes[P_CONTENTS] = contents_n;
	for (p = 0; p < NPHASE; p++) {
		if (((p == P_GUNZIP || p == P_CONTENTS) && !gz_out) ||
		    (p == P_CONTENTS && !contents_z) || (p == P_ZLIB && BENCH_HAVE_ZLIB == 0) ||
		    (p == P_INFLATE_ITEMS && (r->nseg < 2 || nthreads < 2 || BENCH_IS_BIOS)))
			continue;
		med[p] = median(r->t[p], runs);
		cpu[p] = median(r->cpu[p], runs);
		printf("phase %s %.3f ms %.1f MB/s cpu %.3f ms\n", phase_name[p],
		       med[p], med[p] > 0 ? bytes[p] / 1e3 / med[p] : 0, cpu[p]);
	}
	relink = med[P_VERIFY] + med[P_INFLATE] + med[P_WRITE] +
		 (r->overlap ? 0 : med[P_PARSE] + med[P_PLACE]);
	link = med[P_PARSE] + med[P_PLACE] + med[P_WRITE];
	printf("runs %d\n", runs);
	printf("segments %u\n", r->nseg);
	printf("inflate_threads %d\n", r->nseg > 1 ? nthreads : 1);
	printf("parse_place_in_inflate %d\n", r->overlap);
	printf("objects %u\n", r->nobj);
	printf("relocations %u\n", r->nreloc);
	printf("relocs_per_s %.0f\n", med[P_RELOC] > 0 ? r->nreloc / med[P_RELOC] * 1e3 : 0);
	printf("sha256_ni %d\n", lk_sha256_select(LK_SHA256_AUTO));
	printf("kit_hash %s\n", r->blake3 ? blake3_name() : "sha256");
	printf("pages %s\n", huge_pages ? "2M" : "4k");
	printf("kit_bytes %llu\n", (unsigned long long)r->kit);
	printf("payload_bytes %llu\n", (unsigned long long)r->payload);
	printf("image_bytes %llu\n", (unsigned long long)r->image);
	printf("relink_ms %.3f\n", relink);
	printf("link_ms %.3f\n", link);
	printf("relink_cpu_ms %.3f\n",
	       cpu[P_VERIFY] + cpu[P_INFLATE] + cpu[P_WRITE] +
		       (r->overlap ? 0 : cpu[P_PARSE] + cpu[P_PLACE]));
	printf("link_cpu_ms %.3f\n", cpu[P_PARSE] + cpu[P_PLACE] + cpu[P_WRITE]);
	printf("link_over_memcpy %.2f\n", med[P_MEMCPY] > 0 ? link / med[P_MEMCPY] : 0);
	/* The BIOS stage's link, and the UEFI stage's on one processor. */
	link1 = med[P_PARSE] + med[P_PLACE] + med[P_WRITE1];
	printf("write_threads %d\n", nthreads);
	printf("link_1cpu_ms %.3f\n", link1);
	printf("link_1cpu_cpu_ms %.3f\n", cpu[P_PARSE] + cpu[P_PLACE] + cpu[P_WRITE1]);
	printf("link_1cpu_over_memcpy %.2f\n", med[P_MEMCPY] > 0 ? link1 / med[P_MEMCPY] : 0);
	/* The whole relink on one processor: the BIOS stage's sequence. */
	printf("relink_1cpu_ms %.3f\n", med[P_VERIFY1] + med[P_INFLATE1] + link1);
	printf("inflate_over_zlib %.2f\n", med[P_ZLIB] > 0 ? med[P_INFLATE] / med[P_ZLIB] : 0);
	printf("core_peak_bytes %llu\n", (unsigned long long)r->core_peak);
	if (gz_out) {
		/* Paired per run: each run's relink over its own gunzip. */
		printf("gz_bytes %llu\n", (unsigned long long)r->gz);
		printf("gunzip_out_bytes %llu\n", (unsigned long long)r->gz_out);
		printf("kit_over_gz %.3f\n", r->gz ? (double)r->kit / r->gz : 0);
		printf("relink_over_gunzip_median %.3f\n", median(r->ratio, runs));
		qsort(r->ratio, runs, sizeof(double), cmp_double);
		printf("relink_over_gunzip_min %.3f\n", r->ratio[0]);
		printf("relink_over_gunzip_max %.3f\n", r->ratio[runs - 1]);
		printf("relink_over_gunzip_cpu_median %.3f\n", median(r->cpu_ratio, runs));
		printf("relink_1cpu_over_gunzip_median %.3f\n", median(r->ratio1, runs));
		if (contents_z) {
			printf("contents_bytes %zu\n", contents_n);
			printf("contents_z_bytes %zu\n", contents_zn);
			printf("contents_over_gunzip %.3f\n", med[P_CONTENTS] / med[P_GUNZIP]);
		}
	}
	/* What the UEFI stage holds at its peak: it frees the kit once
	 * inflated (efi/boot.c), before the image is allocated, so kit and
	 * payload while inflating, then payload, image and the core's own
	 * tables. All four at once (before that change, and in the BIOS
	 * stage, whose buffers stay put) is printed too. */
	{
		lk_u64 a = r->kit + r->payload, b = r->payload + r->image + r->core_peak;
		lk_u64 peak = a > b ? a : b;

		printf("stage_peak_bytes %llu\n", (unsigned long long)peak);
		printf("stage_peak_all_bytes %llu\n", (unsigned long long)(b + r->kit));
		printf("peak_over_image %.2f\n", r->image ? (double)peak / r->image : 0);
	}
}

#define MAX_LOOP 10000

/* One link per iteration: the phases a profile of the link should see,
 * without verify and inflate around them. */
static int link_loop(const unsigned char *kit, size_t kn, int n)
{
	static double t[3][MAX_LOOP];
	struct lk_kit k;
	struct lk_image_info in;
	unsigned char *payload, *img = NULL;
	size_t isize = 0;
	int i, rc = 1;

	if (lk_kit_open(&host, kit, kn, "kit", &k))
		return 1;
	payload = big_alloc(k.payload_size);
	if (!payload)
		return 1;
	touch(payload, k.payload_size);
	if (lk_kit_inflate(&host, &k, "kit", payload, k.payload_size))
		goto out;
	for (i = 0; i < n; i++) {
		struct lk_link *L = NULL;
		struct lk_rng rng;
		lk_u32 seed = 0x85ebca6bu * (i + 1);
		double t0 = clock_ms(CLOCK_MONOTONIC), t1, t2;

		if (lk_link_open(&host, payload, k.payload_size, "kit", &L))
			goto out;
		t1 = clock_ms(CLOCK_MONOTONIC);
		lk_rng_init(&rng, &seed, sizeof(seed));
		if (lk_link_layout(L, &rng)) {
			lk_link_close(L);
			goto out;
		}
		t2 = clock_ms(CLOCK_MONOTONIC);
		lk_link_info(L, &in);
		if (!img) {
			isize = in.load_hi - in.load_lo + (2u << 20);
			img = big_alloc(isize);
			if (!img) {
				lk_link_close(L);
				goto out;
			}
			touch(img, isize);
		}
		if (in.load_hi - in.load_lo > isize || lk_link_write(L, img, &rng)) {
			lk_link_close(L);
			goto out;
		}
		t[0][i] = t1 - t0;
		t[1][i] = t2 - t1;
		t[2][i] = clock_ms(CLOCK_MONOTONIC) - t2;
		lk_link_close(L);
	}
	printf("link_loop %d parse %.3f place %.3f write %.3f link %.3f\n", n,
	       median(t[0], n), median(t[1], n), median(t[2], n),
	       median(t[0], n) + median(t[1], n) + median(t[2], n));
	rc = 0;
out:
	big_free(img, isize);
	big_free(payload, k.payload_size);
	return rc;
}

int main(int argc, char **argv)
{
	static struct result r;
	unsigned char *kit;
	size_t kn;
	int runs = argc > 2 ? atoi(argv[2]) : 7, i;

	if (argc < 2 || runs < 1 || runs > MAX_RUNS) {
		fprintf(stderr, "usage: bench KIT [RUNS<=%d [GZ]]\n", MAX_RUNS);
		return 2;
	}
	huge_pages = !(getenv("BENCH_PAGES") && !strcmp(getenv("BENCH_PAGES"), "4k"));
	nthreads = getenv("BENCH_THREADS") ? atoi(getenv("BENCH_THREADS"))
					   : (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (nthreads < 1 || nthreads > 16)
		nthreads = nthreads < 1 ? 1 : 16;
#ifdef BENCH_BIOS
	/* The BIOS stage inflates on one processor here (its i386 code: a CPU
	 * without long mode, which the stage runs alone); its write is split
	 * over the processors (stand/mp.c) as write, one-CPU as write-1cpu. */
	printf("bios 1\n");
	/* The i386 code runs without the YMM state (stand/start.S turns it on
	 * only for the long-mode calls): no AVX2 there. */
	blake3_path = (lk_cpu_features() & LK_CPU_SSSE3) ? LK_BLAKE3_SSSE3 : LK_BLAKE3_PORTABLE;
	lk_blake3_path(blake3_path);
#endif
	if (argc > 3) {
#ifdef BENCH_LIBDEFLATE
		gz = read_file(argv[3], &gz_size);
		/* ISIZE, the last 4 bytes: the output size mod 2^32. */
		if (!gz || gz_size < 18 || !(gz_dec = libdeflate_alloc_decompressor())) {
			fprintf(stderr, "bench: %s: cannot read\n", argv[3]);
			return 1;
		}
		gz_out_size = gz[gz_size - 4] | gz[gz_size - 3] << 8 | gz[gz_size - 2] << 16 |
			      (size_t)gz[gz_size - 1] << 24;
		gz_out = big_alloc(gz_out_size);
		if (!gz_out)
			return 1;
		touch(gz_out, gz_out_size);
		r.gz = gz_size;
		r.gz_out = gz_out_size;

#else
		fprintf(stderr, "bench: built without libdeflate (bench/deps.sh): %s not timed\n",
			argv[3]);
#endif
	}
	arena = big_alloc(ARENA_BYTES);
	if (arena)
		touch(arena, ARENA_BYTES);
	kit = read_file(argv[1], &kn);
	if (!kit) {
		fprintf(stderr, "bench: %s: cannot read\n", argv[1]);
		return 1;
	}
#ifdef BENCH_LIBDEFLATE
	if (gz_out && contents_prepare(kit, kn)) {
		fprintf(stderr, "bench: %s: cannot deflate its contents alone\n", argv[1]);
		return 1;
	}
#endif
	for (i = 0; i < runs; i++) {
		mem.cur = mem.peak = 0;
		if (one_run(kit, kn, i, 0x9e3779b9u * (i + 1), &r)) {
			fprintf(stderr, "bench: %s: run %d failed\n", argv[1], i);
			return 1;
		}
		if (mem.peak > r.core_peak)
			r.core_peak = mem.peak;
		if (mem.cur)
			fprintf(stderr, "bench: %s: %zu bytes not freed\n", argv[1], (size_t)mem.cur);
	}
	report(&r, runs);
	if (getenv("BENCH_LINK_LOOP")) {
		int n = atoi(getenv("BENCH_LINK_LOOP"));

		if (n < 1 || n > MAX_LOOP || link_loop(kit, kn, n)) {
			fprintf(stderr, "bench: %s: BENCH_LINK_LOOP=%s failed (1..%d)\n", argv[1],
				getenv("BENCH_LINK_LOOP"), MAX_LOOP);
			return 1;
		}
	}
	big_free(kit, kn);
	big_free(arena, ARENA_BYTES);
	big_free(gz, gz_size);
	big_free(gz_out, gz_out_size);
	return 0;
}
