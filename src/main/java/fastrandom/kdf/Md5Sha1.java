package fastrandom.kdf;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * OpenSSL's MD5-SHA1: MD5 and SHA-1 of the same input, one after the other
 * (36 bytes; TLS 1.0's handshake hash), which PBKDF2 in OpenSSL, and so in
 * MRI, takes as a digest. The JDK has no such digest; HMAC over it uses a
 * block of 64 bytes, as both parts have.
 */
final class Md5Sha1 extends MessageDigest implements Cloneable {
    private MessageDigest md5;
    private MessageDigest sha1;

    Md5Sha1() {
        super("MD5-SHA1");
        try {
            md5 = MessageDigest.getInstance("MD5");
            sha1 = MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no " + e.getMessage(), e);
        }
    }

    @Override
    protected void engineUpdate(byte input) {
        md5.update(input);
        sha1.update(input);
    }

    @Override
    protected void engineUpdate(byte[] input, int offset, int length) {
        md5.update(input, offset, length);
        sha1.update(input, offset, length);
    }

    @Override
    protected byte[] engineDigest() {
        byte[] out = new byte[36];
        System.arraycopy(md5.digest(), 0, out, 0, 16);
        System.arraycopy(sha1.digest(), 0, out, 16, 20);
        return out;
    }

    @Override
    protected int engineGetDigestLength() {
        return 36;
    }

    @Override
    protected void engineReset() {
        md5.reset();
        sha1.reset();
    }

    @Override
    public Object clone() throws CloneNotSupportedException {
        Md5Sha1 copy = (Md5Sha1) super.clone();
        copy.md5 = (MessageDigest) md5.clone();
        copy.sha1 = (MessageDigest) sha1.clone();
        return copy;
    }
}
