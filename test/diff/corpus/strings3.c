#include "corpus.h"

static const char *const msgs[] = { "world", "foobar", "a longer message that goes on", "ar", "" };

const char *message_of(int i)
{
	return msgs[i % 5];
}
const char *empty(void) { return ""; }
