/* Fixed-width types for the freestanding core (no libc headers). */
#ifndef LK_TYPES_H
#define LK_TYPES_H

typedef unsigned char lk_u8;
typedef unsigned short lk_u16;
typedef unsigned int lk_u32;
typedef unsigned long long lk_u64;
typedef signed char lk_i8;
typedef short lk_i16;
typedef int lk_i32;
typedef long long lk_i64;
typedef __SIZE_TYPE__ lk_size;
typedef __UINTPTR_TYPE__ lk_uptr;

#define LK_NULL ((void *)0)

_Static_assert(sizeof(lk_u64) == 8, "lk_u64");
_Static_assert(sizeof(lk_u32) == 4, "lk_u32");
_Static_assert(sizeof(lk_u16) == 2, "lk_u16");

#endif
