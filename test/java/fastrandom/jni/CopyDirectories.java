package fastrandom.jni;

import java.nio.file.Paths;

/**
 * Tests: {@link PrivateDirectory#resolve} on any path, whatever
 * fast_random.native.dir says (test/java, {@code rake test_builds}).
 */
public final class CopyDirectories {
    private CopyDirectories() {}

    /** The real path {@code path} resolves to, or "refused: WHY". */
    public static String resolve(String path) throws java.io.IOException {
        try {
            return PrivateDirectory.resolve(Paths.get(path)).toString();
        } catch (PrivateDirectory.Refused e) {
            return "refused: " + e.getMessage();
        }
    }
}
