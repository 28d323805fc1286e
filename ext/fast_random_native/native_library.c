/*
 * Keeps a library loaded for the life of the process (see
 * fastrandom.jni.NativeLibrary#keepLoaded): the TLS engine's netty-tcnative,
 * whose static BoringSSL leaves pthread thread-local destructors behind
 * that a thread runs when it ends, so its code must stay mapped after the
 * JVM unloads it with its class loader.
 */
#include "dl.h"

#include <jni.h>

/* Marks the loaded library at |path| never to be unmapped; JNI_TRUE when it was loaded and is now so. */
JNIEXPORT jboolean JNICALL Java_fastrandom_jni_NativeLibrary_keepLoaded0(JNIEnv *env, jclass cls, jstring path) {
    (void)cls;
    const char *name = (*env)->GetStringUTFChars(env, path, NULL);
    if (name == NULL) return JNI_FALSE; /* OutOfMemoryError pending */
    /* RTLD_NOLOAD: only one already loaded (by the JVM), found by its name; RTLD_NODELETE: never unmapped. */
    void *handle = dlopen(name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    (*env)->ReleaseStringUTFChars(env, path, name);
    if (handle == NULL) return JNI_FALSE;
    dlclose(handle); /* the reference this call took; the JVM's own stays, and the mapping is kept for good */
    return JNI_TRUE;
}
