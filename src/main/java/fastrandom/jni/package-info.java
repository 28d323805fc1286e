/**
 * The native layer: only what binds fast_random's C library
 * (ext/fast_random_native) through JNI. {@link fastrandom.jni.NativeLibrary}
 * finds and loads it (a private copy per class loader after the first, and
 * from inside a packaged application's archive, made by
 * {@link fastrandom.jni.LibraryCopy}, which serves the bundled libgmp too, in
 * the directory {@link fastrandom.jni.PrivateDirectory} resolves and checks),
 * {@link fastrandom.jni.CpuRandom} is RDRAND/RDSEED (RNDR/RNDRRS on aarch64), {@link
 * fastrandom.jni.LibCrypto} and {@link fastrandom.jni.EcKey} are RSA and EC
 * keys in OpenSSL's libcrypto. Each class but LibraryCopy and PrivateDirectory pairs with one C file. Imports
 * nothing from the rest of fast_random but {@link fastrandom.Setting} and {@link fastrandom.Faults}.
 */
package fastrandom.jni;
