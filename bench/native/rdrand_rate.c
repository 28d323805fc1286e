/*
 * The raw RDRAND rate of this machine: a tight loop of rdrand64 (retrying
 * as fast_random does), for about a second, printed as bytes per second.
 * bench/ compiles and runs it beside the Ruby benchmarks, so the :rdrand
 * backend's random_bytes(4096) can be compared with the hardware's own speed
 * in the same run.
 *
 *   gcc -O2 -o rdrand_rate bench/native/rdrand_rate.c && ./rdrand_rate
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

__attribute__((target("rdrnd")))
static int rdrand64(unsigned long long *value)
{
    for (int i = 0; i < 10; i++)
        if (_rdrand64_step(value)) return 1;
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
    unsigned long long value, sink = 0, calls = 0;
    double start = now(), elapsed;
    do {
        for (int i = 0; i < 4096; i++) {
            if (!rdrand64(&value)) { fprintf(stderr, "RDRAND failed\n"); return 1; }
            sink ^= value;
        }
        calls += 4096;
        elapsed = now() - start;
    } while (elapsed < 1.0);
    printf("{\"rdrand64_calls_per_second\": %.0f, \"bytes_per_second\": %.0f, \"ns_per_call\": %.2f, \"sink\": %llu}\n",
           calls / elapsed, calls * 8 / elapsed, elapsed * 1e9 / calls, sink & 1);
    return 0;
}
