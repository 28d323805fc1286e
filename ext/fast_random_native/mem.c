/*
 * Wiping secrets and comparing them in constant time (see mem.h).
 */
#include "mem.h"

void wipe(void *buffer, size_t length)
{
    volatile unsigned char *p = buffer;
    while (length--) *p++ = 0;
}

int same_bytes(const unsigned char *a, const unsigned char *b, size_t length)
{
    unsigned char diff = 0;
    for (size_t i = 0; i < length; i++) diff |= a[i] ^ b[i];
    return diff == 0;
}
