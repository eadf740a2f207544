/*
 * A gap.o like makegap.sh's, which `linkkit create --openbsd` must leave
 * out (the kit has its own gaps): it also defines `start`, so including
 * it would fail the link with a duplicate symbol.
 */
__attribute__((used)) static const char gap_pad[4096] = { 0xcc };
void start(void);
void start(void)
{
}
