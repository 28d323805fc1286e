/*
 * Memory that holds secrets: wiping it, and comparing it in constant time.
 * Used by everything that touches a private value.
 */
#ifndef FAST_RANDOM_MEM_H
#define FAST_RANDOM_MEM_H

#include <stddef.h>

/* Overwrites a buffer in a way the compiler cannot drop. */
void wipe(void *buffer, size_t length);

/* Constant-time equality of two byte strings of the same length: 1 when equal. */
int same_bytes(const unsigned char *a, const unsigned char *b, size_t length);

#endif
