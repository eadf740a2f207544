/*
 * A small stack machine whose dense opcode switch gcc -O2 compiles into a
 * jump table (.rodata entries with 64-bit absolute relocations into
 * .text, reached through a 32S-relocated table base). The check compares
 * its results with the same formula computed directly.
 */
#include "demo.h"

DEMO_OBJECT(jumptab)
DEMO_IDENT(jumptab)

enum {
	OP_HALT,
	OP_PUSHX,
	OP_PUSHI,
	OP_ADD,
	OP_SUB,
	OP_MUL,
	OP_XOR,
	OP_AND,
	OP_OR,
	OP_SHL,
	OP_SHR,
	OP_DUP,
	OP_SWAP,
	OP_DROP,
	OP_NEG,
	OP_NOT,
	OP_INC,
	OP_DEC,
	OP_MIN,
	OP_MAX,
};

#define JT_STACK 16

static int jumptab_binop(u8 op, u64 a, u64 b, u64 *r)
{
	switch (op) {
	case OP_ADD:
		*r = a + b;
		break;
	case OP_SUB:
		*r = a - b;
		break;
	case OP_MUL:
		*r = a * b;
		break;
	case OP_XOR:
		*r = a ^ b;
		break;
	case OP_AND:
		*r = a & b;
		break;
	case OP_OR:
		*r = a | b;
		break;
	case OP_SHL:
		*r = a << (b & 63);
		break;
	case OP_SHR:
		*r = a >> (b & 63);
		break;
	case OP_MIN:
		*r = a < b ? a : b;
		break;
	case OP_MAX:
		*r = a > b ? a : b;
		break;
	default:
		return -1;
	}
	return 0;
}

/* Returns 0 and the top of stack, or -1 on a malformed program. */
int jumptab_eval(const u8 *prog, size_t n, u64 x, u64 *out)
{
	u64 st[JT_STACK], t;
	size_t pc = 0;
	int sp = 0;

	while (pc < n) {
		u8 op = prog[pc++];

		switch (op) {
		case OP_HALT:
			pc = n;
			break;
		case OP_PUSHX:
			if (sp == JT_STACK)
				return -1;
			st[sp++] = x;
			break;
		case OP_PUSHI:
			if (sp == JT_STACK || pc >= n)
				return -1;
			st[sp++] = prog[pc++];
			break;
		case OP_DUP:
			if (!sp || sp == JT_STACK)
				return -1;
			st[sp] = st[sp - 1];
			sp++;
			break;
		case OP_SWAP:
			if (sp < 2)
				return -1;
			t = st[sp - 1];
			st[sp - 1] = st[sp - 2];
			st[sp - 2] = t;
			break;
		case OP_DROP:
			if (!sp)
				return -1;
			sp--;
			break;
		case OP_NEG:
			if (!sp)
				return -1;
			st[sp - 1] = -st[sp - 1];
			break;
		case OP_NOT:
			if (!sp)
				return -1;
			st[sp - 1] = ~st[sp - 1];
			break;
		case OP_INC:
			if (!sp)
				return -1;
			st[sp - 1]++;
			break;
		case OP_DEC:
			if (!sp)
				return -1;
			st[sp - 1]--;
			break;
		case OP_ADD:
		case OP_SUB:
		case OP_MUL:
		case OP_XOR:
		case OP_AND:
		case OP_OR:
		case OP_SHL:
		case OP_SHR:
		case OP_MIN:
		case OP_MAX:
			if (sp < 2 ||
			    jumptab_binop(op, st[sp - 2], st[sp - 1], &t))
				return -1;
			st[--sp - 1] = t;
			break;
		default:
			return -1;
		}
	}
	if (sp < 1)
		return -1;
	*out = st[sp - 1];
	return 0;
}

/* f(x) = max(((x*3 + 7) ^ (x << 2)) - (x >> 1), ~x & 0xff) + 1 */
static u64 jumptab_direct(u64 x)
{
	u64 a = ((x * 3 + 7) ^ (x << 2)) - (x >> 1), b = ~x & 0xff;

	return (a > b ? a : b) + 1;
}

static const u8 jumptab_prog[] = {
	OP_PUSHX, OP_PUSHI, 3,	    OP_MUL,   OP_PUSHI, 7,	  OP_ADD,
	OP_PUSHX, OP_PUSHI, 2,	    OP_SHL,   OP_XOR,	OP_PUSHX, OP_PUSHI,
	1,	  OP_SHR,   OP_SUB, OP_PUSHX, OP_NOT,	OP_PUSHI, 0xff,
	OP_AND,	  OP_MAX,   OP_DUP, OP_DROP,  OP_PUSHI, 1,	  OP_SWAP,
	OP_ADD,	  OP_NEG,   OP_NEG, OP_INC,   OP_DEC,	OP_HALT,
};

static int jumptab_check(char *detail, size_t cap)
{
	u64 x, got;

	for (x = 0; x < 300; x += 7) {
		if (jumptab_eval(jumptab_prog, sizeof(jumptab_prog), x, &got) ||
		    got != jumptab_direct(x)) {
			ksnprintf(detail, cap, "f(%lu) wrong", x);
			return -1;
		}
	}
	return 0;
}
DEMO_CHECK(CK_JUMPTAB, "jumptab", jumptab_check);
