package fastrandom.rsa.jca;

import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.crypto.Digest;
import org.bouncycastle.crypto.encodings.PKCS1Encoding;
import org.bouncycastle.jcajce.provider.asymmetric.rsa.DigestSignatureSpi;

/**
 * An RSA PKCS#1 v1.5 signature (BC's own SPI: DigestInfo encoding, padding,
 * verification) over {@link RsaBlockEngine}, for one digest.
 */
final class EngineSignature extends DigestSignatureSpi {
    /** With a DigestInfo for {@code digestOid} (SHA256withRSA and the like). */
    EngineSignature(ASN1ObjectIdentifier digestOid, Digest digest) {
        super(digestOid, digest, new PKCS1Encoding(new RsaBlockEngine()));
    }

    /** Without DigestInfo (NONEwithRSA: the data is signed as given). */
    EngineSignature(Digest digest) {
        super(digest, new PKCS1Encoding(new RsaBlockEngine()));
    }
}
