/* bcrypt_pbkdf, as signify uses it to encrypt secret keys (bcrypt_pbkdf.c). */
#ifndef BCRYPT_PBKDF_H
#define BCRYPT_PBKDF_H

#include <stddef.h>
#include <stdint.h>

/* Derives keylen (1..1024) bytes; 0, or -1 on bad arguments. */
int bcrypt_pbkdf(const char *pass, size_t passlen, const uint8_t *salt,
		 size_t saltlen, uint8_t *key, size_t keylen, unsigned rounds);

#endif
