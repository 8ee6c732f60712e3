package io.sluice.support;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for 127.0.0.1 and localhost, made by the JDK's own keytool (no openssl needed) and
 * written as the PEM files sluice and Neo4j take: {@code public.crt} and an unencrypted PKCS#8 {@code private.key}.
 */
public record TestCertificates(Path certificate, Path privateKey, Path keyStore, char[] password) {

    public static TestCertificates create(Path dir) throws Exception {
        Files.createDirectories(dir);
        Path store = dir.resolve("test.p12");
        char[] password = "changeit".toCharArray();
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "sluice", "-keyalg", "RSA",
                "-keysize", "2048", "-validity", "2", "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost",
                "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", new String(password),
                "-keypass", new String(password)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("keytool failed: " + out);
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, password);
        }
        PrivateKey key = (PrivateKey) ks.getKey("sluice", password);
        Certificate cert = ks.getCertificate("sluice");
        Path crt = Files.writeString(dir.resolve("public.crt"), pem("CERTIFICATE", cert.getEncoded()));
        Path pk = Files.writeString(dir.resolve("private.key"), pem("PRIVATE KEY", key.getEncoded()));
        return new TestCertificates(crt, pk, store, password);
    }

    private static String pem(String type, byte[] der) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
    }

    /** A client trust store holding just this certificate. */
    public KeyStore trustStore() throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        try (InputStream in = Files.newInputStream(certificate)) {
            ks.setCertificateEntry("sluice", java.security.cert.CertificateFactory.getInstance("X.509")
                    .generateCertificate(in));
        }
        return ks;
    }

}
