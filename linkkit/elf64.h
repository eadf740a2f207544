/*
 * The few ELF64 definitions the core needs. The core is freestanding and
 * cannot include <elf.h>; names follow the ELF specification with an LK_
 * prefix so they never clash with a host's <elf.h>.
 */
#ifndef LK_ELF64_H
#define LK_ELF64_H

#include "lk_types.h"

struct lk_elf64_ehdr {
	lk_u8 e_ident[16];
	lk_u16 e_type;
	lk_u16 e_machine;
	lk_u32 e_version;
	lk_u64 e_entry;
	lk_u64 e_phoff;
	lk_u64 e_shoff;
	lk_u32 e_flags;
	lk_u16 e_ehsize;
	lk_u16 e_phentsize;
	lk_u16 e_phnum;
	lk_u16 e_shentsize;
	lk_u16 e_shnum;
	lk_u16 e_shstrndx;
};

struct lk_elf64_phdr {
	lk_u32 p_type;
	lk_u32 p_flags;
	lk_u64 p_offset;
	lk_u64 p_vaddr;
	lk_u64 p_paddr;
	lk_u64 p_filesz;
	lk_u64 p_memsz;
	lk_u64 p_align;
};

struct lk_elf64_shdr {
	lk_u32 sh_name;
	lk_u32 sh_type;
	lk_u64 sh_flags;
	lk_u64 sh_addr;
	lk_u64 sh_offset;
	lk_u64 sh_size;
	lk_u32 sh_link;
	lk_u32 sh_info;
	lk_u64 sh_addralign;
	lk_u64 sh_entsize;
};

struct lk_elf64_sym {
	lk_u32 st_name;
	lk_u8 st_info;
	lk_u8 st_other;
	lk_u16 st_shndx;
	lk_u64 st_value;
	lk_u64 st_size;
};

_Static_assert(sizeof(struct lk_elf64_ehdr) == 64, "Elf64_Ehdr");
_Static_assert(sizeof(struct lk_elf64_phdr) == 56, "Elf64_Phdr");
_Static_assert(sizeof(struct lk_elf64_shdr) == 64, "Elf64_Shdr");
_Static_assert(sizeof(struct lk_elf64_sym) == 24, "Elf64_Sym");

#define LK_ELFCLASS64 2
#define LK_ELFDATA2LSB 1
#define LK_EV_CURRENT 1
#define LK_ET_EXEC 2
#define LK_EM_X86_64 62

#define LK_PT_NULL 0
#define LK_PT_LOAD 1
#define LK_PF_X 1u
#define LK_PF_W 2u
#define LK_PF_R 4u

#define LK_SHT_NULL 0
#define LK_SHT_PROGBITS 1
#define LK_SHT_SYMTAB 2
#define LK_SHT_STRTAB 3
#define LK_SHT_NOBITS 8
#define LK_SHF_WRITE 0x1u
#define LK_SHF_ALLOC 0x2u
#define LK_SHF_EXECINSTR 0x4u
#define LK_SHN_UNDEF 0
#define LK_SHN_ABS 0xfff1u

#define LK_STB_LOCAL 0
#define LK_STB_GLOBAL 1
#define LK_STB_WEAK 2
#define LK_STV_INTERNAL 1
#define LK_STV_HIDDEN 2

#define LK_R_X86_64_NONE 0
#define LK_R_X86_64_64 1
#define LK_R_X86_64_PC32 2
#define LK_R_X86_64_32 10
#define LK_R_X86_64_32S 11
#define LK_R_X86_64_16 12
#define LK_R_X86_64_PC16 13
#define LK_R_X86_64_8 14
#define LK_R_X86_64_PC8 15
#define LK_R_X86_64_PC64 24

#endif
