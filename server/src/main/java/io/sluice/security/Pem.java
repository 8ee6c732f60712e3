package io.sluice.security;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A TLS server context from PEM files, the shape of Neo4j's SSL policies: a certificate chain
 * ({@code public.crt}, X.509 PEM) and an unencrypted PKCS#8 private key ({@code private.key},
 * {@code BEGIN PRIVATE KEY}; RSA or EC). Errors name the file and what is wrong with it.
 */
public final class Pem {
    private static final Pattern BLOCK = Pattern.compile(
            "-----BEGIN ([A-Z ]+)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----");

    private Pem() {}

    public static SSLContext serverContext(Path certificate, Path privateKey) {
        try {
            List<Certificate> chain = certificates(certificate);
            PrivateKey key = privateKey(privateKey);
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            char[] none = new char[0];
            store.setKeyEntry("sluice", key, none, chain.toArray(Certificate[]::new));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(store, none);
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(kmf.getKeyManagers(), null, null);
            return tls;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("cannot use the certificate " + certificate + " with the key "
                    + privateKey + ": " + e.getMessage(), e);
        }
    }

    static List<Certificate> certificates(Path file) throws IOException, GeneralSecurityException {
        CertificateFactory x509 = CertificateFactory.getInstance("X.509");
        List<Certificate> out = new ArrayList<>();
        for (byte[] der : blocks(file, "CERTIFICATE")) {
            out.add(x509.generateCertificate(new ByteArrayInputStream(der)));
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(file + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
        }
        return out;
    }

    static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
        List<byte[]> keys = blocks(file, "PRIVATE KEY");
        if (keys.size() != 1) {
            throw new IllegalArgumentException(file + " must hold one unencrypted PKCS#8 key (-----BEGIN PRIVATE KEY-----);"
                    + " convert others with: openssl pkcs8 -topk8 -nocrypt -in KEY -out " + file.getFileName());
        }
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(keys.getFirst());
        for (String algorithm : List.of("RSA", "EC", "Ed25519")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException notThisOne) {
                // try the next
            }
        }
        throw new IllegalArgumentException(file + " holds a key that is neither RSA, EC nor Ed25519");
    }

    private static List<byte[]> blocks(Path file, String type) throws IOException {
        String text = Files.readString(file, StandardCharsets.US_ASCII);
        List<byte[]> out = new ArrayList<>();
        Matcher m = BLOCK.matcher(text);
        while (m.find()) {
            if (m.group(1).equals(type)) {
                out.add(Base64.getMimeDecoder().decode(m.group(2)));
            }
        }
        return out;
    }
}
