/*
 * What only the test build of the library has (built with
 * -DFAST_RANDOM_TEST_BUILD into tmp/, never shipped; see the Rakefile):
 * fault injection, and the marks the constant-time test reads under
 * valgrind. In the shipped library every macro here is empty (or passes
 * its value through) and the functions do not exist: test_hooks.c, which
 * holds most of them and every JNI method of
 * fastrandom.jni.NativeTestHooks, is compiled into the test builds only;
 * the test_rsa_* and test_ec_* ways in live beside the code they reach
 * (libcrypto_rsa.c, ec_key.c), under #ifdef FAST_RANDOM_TEST_BUILD.
 */
#ifndef FAST_RANDOM_TEST_HOOKS_H
#define FAST_RANDOM_TEST_HOOKS_H

/* The faults tests can inject, each a countdown shared by threads. */
enum test_fault {
    FAULT_CRT_RESULT,      /* a CRT half's result corrupted, as a fault would */
    FAULT_BLINDING_BATCH,  /* a batch of blinding factors fails, as when OpenSSL's DRBG does */
    FAULT_EC_TABLE,        /* an EC verification table cannot be built, as when out of memory */
    FAULT_EC_TABLE_VERIFY, /* a verification on a table fails (an OpenSSL call in it, say out of memory) */
    FAULT_EC_GENERATE,     /* an EC key generation fails, as when OpenSSL's random generator does */
    FAULT_XDH,             /* an X25519/X448 generation or agreement fails, as when OpenSSL runs out of memory */
    FAULT_COUNT            /* how many there are */
};

#ifdef FAST_RANDOM_TEST_BUILD
#include <valgrind/memcheck.h>

/* The next `count` times `fault` is reached, it happens (0 stops it). */
void test_fault_set(enum test_fault fault, int count);

/* 1 (counting one down) while injections of `fault` are left, else 0. */
int test_fault_take(enum test_fault fault);

/*
 * The constant-time test (test/native/ct_harness.c) runs under memcheck:
 * SECRET marks memory as undefined, so any branch or address that depends
 * on it is reported; DECLASSIFY marks a value that is public by design
 * (the outcome of the fault check, a rejected random candidate) as defined.
 * Outside valgrind both are a few instructions that do nothing.
 */
#define SECRET(address, length) ((void) VALGRIND_MAKE_MEM_UNDEFINED((address), (length)))
#define DECLASSIFY(address, length) ((void) VALGRIND_MAKE_MEM_DEFINED((address), (length)))

/* 1 when an injection of fault is due (test_fault_take); always 0 when shipped. */
#define TEST_FAULT(fault) test_fault_take(fault)

/* Whether the EC engine is to give wrong answers on curve nid (tests of the known-answer test). */
int test_ec_wrong_answers(int nid);

/* Whether the EC engine is to give wrong answers on curve nid: test_ec_wrong_answers, 0 when shipped. */
#define TEST_EC_WRONG_ANSWERS(nid) test_ec_wrong_answers(nid)

/*
 * After how many verifications an EC key earns a verification table, given
 * the default for its curve (after, 0 for never): the default, or what
 * NativeTestHooks.verifyTables set for curves that take tables.
 */
int test_table_after(int after);

/* test_table_after; the default itself when shipped. */
#define TEST_TABLE_AFTER(after) test_table_after(after)

/* The constant-time test's way to the private operation (libcrypto_rsa.c), without the JVM. */
struct rsa_key;

/* A private key from big-endian n, e, d, p, q, dP, dQ, qInv, as newPrivateKey makes it; NULL with *why. */
struct rsa_key *test_rsa_key_new(const unsigned char *const values[8], const int lengths[8], const char **why);

/* out = in^d mod n by the key's private operation (in and out the modulus's length); 1 on success. */
int test_rsa_private(struct rsa_key *key, const unsigned char *in, unsigned char *out);

/* Whether the key's private operation is fast_random's CRT (else OpenSSL's). */
int test_rsa_own_crt(const struct rsa_key *key);

/* Frees a key from test_rsa_key_new. */
void test_rsa_key_free(struct rsa_key *key);

/* libcrypto_version_num reports `version` from now on (0: libcrypto's own); FAST_RANDOM_TEST_OPENSSL_VERSION. */
void test_pretend_openssl_version(unsigned long version);

/*
 * The x coordinate of d G on curve nid (out_length bytes), as the EC engine
 * derives a public point, or, unflagged, as it did before (from a copy of d
 * without BN_FLG_CONSTTIME); 1 on success.
 */
int test_ec_public_point(int nid, const unsigned char *d, int d_length, int unflagged, unsigned char *out,
                         int out_length);
#else
#define SECRET(address, length) ((void) 0)     /* nothing to mark outside the test build */
#define DECLASSIFY(address, length) ((void) 0) /* nothing to mark outside the test build */
#define TEST_FAULT(fault) 0                    /* no fault is ever injected */
#define TEST_EC_WRONG_ANSWERS(nid) 0           /* EC answers are never corrupted */
#define TEST_TABLE_AFTER(after) (after)        /* the curve's default */
#endif

#endif
