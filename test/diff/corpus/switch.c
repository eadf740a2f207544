#include "corpus.h"

/* Dense switch: a jump table at -O2. */
long classify(int v)
{
	switch (v) {
	case 0: return 11;
	case 1: return 23;
	case 2: return 37;
	case 3: return 41;
	case 4: return 53;
	case 5: return 67;
	case 6: return 71;
	case 7: return 83;
	case 8: return 97;
	case 9: return 101;
	case 10: return 113;
	default: return -1;
	}
}
