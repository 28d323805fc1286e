#ifndef FAST_RANDOM_DL_H
#define FAST_RANDOM_DL_H

/* The dynamic linker's calls, bound to the oldest glibc the library supports. */
#include <dlfcn.h>

/*
 * dlopen, dlsym, dlerror and dlclose at the symbol versions they had before
 * glibc 2.34 moved them from libdl into libc (which keeps those versions
 * for old programs), so that the library built on Debian 12 loads on glibc
 * 2.17 and later; the Rakefile refuses a build that needs a newer glibc.
 * Before 2.34 they are libdl.so.2's, which the library names as needed.
 */
#if defined(__x86_64__)
#define LIBDL_VERSION "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define LIBDL_VERSION "GLIBC_2.17"
#endif
#ifdef LIBDL_VERSION
__asm__(".symver dlopen,dlopen@" LIBDL_VERSION);
__asm__(".symver dlsym,dlsym@" LIBDL_VERSION);
__asm__(".symver dlerror,dlerror@" LIBDL_VERSION);
__asm__(".symver dlclose,dlclose@" LIBDL_VERSION);
#endif

#endif /* FAST_RANDOM_DL_H */
