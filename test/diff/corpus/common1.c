/* Tentative definitions: COMMON with -fcommon. */
char shared_buf[16];
int shared_count;
long common_only_here[7];
