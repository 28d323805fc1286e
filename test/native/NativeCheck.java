import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

import javax.crypto.Cipher;
import javax.crypto.KeyAgreement;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509TrustManager;

import fastrandom.ec.EcCurve;
import fastrandom.ec.EcEngines;
import fastrandom.ec.EcStats;
import fastrandom.jca.JvmProvider;
import fastrandom.jni.CpuRandom;
import fastrandom.jni.EcKey;
import fastrandom.jni.LibCrypto;
import fastrandom.jni.NativeLibrary;
import fastrandom.random.ThreadGenerators;
import fastrandom.rsa.InconsistentKeyException;
import fastrandom.rsa.OpenSslRsaEngine;
import fastrandom.rsa.RsaEngines;
import fastrandom.rsa.RsaPrivateKey;
import fastrandom.rsa.RsaStats;
import fastrandom.tls.openssl.EngineProvider;
import fastrandom.tls.openssl.EngineSettings;
import fastrandom.tls.openssl.OpenSslTls;

/**
 * A JNI library build, checked from plain Java (no JRuby), for the ARM
 * test bed (test/native/aarch64_test.rb): run by the arm64 JVM under qemu
 * on the aarch64 library, and by this machine's JVM on the x86-64 one, so
 * that the two transcripts can be compared.
 *
 *   java -cp fast_random.jar:DIR NativeCheck LIB_DIR KEY_DIR MODE
 *
 * LIB_DIR is the gem's lib/fast_random, a directory or, as in a packaged
 * application, a {@code jar:file:...!/...} URL inside an archive; KEY_DIR holds PKCS#8 and X.509 DER
 * files (rsa, p256, p521, and the peers p256_peer, p521_peer), which MODE
 * "keys" writes with the JDK (LIB_DIR unused), with tls.p12 (keytool's). MODE "engines" uses the library through the JVM-wide provider
 * and the engines, as Java code in a JRuby process would; "cpu" reports
 * only the CPU's random number instructions; "no-libcrypto" expects
 * libcrypto to be missing and everything to fall back to the JDK; "tls"
 * runs the OpenSSL TLS engine (netty-tcnative's library for the platform).
 *
 * Prints one "name value" line per result. Lines whose name starts with
 * "same." hold results that do not depend on the machine (deterministic
 * signatures, decryptions, shared secrets, verdicts): the test requires
 * them equal on both architectures. Ends with "done".
 */
public final class NativeCheck {
    private static final byte[] MESSAGE = "fast_random on every architecture".getBytes(StandardCharsets.US_ASCII);
    private static final String TLS_PASSWORD = "fast_random";

    private NativeCheck() {}

    public static void main(String[] args) throws Exception {
        String libDir = args[0];
        String keyDir = args[1];
        String mode = args[2];
        if (mode.equals("keys")) {
            writeKeys(keyDir);
            return;
        }
        if (mode.equals("tls")) {
            tls(libDir, keyDir);
            print("done", "");
            return;
        }
        if (libDir.startsWith("jar:")) {
            String entry = libDir + "/" + NativeLibrary.platformFile();
            NativeLibrary.setArchived(entry, new java.net.URL(entry));
        } else {
            NativeLibrary.setPath(Paths.get(libDir, NativeLibrary.platformFile()).toAbsolutePath().toString(), false);
        }
        print("platform_file", NativeLibrary.platformFile());
        print("native_library", NativeLibrary.load() ? "loaded" : NativeLibrary.failure());
        print("native_library_copied", NativeLibrary.archived() + " " + NativeLibrary.privateCopy());
        cpu();
        if (mode.equals("engines")) engines(keyDir);
        else if (mode.equals("no-libcrypto")) noLibCrypto(keyDir);
        else if (!mode.equals("cpu")) throw new IllegalArgumentException("unknown mode " + mode);
        print("done", "");
    }

    /** The random number instructions: present, self-tested, and giving values that pass the health check. */
    private static void cpu() {
        for (boolean seed : new boolean[] {false, true}) {
            String name = CpuRandom.name(seed);
            boolean present = seed ? CpuRandom.rdseed() : CpuRandom.rdrand();
            print("cpu." + (seed ? "seed" : "random"), name + " " + (present ? "yes" : "no: " + CpuRandom.unavailableReason(seed)));
            if (!present) continue;
            byte[] sample = new byte[1024];
            if (seed) CpuRandom.rdseed(sample, 0, sample.length);
            else CpuRandom.rdrand(sample, 0, sample.length);
            String verdict = CpuRandom.judge(name, sample);
            print("cpu." + (seed ? "seed" : "random") + "_sample", verdict == null ? "healthy" : verdict);
        }
        print("cpu.absent_as_expected", String.valueOf(CpuRandom.absentAsExpected(CpuRandom.unavailableReason(true))));
        print("cpu.no_instruction_is_quiet", String.valueOf(CpuRandom.absentAsExpected("the CPU has no " + CpuRandom.name(false))));
        print("cpu.rdrand_backend", CpuRandom.rdrandBackend() ? "yes" : "no: " + CpuRandom.rdrandBackendProblem());
        // A generator seeded now: from the OS, mixed with the seed instruction where there is one.
        byte[] bytes = new byte[64];
        ThreadGenerators.forCall().nextBytes(bytes);
        print("generator.entropy", ThreadGenerators.entropySource().name());
        print("generator.distinct_bytes", String.valueOf(distinct(bytes)));
    }

    private static int distinct(byte[] bytes) {
        boolean[] seen = new boolean[256];
        int count = 0;
        for (byte b : bytes) {
            if (!seen[b & 0xff]) count++;
            seen[b & 0xff] = true;
        }
        return count;
    }

    /** The test's keys, made by the JDK: PKCS#8 (name.der) and X.509 (name.pub.der). */
    private static void writeKeys(String dir) throws Exception {
        KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
        rsa.initialize(2048);
        write(dir, "rsa", rsa.generateKeyPair());
        for (String[] curve : new String[][] {{"p256", "secp256r1"}, {"p521", "secp521r1"}}) {
            KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
            ec.initialize(new ECGenParameterSpec(curve[1]));
            write(dir, curve[0], ec.generateKeyPair());
            write(dir, curve[0] + "_peer", ec.generateKeyPair());
        }
        writeTlsKeyStore(dir);
    }

    /** The TLS check's RSA key and self-signed certificate for localhost, made by the JDK's keytool: tls.p12. */
    private static void writeTlsKeyStore(String dir) throws Exception {
        String keytool = Paths.get(System.getProperty("java.home"), "bin", "keytool").toString();
        Process process = new ProcessBuilder(keytool, "-genkeypair", "-keyalg", "RSA", "-keysize", "2048", "-alias", "tls",
                "-dname", "CN=localhost", "-validity", "2", "-storetype", "PKCS12", "-keystore", Paths.get(dir, "tls.p12").toString(),
                "-storepass", TLS_PASSWORD).inheritIO().start();
        if (process.waitFor() != 0) throw new IllegalStateException("keytool failed");
    }

    private static void write(String dir, String name, KeyPair pair) throws Exception {
        Files.write(Paths.get(dir, name + ".der"), pair.getPrivate().getEncoded());
        Files.write(Paths.get(dir, name + ".pub.der"), pair.getPublic().getEncoded());
    }

    private static void engines(String keyDir) throws Exception {
        engineLines();

        KeyPair rsa = keyPair(keyDir, "rsa", "RSA");
        rsa(rsa);
        inconsistentKey((RSAPrivateCrtKey) rsa.getPrivate());
        for (String curve : new String[] {"p256", "p521"}) ec(keyDir, curve);

        print("stats.rsa_openssl", counts(RsaStats.operations(), "openssl"));
        print("stats.rsa_fallbacks", String.valueOf(RsaStats.fallbacks()));
        print("stats.ec_openssl", counts(EcStats.operations(), "openssl"));
        print("stats.ec_fallbacks", String.valueOf(EcStats.fallbacks()));
        print("jca.uninstalled", String.valueOf(JvmProvider.uninstall()));
    }

    private static void rsa(KeyPair key) throws Exception {
        byte[] signature = rsaSignature(key);
        print("same.rsa.jdk_verifies", String.valueOf(verifies("SHA256withRSA", "SunRsaSign", key.getPublic(), MESSAGE, signature)));
        print("same.rsa.verifies", String.valueOf(verifies("SHA256withRSA", null, key.getPublic(), MESSAGE, signature)));
        signature[7] ^= 1;
        print("same.rsa.verifies_tampered", String.valueOf(verifies("SHA256withRSA", null, key.getPublic(), MESSAGE, signature)));

        // Encrypted by the JDK (random padding), decrypted by the library.
        for (String transformation : new String[] {"RSA/ECB/PKCS1Padding", "RSA/ECB/OAEPWithSHA-1AndMGF1Padding"}) {
            Cipher jdk = Cipher.getInstance(transformation, "SunJCE");
            jdk.init(Cipher.ENCRYPT_MODE, key.getPublic());
            byte[] ciphertext = jdk.doFinal(MESSAGE);
            Cipher decrypter = Cipher.getInstance(transformation);
            decrypter.init(Cipher.DECRYPT_MODE, key.getPrivate());
            byte[] plaintext = decrypter.doFinal(ciphertext);
            String name = transformation.contains("OAEP") ? "oaep" : "pkcs1";
            print("rsa.decrypt_provider_" + name, decrypter.getProvider().getName());
            print("same.rsa.decrypts_" + name, String.valueOf(Arrays.equals(plaintext, MESSAGE)));
        }
        // The raw private operation on a fixed input: deterministic.
        Cipher raw = Cipher.getInstance("RSA/ECB/NoPadding");
        raw.init(Cipher.DECRYPT_MODE, key.getPrivate());
        byte[] input = new byte[(((RSAPrivateCrtKey) key.getPrivate()).getModulus().bitLength() + 7) / 8];
        for (int i = 1; i < input.length; i++) input[i] = (byte) (i * 7);
        print("same.rsa.raw_private", hex(raw.doFinal(input)));
    }

    /** A key whose qInv is wrong: the engine refuses it, as stock jruby-openssl does. */
    private static void inconsistentKey(RSAPrivateCrtKey key) {
        RsaPrivateKey bad = new RsaPrivateKey(key.getModulus(), key.getPublicExponent(), key.getPrivateExponent(),
                key.getPrimeP(), key.getPrimeQ(), key.getPrimeExponentP(), key.getPrimeExponentQ(),
                key.getCrtCoefficient().add(BigInteger.ONE), new Object());
        OpenSslRsaEngine engine = (OpenSslRsaEngine) RsaEngines.current();
        try {
            engine.signPkcs1(bad, LibCrypto.Hash.SHA256, MESSAGE, 0, MESSAGE.length, false);
            print("same.rsa.inconsistent_key", "accepted");
        } catch (InconsistentKeyException e) {
            print("same.rsa.inconsistent_key", "refused: " + e.getMessage());
        }
    }

    private static void ec(String keyDir, String curve) throws Exception {
        KeyPair key = keyPair(keyDir, curve, "EC");
        String algorithm = curve.equals("p521") ? "SHA512withECDSA" : "SHA256withECDSA";
        print("ec." + curve + ".served_natively", String.valueOf(EcEngines.current().serves(
                EcCurve.of(((ECPublicKey) key.getPublic()).getParams()))));

        // ECDSA is randomized: the JDK verifies the library's signature, the library the JDK's.
        Signature signer = signing(algorithm, null, key.getPrivate());
        byte[] signature = signer.sign();
        print("ec." + curve + ".sign_provider", signer.getProvider().getName());
        print("same.ec." + curve + ".jdk_verifies", String.valueOf(verifies(algorithm, "SunEC", key.getPublic(), MESSAGE, signature)));

        byte[] jdkSignature = signing(algorithm, "SunEC", key.getPrivate()).sign();
        print("same.ec." + curve + ".verifies_jdk_signature",
                String.valueOf(verifies(algorithm, null, key.getPublic(), MESSAGE, jdkSignature)));
        print("same.ec." + curve + ".verifies_other_message",
                String.valueOf(verifies(algorithm, null, key.getPublic(), Arrays.copyOf(MESSAGE, MESSAGE.length - 1), jdkSignature)));
        if (curve.equals("p521")) {
            // A key that keeps verifying gets a verification table (ec_key.c) after 16 verifications on P-521.
            long before = EcKey.tableVerifications();
            int valid = 0;
            for (int i = 0; i < 40; i++) {
                if (verifies(algorithm, null, key.getPublic(), MESSAGE, jdkSignature)) valid++;
            }
            print("same.ec.p521.repeated_verifications", valid + " of 40");
            print("ec.p521.table_verifications", String.valueOf(EcKey.tableVerifications() - before));
        }

        // ECDH with a fixed peer: the same secret as the JDK's, everywhere.
        PublicKey peer = keyPair(keyDir, curve + "_peer", "EC").getPublic();
        KeyAgreement agreement = KeyAgreement.getInstance("ECDH");
        agreement.init(key.getPrivate());
        agreement.doPhase(peer, true);
        byte[] secret = agreement.generateSecret();
        KeyAgreement jdkAgreement = KeyAgreement.getInstance("ECDH", "SunEC");
        jdkAgreement.init(key.getPrivate());
        jdkAgreement.doPhase(peer, true);
        print("ec." + curve + ".derive_provider", agreement.getProvider().getName());
        print("same.ec." + curve + ".secret", hex(secret));
        print("same.ec." + curve + ".secret_is_jdks", String.valueOf(Arrays.equals(secret, jdkAgreement.generateSecret())));

        // A public point off the curve: refused with an exception, not a crash.
        ECPublicKey pub = (ECPublicKey) key.getPublic();
        ECPoint off = new ECPoint(pub.getW().getAffineX(), pub.getW().getAffineY().add(BigInteger.ONE));
        try {
            PublicKey offCurve = KeyFactory.getInstance("EC", "SunEC").generatePublic(new ECPublicKeySpec(off, pub.getParams()));
            print("same.ec." + curve + ".off_curve_key", "verified " + verifies(algorithm, null, offCurve, MESSAGE, jdkSignature));
        } catch (Exception e) {
            print("same.ec." + curve + ".off_curve_key", "refused " + e.getClass().getName());
        }
    }

    /** Without libcrypto: the library loads, the engines say why not, and the provider hands every call on. */
    private static void noLibCrypto(String keyDir) throws Exception {
        engineLines();
        rsaSignature(keyPair(keyDir, "rsa", "RSA"));
        KeyPair ec = keyPair(keyDir, "p256", "EC");
        byte[] signature = signing("SHA256withECDSA", null, ec.getPrivate()).sign();
        print("same.ec.p256.jdk_verifies", String.valueOf(verifies("SHA256withECDSA", "SunEC", ec.getPublic(), MESSAGE, signature)));
        print("stats.rsa_openssl", counts(RsaStats.operations(), "openssl"));
        print("stats.ec_openssl", counts(EcStats.operations(), "openssl"));
    }

    /** What serves RSA and EC here, and the JVM-wide provider installed (both modes that use the engines). */
    private static void engineLines() {
        print("libcrypto", LibCrypto.load() ? "loaded" : LibCrypto.failure());
        print("libcrypto.opened", LibCrypto.openedDescription());
        print("rsa.engine", RsaEngines.ENGINES.selected());
        print("rsa.openssl_problem", String.valueOf(RsaEngines.ENGINES.unavailableReason("openssl")));
        print("rsa.public_exponentiation", String.valueOf(LibCrypto.publicExponentiation()));
        print("ec.engine", EcEngines.ENGINES.selected());
        print("jca.installed", String.valueOf(JvmProvider.install(null)));
    }

    /** The PKCS#1 v1.5 signature of MESSAGE by the provider the JVM picks (deterministic: the same bytes everywhere), printed. */
    private static byte[] rsaSignature(KeyPair key) throws Exception {
        Signature signer = signing("SHA256withRSA", null, key.getPrivate());
        byte[] signature = signer.sign();
        print("rsa.sign_provider", signer.getProvider().getName());
        print("same.rsa.signature", hex(signature));
        return signature;
    }

    /** A Signature of {@code provider} (null: the one the JVM picks, FastRandom when installed) with MESSAGE in it, ready to sign. */
    private static Signature signing(String algorithm, String provider, PrivateKey key) throws Exception {
        Signature signer = provider == null ? Signature.getInstance(algorithm) : Signature.getInstance(algorithm, provider);
        signer.initSign(key);
        signer.update(MESSAGE);
        return signer;
    }

    /** Whether {@code signature} of {@code message} verifies with {@code key} on {@code provider} (null: the JVM's pick). */
    private static boolean verifies(String algorithm, String provider, PublicKey key, byte[] message, byte[] signature)
            throws Exception {
        Signature verifier = provider == null ? Signature.getInstance(algorithm) : Signature.getInstance(algorithm, provider);
        verifier.initVerify(key);
        verifier.update(message);
        return verifier.verify(signature);
    }

    private static KeyPair keyPair(String dir, String name, String algorithm) throws Exception {
        KeyFactory factory = KeyFactory.getInstance(algorithm);
        PublicKey pub = factory.generatePublic(new X509EncodedKeySpec(Files.readAllBytes(Paths.get(dir, name + ".pub.der"))));
        PrivateKey priv = factory.generatePrivate(new PKCS8EncodedKeySpec(Files.readAllBytes(Paths.get(dir, name + ".der"))));
        return new KeyPair(pub, priv);
    }

    private static String counts(Map<String, long[]> operations, String engine) {
        long[] counts = operations.get(engine);
        long total = 0;
        for (long count : counts) total += count;
        return String.valueOf(total);
    }

    /**
     * The OpenSSL TLS engine (netty-tcnative's BoringSSL, its JNI library
     * for this platform): loaded from LIB_DIR as the gem loads it, then a
     * client and a server engine of its shake hands in memory, TLS 1.3 and
     * 1.2, the server's RSA signature made by fast_random's engine where it
     * is :openssl, and exchange a message.
     */
    private static void tls(String libDir, String keyDir) throws Exception {
        NativeLibrary.setPath(Paths.get(libDir, NativeLibrary.platformFile()).toAbsolutePath().toString(), false);
        print("native_library", NativeLibrary.load() ? "loaded" : NativeLibrary.failure());
        java.util.List<java.net.URL> jars = new java.util.ArrayList<>();
        for (String name : OpenSslTls.jarNames()) jars.add(Paths.get(libDir, OpenSslTls.JAR_DIRECTORY, name).toUri().toURL());
        OpenSslTls.setJars(jars.toArray(new java.net.URL[0]), new java.net.URL[0]);
        OpenSslTls.library().setPath(Paths.get(libDir, OpenSslTls.libraryFile()).toAbsolutePath().toString(), false);
        EngineProvider provider = OpenSslTls.provider();
        print("tls.engine", provider == null ? "none: " + OpenSslTls.problem() : OpenSslTls.version());
        if (provider == null) return;

        KeyStore store = KeyStore.getInstance("PKCS12");
        try (java.io.InputStream in = Files.newInputStream(Paths.get(keyDir, "tls.p12"))) {
            store.load(in, TLS_PASSWORD.toCharArray());
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance("SunX509");
        keys.init(store, TLS_PASSWORD.toCharArray());
        TrustManagerFactory trust = TrustManagerFactory.getInstance("PKIX");
        trust.init(store);
        X509ExtendedKeyManager keyManager = (X509ExtendedKeyManager) keys.getKeyManagers()[0];
        X509TrustManager trustManager = (X509TrustManager) trust.getTrustManagers()[0];
        long signedBefore = RsaStats.operations().get("openssl")[0];
        for (String protocol : new String[] {"TLSv1.3", "TLSv1.2"}) {
            String[] suites = {"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
                "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"};
            SSLEngine server = provider.newContext(new EngineSettings(false, keyManager, trustManager, new String[] {protocol}, suites,
                    null, 0, 0)).newEngine(null, 0);
            SSLEngine client = provider.newContext(new EngineSettings(true, null, trustManager, new String[] {protocol}, suites,
                    null, 0, 0)).newEngine("localhost", 443);
            server.setUseClientMode(false);
            client.setUseClientMode(true);
            client.beginHandshake();
            server.beginHandshake();
            ByteBuffer toServer = ByteBuffer.allocate(1 << 17);
            ByteBuffer toClient = ByteBuffer.allocate(1 << 17);
            ByteBuffer read = ByteBuffer.allocate(1 << 17);
            for (int i = 0; i < 50 && (handshaking(client) || handshaking(server)); i++) {
                step(client, server, toServer, read);
                step(server, client, toClient, read);
            }
            read.clear();
            client.wrap(ByteBuffer.wrap(MESSAGE), toServer);
            toServer.flip();
            server.unwrap(toServer, read);
            toServer.compact();
            read.flip();
            byte[] got = new byte[read.remaining()];
            read.get(got);
            print("tls." + protocol, client.getSession().getProtocol() + " " + client.getSession().getCipherSuite());
            print("same.tls." + protocol + ".message", String.valueOf(Arrays.equals(MESSAGE, got)));
        }
        print("tls.rsa_signed_by_openssl", String.valueOf(RsaStats.operations().get("openssl")[0] - signedBefore));
    }

    private static boolean handshaking(SSLEngine engine) {
        SSLEngineResult.HandshakeStatus status = engine.getHandshakeStatus();
        return status != SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING && status != SSLEngineResult.HandshakeStatus.FINISHED;
    }

    /** What {@code from} has to send, wrapped, and unwrapped by {@code to}. */
    private static void step(SSLEngine from, SSLEngine to, ByteBuffer wire, ByteBuffer read) throws Exception {
        from.wrap(ByteBuffer.allocate(0), wire);
        for (Runnable task; (task = from.getDelegatedTask()) != null; ) task.run();
        wire.flip();
        while (wire.hasRemaining()) {
            read.clear();
            SSLEngineResult result = to.unwrap(wire, read);
            for (Runnable task; (task = to.getDelegatedTask()) != null; ) task.run();
            if (result.bytesConsumed() == 0) break;
        }
        wire.compact();
    }

    private static String hex(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) out.append(String.format(Locale.ROOT, "%02x", b & 0xff));
        return out.toString();
    }

    private static void print(String name, String value) {
        System.out.println(name + " " + value);
        System.out.flush();
    }
}
