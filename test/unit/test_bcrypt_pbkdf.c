/*
 * tools/bcrypt_pbkdf.c (signify's key KDF, written here) against an
 * independent implementation: Debian's python3-bcrypt (bcrypt.kdf), fed
 * random passwords and salts, several round counts and key lengths that
 * exercise the strided output (1, 31, 32, 33, 64, 100 bytes), plus the
 * argument refusals. tools/test-sign.sh checks the 64-byte, 42-round case
 * against signify itself.
 */
#include <string.h>
#include <unistd.h>

#include "../../tools/bcrypt_pbkdf.c"
#include "tap.h"

#define ORACLE "/usr/bin/python3"

struct kcase {
	uint8_t pass[80], salt[40];
	size_t plen, slen, klen;
	unsigned rounds;
};

static void hex(FILE *f, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
}

static const char script[] =
	"import bcrypt, sys\n"
	"for l in open(sys.argv[1]):\n"
	"    p, s, r, k = l.split()\n"
	"    print(bcrypt.kdf(password=bytes.fromhex(p), "
	"salt=bytes.fromhex(s),\n"
	"        desired_key_bytes=int(k), rounds=int(r),\n"
	"        ignore_few_rounds=True).hex())\n";

int main(void)
{
	static const size_t klens[] = { 1, 31, 32, 33, 64, 100, 64, 17 };
	static const unsigned rounds[] = { 1, 2, 4, 1, 42, 3, 8, 2 };
	enum { N = sizeof(klens) / sizeof(klens[0]) };
	struct kcase c[N];
	char cases[] = "/tmp/bcrypt-cases.XXXXXX",
	     py[] = "/tmp/bcrypt-oracle.XXXXXX";
	char cmd[256], line[512];
	uint8_t key[2048];
	FILE *f, *o;
	int fd, got = 0;

	tap_seed();
	tap_check(bcrypt_pbkdf("p", 1, (const uint8_t *)"s", 1, key, 32, 0) ==
				  -1 &&
			  bcrypt_pbkdf("p", 1, (const uint8_t *)"s", 1, key, 0,
				       4) == -1 &&
			  bcrypt_pbkdf("p", 1, (const uint8_t *)"s", 1, key,
				       1025, 4) == -1 &&
			  bcrypt_pbkdf("", 0, (const uint8_t *)"s", 1, key, 32,
				       4) == -1,
		  "bcrypt-pbkdf-refuses",
		  "accepted 0 rounds, 0/1025 bytes or no password");
	if (access(ORACLE, X_OK) ||
	    system(ORACLE " -c 'import bcrypt' 2>/dev/null") != 0) {
		printf("skip bcrypt-pbkdf-oracle: python3-bcrypt not "
		       "installed\n");
		return tap_failed;
	}
	fd = mkstemp(cases);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		printf("not ok bcrypt-pbkdf-oracle: cannot write %s\n", cases);
		return 1;
	}
	for (int i = 0; i < N; i++) {
		c[i].plen = 1 + tap_below(sizeof(c[i].pass));
		c[i].slen = 1 + tap_below(sizeof(c[i].salt));
		c[i].klen = klens[i];
		c[i].rounds = rounds[i];
		for (size_t k = 0; k < c[i].plen; k++)
			c[i].pass[k] = (uint8_t)tap_rand();
		for (size_t k = 0; k < c[i].slen; k++)
			c[i].salt[k] = (uint8_t)tap_rand();
		hex(f, c[i].pass, c[i].plen);
		fputc(' ', f);
		hex(f, c[i].salt, c[i].slen);
		fprintf(f, " %u %zu\n", c[i].rounds, c[i].klen);
	}
	fclose(f);
	fd = mkstemp(py);
	o = fd < 0 ? NULL : fdopen(fd, "w");
	if (o) {
		fputs(script, o);
		fclose(o);
	}
	snprintf(cmd, sizeof(cmd), ORACLE " %s %s", py, cases);
	o = fd < 0 ? NULL : popen(cmd, "r");
	for (int i = 0; o && i < N && fgets(line, sizeof(line), o);
	     i++, got++) {
		char want[512], name[64];
		char *w = want;
		int rc = bcrypt_pbkdf((const char *)c[i].pass, c[i].plen,
				      c[i].salt, c[i].slen, key, c[i].klen,
				      c[i].rounds);

		for (size_t k = 0; k < c[i].klen; k++, w += 2)
			sprintf(w, "%02x", key[k]);
		line[strcspn(line, "\n")] = 0;
		snprintf(name, sizeof(name), "bcrypt-pbkdf-%zu-bytes-%u-rounds",
			 c[i].klen, c[i].rounds);
		tap_check(rc == 0 && !strcmp(want, line), name,
			  "got %s, python3-bcrypt %s", want, line);
	}
	if (o)
		pclose(o);
	remove(cases);
	remove(py);
	tap_check(got == N, "bcrypt-pbkdf-oracle", "%d of %d answers from %s",
		  got, N, ORACLE);
	return tap_failed;
}
