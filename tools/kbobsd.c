/*
 * `linkkit create --openbsd DIR`: the inputs of an OpenBSD kernel compile
 * directory (or /usr/share/relink/kernel/NAME). The script is DIR/ld.script,
 * unchanged. The objects are locore0.o first (OpenBSD's SYSTEM_HEAD), then
 * the generated Makefile's OBJS in their order, then param.o ioconf.o
 * vers.o, as Makefile.amd64 links them, then the objects the `bsd:` rule
 * passes to ${SYSTEM_LD} (config(8) writes `swapgeneric.o` for `root on
 * ?`, `swapbsd.o` for a kernel configured with a fixed root); without a
 * Makefile, every *.o in DIR by name. gap.o and gapdummy.o are left out:
 * the kit brings its own gaps (the built-in policy below, sized like
 * makegap.sh's).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kb.h"

/* makegap.sh: .text padded by 1 to 3 pages (page-aligned), `endboot`,
 * then below one page in 16-byte steps; the others below one page, 16-byte
 * steps, 0xcc fill. Here the first .text part is 0 to 3 pages. */
static const char kb_obsd_policy[] = "protocol openbsd\n"
				     "linker lld\n"
				     "pin locore0.o\n"
				     "granularity object\n"
				     "gap .text 16384 4096 0xcc\n"
				     "gap .text 4096 16 0xcc endboot\n"
				     "gap .rodata 4096 16 0xcc\n"
				     "gap .data 4096 16 0xcc\n"
				     "gap .bss 4096 16\n"
				     "random-fill .openbsd.randomdata\n";

const char *kb_obsd_default_policy(void)
{
	return kb_obsd_policy;
}

static int skipped(const char *name)
{
	return !strcmp(name, "locore0.o") || !strcmp(name, "gap.o") ||
	       !strcmp(name, "gapdummy.o");
}

struct names {
	char **v;
	size_t n;
};

static void add_name(struct names *l, const char *s, size_t len)
{
	for (size_t i = 0; i < l->n; i++)
		if (strlen(l->v[i]) == len && !strncmp(l->v[i], s, len))
			return; /* listed twice: linked once */
	l->v = kb_xgrow(l->v, l->n, sizeof(*l->v));
	l->v[l->n] = kb_xcalloc(len + 1, 1);
	memcpy(l->v[l->n++], s, len);
}

/* The value of `OBJS=` with its backslash continuation lines. */
static char *objs_value(char *text)
{
	char *line = text, *v, *w;

	for (; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		v = line;
		if (strncmp(v, "OBJS", 4))
			continue;
		v += 4;
		v += strspn(v, " \t");
		if (*v != '=')
			continue;
		/* Splice continuations in place: "\\\n" becomes two spaces. */
		for (w = ++v; *w && *w != '\n'; w++)
			if (w[0] == '\\' && w[1] == '\n')
				w[0] = w[1] = ' ';
		*w = '\0';
		return v;
	}
	return NULL;
}

/*
 * The objects after ${SYSTEM_LD} in the recipe of the `bsd:` rule: that
 * is how config(8) names the swap/root object (swapgeneric.o, swapbsd.o,
 * ...). Returns the count added, or -1 for an entry that is not a plain
 * object name.
 */
static int system_ld_objs(const char *mk, const char *text, struct names *l)
{
	const char *line = text, *p, *end;
	int in_bsd = 0, added = 0;

	for (; *line; line = *end ? end + 1 : end) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		if (line[0] != '\t') {
			/* A target line: `bsd:` or `bsd: deps` (not
			 * `bsd.gdb:`). */
			in_bsd = !strncmp(line, "bsd", 3) &&
				 (line[3] == ':' ||
				  (line[3] == ' ' &&
				   line[3 + strspn(line + 3, " ")] == ':'));
			continue;
		}
		p = line + 1 + strspn(line + 1, " \t");
		if (!in_bsd || strncmp(p, "${SYSTEM_LD}", 12) ||
		    (p[12] != ' ' && p[12] != '\t'))
			continue;
		for (p += 12; p < end;) {
			size_t n;

			p += strspn(p, " \t\r");
			n = strcspn(p, " \t\r\n");
			if (!n)
				break;
			if (n < 3 || strncmp(p + n - 2, ".o", 2) ||
			    memchr(p, '/', n) || memchr(p, '$', n)) {
				fprintf(stderr,
					"linkkit: %s: `bsd:` rule: '%.*s' "
					"after "
					"${SYSTEM_LD} is not a plain object "
					"name\n",
					mk, (int)n, p);
				return -1;
			}
			add_name(l, p, n);
			added++;
			p += n;
		}
		return added;
	}
	return 0;
}

static int from_makefile(const char *dir, const char *mk, struct names *l)
{
	uint8_t *text;
	size_t len;
	char *v, *tok, *save, *tail;
	int rc;
	FILE *f = fopen(mk, "rb");

	if (!f) {
		fprintf(stderr, "linkkit: %s: cannot read\n", mk);
		return -1;
	}
	text = kb_xcalloc(1 << 24, 1);
	len = fread(text, 1, (1 << 24) - 1, f);
	fclose(f);
	tail = kb_xcalloc(len + 1, 1);
	memcpy(tail, text, len); /* objs_value() splices `text` in place */
	v = objs_value((char *)text);
	if (!v || len == (1 << 24) - 1) {
		fprintf(stderr,
			"linkkit: %s: no OBJS= line (or larger than 16 MiB)\n",
			mk);
		free(text);
		free(tail);
		return -1;
	}
	for (tok = strtok_r(v, " \t\r", &save); tok;
	     tok = strtok_r(NULL, " \t\r", &save)) {
		size_t n = strlen(tok);

		if (n < 3 || strcmp(tok + n - 2, ".o") || strchr(tok, '/') ||
		    strchr(tok, '$')) {
			fprintf(stderr,
				"linkkit: %s: OBJS entry '%s' is not a plain "
				"object name\n",
				mk, tok);
			free(text);
			free(tail);
			return -1;
		}
		if (!skipped(tok))
			add_name(l, tok, n);
	}
	free(text);
	add_name(l, "param.o", 7);
	add_name(l, "ioconf.o", 8);
	add_name(l, "vers.o", 6);
	rc = system_ld_objs(mk, tail, l);
	if (!rc)
		fprintf(stderr,
			"linkkit: warning: %s: no `bsd:` rule linking "
			"${SYSTEM_LD} OBJECT (config(8)'s swapgeneric.o): "
			"none added\n",
			mk);
	rc = rc < 0 ? -1 : 0;
	free(tail);
	(void)dir;
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int from_dir(const char *dir, struct names *l)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d) {
		fprintf(stderr, "linkkit: %s: cannot open the directory\n",
			dir);
		return -1;
	}
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n > 2 && !strcmp(e->d_name + n - 2, ".o") &&
		    !skipped(e->d_name))
			add_name(l, e->d_name, n);
	}
	closedir(d);
	qsort(l->v, l->n, sizeof(*l->v), cmp_str);
	return 0;
}

/*
 * Fills o->script_path and o->objs (allocated: free with kb_obsd_free)
 * from DIR. Every missing file is reported, naming it.
 */
int kb_obsd_inputs(const char *dir, struct kb_options *o)
{
	struct names l = { 0 };
	char *mk = kb_join(dir, "Makefile");
	int bad = 0;

	o->script_path = kb_join(dir, "ld.script");
	if (!kb_is_file(o->script_path)) {
		fprintf(stderr,
			"linkkit: %s: missing (the kernel's linker script)\n",
			o->script_path);
		bad = 1;
	}
	if (kb_is_file(mk) ? from_makefile(dir, mk, &l) : from_dir(dir, &l))
		bad = 1;
	free(mk);
	o->objs = kb_xcalloc(l.n + 1, sizeof(*o->objs));
	o->objs[o->nobjs++] = kb_join(dir, "locore0.o");
	for (size_t i = 0; i < l.n; i++) {
		o->objs[o->nobjs++] = kb_join(dir, l.v[i]);
		free(l.v[i]);
	}
	free(l.v);
	for (size_t i = 0; i < o->nobjs; i++)
		if (!kb_is_file(o->objs[i])) {
			fprintf(stderr, "linkkit: %s: missing%s\n", o->objs[i],
				i == 0 ? " (the kernel entry, linked first)"
				       : "");
			bad = 1;
		}
	return bad ? -1 : 0;
}

void kb_obsd_free(struct kb_options *o)
{
	for (size_t i = 0; i < o->nobjs; i++)
		free((char *)o->objs[i]);
	free(o->objs);
	free((char *)o->script_path);
	o->objs = NULL;
	o->script_path = NULL;
	o->nobjs = 0;
}
