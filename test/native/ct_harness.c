/*
 * The constant-time test's driver (test/rsa/constant_time_test.rb builds it
 * with the test build's stand-ins for the IFMA intrinsics and runs it under
 * valgrind). Not part of the library.
 *
 *   ct_harness MODE PATH < keys
 *   ct_harness memcheck ec|ec-unflagged NID < scalars
 * reads keys, one a line: n e d p q dP dQ qInv x, in hex (x: an input below
 * n), and for each runs two private operations (the first also makes
 * blinding factors):
 *   PATH ours      the key as newPrivateKey makes it (our CRT where it takes the key)
 *   PATH openssl   OpenSSL's own RSA private operation (RSA_private_encrypt,
 *                  its blinding on): the baseline
 * MODE memcheck: every private value is marked undefined before the key is
 *   made (so is all derived from it), and errors are reported only inside
 *   the two operations.
 * MODE callgrind: instructions are counted only inside the second operation
 *   (the first draws random candidates, a number that varies).
 * Prints one line a key: "own" or "openssl" (the path taken), and the
 * result in hex, which the test checks against x^d mod n.
 *
 * PATH residue (MODE none): after the two operations, prints "residue N":
 * N words of the stack the operations used still hold a 52-bit limb of p
 * or q (the private operation must leave none).
 *
 * PATH ec: each line is a private scalar d (hex) on curve NID, marked
 * undefined; prints the x coordinate of d G as the EC engine derives a
 * key's public point; ec-unflagged derives it as the engine did before
 * (from a copy of d without BN_FLG_CONSTTIME), for comparison.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>
#include <valgrind/memcheck.h>

#include "libcrypto.h"
#include "modexp_ifma.h"
#include "test_hooks.h"

#define VALUES 8
#define MAX_LINE 65536

static int unhex(const char *hex, unsigned char *out)
{
    int length = (int) strlen(hex) / 2;
    for (int i = 0; i < length; i++) {
        unsigned int byte;
        if (sscanf(hex + 2 * i, "%2x", &byte) != 1) return -1;
        out[i] = (unsigned char) byte;
    }
    return length;
}

/* OpenSSL's own private operation on a key of these values, as MRI runs it. */
static RSA *openssl_key(unsigned char *const values[VALUES], const int lengths[VALUES])
{
    BIGNUM *v[VALUES];
    for (int i = 0; i < VALUES; i++) v[i] = crypto.BN_bin2bn(values[i], lengths[i], NULL);
    RSA *rsa = crypto.RSA_new();
    if (rsa == NULL || !crypto.RSA_set_method(rsa, crypto.RSA_PKCS1_OpenSSL())
        || !crypto.RSA_set0_key(rsa, v[0], v[1], v[2]) || !crypto.RSA_set0_factors(rsa, v[3], v[4])
        || !crypto.RSA_set0_crt_params(rsa, v[5], v[6], v[7])) {
        return NULL;
    }
    return rsa;
}

#define RESIDUE_WORDS (128 * 1024 / 8) /* the stack scanned: twice what a private operation burns */

/*
 * How many words of this frame's area, the stack the private operation's
 * frames used (this is called from the same frame as that operation), hold
 * one of the count secret limbs.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
__attribute__((noinline)) static int stack_residue(const uint64_t *secret, int count)
{
    volatile uint64_t area[RESIDUE_WORDS];
    int found = 0;
    for (int i = 0; i < RESIDUE_WORDS; i++) {
        uint64_t word = area[i]; /* left by the calls before: read on purpose */
        for (int j = 0; j < count; j++) found += word == secret[j] && secret[j] != 0;
    }
    return found;
}
#pragma GCC diagnostic pop

/* The 52-bit limbs of big-endian bytes (as our CRT holds p and q). */
static int limbs_of(uint64_t *limbs, const unsigned char *bytes, int length)
{
    int count = (8 * length + 51) / 52;
    ifma_from_bytes(limbs, count, bytes, length);
    return count;
}

/* The ec paths: d G for each scalar, with d undefined. */
static int public_points(int nid, int unflagged)
{
    static char line[MAX_LINE];
    unsigned char d[MAX_MODULUS_BYTES], x[MAX_MODULUS_BYTES];
    while (fgets(line, sizeof line, stdin) != NULL) {
        line[strcspn(line, " \n")] = 0;
        int length = unhex(line, d);
        int x_length = length; /* the curves' fields and orders have one length */
        if (length <= 0) return 2;
        VALGRIND_MAKE_MEM_UNDEFINED(d, length);
        VALGRIND_ENABLE_ERROR_REPORTING;
        int ok = test_ec_public_point(nid, d, length, unflagged, x, x_length);
        VALGRIND_DISABLE_ERROR_REPORTING;
        VALGRIND_MAKE_MEM_DEFINED(x, x_length); /* the public point is public */
        if (!ok) {
            fprintf(stderr, "the public point failed\n");
            return 1;
        }
        printf("ec ");
        for (int i = 0; i < x_length; i++) printf("%02x", x[i]);
        printf("\n");
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && (strcmp(argv[2], "ec") == 0 || strcmp(argv[2], "ec-unflagged") == 0)) {
        const char *failure = libcrypto_open();
        if (failure != NULL) {
            fprintf(stderr, "%s\n", failure);
            return 2;
        }
        VALGRIND_DISABLE_ERROR_REPORTING;
        int status = public_points(atoi(argv[3]), strcmp(argv[2], "ec-unflagged") == 0);
        VALGRIND_ENABLE_ERROR_REPORTING;
        return status;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: ct_harness memcheck|callgrind ours|openssl < keys\n");
        return 2;
    }
    int memcheck = strcmp(argv[1], "memcheck") == 0, residue = strcmp(argv[2], "residue") == 0;
    int ours = residue || strcmp(argv[2], "ours") == 0;
    const char *failure = libcrypto_open();
    if (failure != NULL) {
        fprintf(stderr, "%s\n", failure);
        return 2;
    }
    /* What the JVM side passes from FAST_RANDOM_TEST_OPENSSL_VERSION (fastrandom.Setting). */
    const char *pretend = getenv("FAST_RANDOM_TEST_OPENSSL_VERSION");
    if (pretend != NULL && *pretend != 0) test_pretend_openssl_version(strtoul(pretend, NULL, 16));
    static char line[MAX_LINE];
    static unsigned char buffers[VALUES + 1][MAX_MODULUS_BYTES];
    unsigned char out[MAX_MODULUS_BYTES];
    while (fgets(line, sizeof line, stdin) != NULL) {
        unsigned char *values[VALUES];
        int lengths[VALUES + 1];
        char *field = strtok(line, " \n");
        for (int i = 0; i <= VALUES; i++, field = strtok(NULL, " \n")) {
            if (field == NULL || (lengths[i] = unhex(field, buffers[i])) < 0) {
                fprintf(stderr, "bad key line\n");
                return 2;
            }
            if (i < VALUES) values[i] = buffers[i];
        }
        int bytes = lengths[0];
        unsigned char *x = buffers[VALUES];
        if (lengths[VALUES] != bytes) {
            fprintf(stderr, "x must be as long as n\n");
            return 2;
        }
        if (memcheck) {
            VALGRIND_DISABLE_ERROR_REPORTING;
            for (int i = 2; i < VALUES; i++) VALGRIND_MAKE_MEM_UNDEFINED(values[i], lengths[i]);
        }
        struct rsa_key *key = NULL;
        RSA *rsa = NULL;
        const char *why = "OpenSSL refused the key";
        if (ours) key = test_rsa_key_new((const unsigned char *const *) values, lengths, &why);
        else rsa = openssl_key(values, lengths);
        if (key == NULL && rsa == NULL) {
            fprintf(stderr, "key: %s\n", why);
            return 2;
        }
        /* The first operation makes blinding factors: memcheck sees it, callgrind does not (it draws at random). */
        if (memcheck) VALGRIND_ENABLE_ERROR_REPORTING;
        int ok = ours ? test_rsa_private(key, x, out)
                      : crypto.RSA_private_encrypt(bytes, x, out, rsa, RSA_NO_PADDING) == bytes;
        CALLGRIND_START_INSTRUMENTATION;
        CALLGRIND_TOGGLE_COLLECT;
        ok = ok && (ours ? test_rsa_private(key, x, out)
                         : crypto.RSA_private_encrypt(bytes, x, out, rsa, RSA_NO_PADDING) == bytes);
        CALLGRIND_TOGGLE_COLLECT;
        CALLGRIND_STOP_INSTRUMENTATION;
        if (memcheck) {
            VALGRIND_DISABLE_ERROR_REPORTING;
            VALGRIND_MAKE_MEM_DEFINED(out, bytes); /* the result is public */
        }
        if (!ok) {
            fprintf(stderr, "the private operation failed\n");
            return 1;
        }
        if (residue) {
            uint64_t secret[2 * IFMA_MAX_LIMBS];
            int count = limbs_of(secret, values[3], lengths[3]);
            count += limbs_of(secret + count, values[4], lengths[4]);
            printf("residue %d\n", stack_residue(secret, count));
        }
        printf("%s ", ours && test_rsa_own_crt(key) ? "own" : "openssl");
        for (int i = 0; i < bytes; i++) printf("%02x", out[i]);
        printf("\n");
        if (ours) test_rsa_key_free(key);
        else crypto.RSA_free(rsa);
        if (memcheck) VALGRIND_ENABLE_ERROR_REPORTING;
    }
    return 0;
}
