package fastrandom.jni;

import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Paths;

/**
 * fast_random's JNI library, loaded at most once per class loader, the
 * first time something needs it (never when the gem is required). The Ruby
 * layer tells us where the gem keeps it: a file, loaded from there, never
 * extracted to a temporary directory, so read-only and noexec /tmp do not
 * matter; or an entry of a jar or war (a packaged application: Warbler,
 * jruby-mains, a fat jar), loaded from a private copy ({@link LibraryCopy})
 * checked against the SHA-256 the jar records for it.
 *
 * <p>Every JRuby runtime loads fast_random's jar through a class loader of
 * its own, and the JVM lets one class loader at a time load a given library
 * file ("already loaded in another classloader"). So the first runtime in a
 * JVM loads the gem's file, and each other one (a second ScriptingContainer,
 * jruby-rack's pool, a redeployed web application while the old one is
 * still being collected) loads a private copy ({@link LibraryCopy}). Each
 * copy is its own library with its own C state; the JVM unloads it when
 * the runtime's class loader is collected.
 */
public final class NativeLibrary {
    private static volatile String path;
    private static volatile URL entry; // the archive entry at path, when the gem is packaged (null: a file, or no such entry)
    private static volatile boolean archived;
    private static volatile boolean chosenByUser = true; // false: the gem's own file for this platform
    private static Boolean loaded; // guarded by NativeLibrary.class
    private static String failure;
    private static boolean copied;
    private static LibraryCopy.Failure copyFailure; // why this library's private copy could not be loaded, if it could not

    private NativeLibrary() {}

    /**
     * Where the gem keeps the library for this platform, relative to its
     * lib/fast_random directory: e.g. {@code linux-x86_64/libfast_random.so}
     * (the Rakefile builds it there).
     */
    public static String platformFile() {
        String os = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(java.util.Locale.ROOT);
        if (os.startsWith("mac")) os = "darwin";
        else if (os.startsWith("windows")) os = "mswin";
        else os = os.replace(' ', '_');
        if (arch.equals("amd64") || arch.equals("x64")) arch = "x86_64";
        return os + "-" + arch + "/" + System.mapLibraryName("fast_random");
    }

    /** Where the library file is, as the user chose it (set by lib/fast_random before any use). */
    public static void setPath(String libraryPath) {
        setPath(libraryPath, true);
    }

    /**
     * Where the library file is: chosen by the user ({@code chosenByUser}),
     * or the gem's own file for this platform ({@link #platformFile()}),
     * which the gem ships for some platforms only.
     */
    public static synchronized void setPath(String libraryPath, boolean chosenByUser) {
        path = libraryPath;
        NativeLibrary.chosenByUser = chosenByUser;
        entry = null;
        archived = false;
    }

    /**
     * The gem's own library for this platform is an entry of an archive (the
     * gem is packaged in a jar or war): {@code shownAs} is its path as Ruby
     * names it ({@code uri:classloader:/gems/...}), {@code archiveEntry} its
     * URL, null when the archive has no such entry.
     */
    public static synchronized void setArchived(String shownAs, URL archiveEntry) {
        path = shownAs;
        chosenByUser = false;
        entry = archiveEntry;
        archived = true;
    }

    /**
     * Whether {@link #load()} failed only because the gem ships no library
     * for this platform: the gem's own file is not there, and no other was
     * asked for. Nothing the user can act on, unlike a library they named,
     * or one that is there and does not load.
     */
    public static synchronized boolean absentAsExpected() {
        String file = path;
        if (!Boolean.FALSE.equals(loaded) || chosenByUser) return false;
        if (archived) return entry == null;
        return file == null || !new java.io.File(file).exists();
    }

    /**
     * Whether {@code reason}, why something cannot run, is only that this
     * library is {@linkplain #absentAsExpected absent as expected}.
     */
    public static synchronized boolean onlyAbsentAsExpected(String reason) {
        return reason != null && reason.equals(failure) && absentAsExpected();
    }

    /** Loads the library if that has not been tried yet; true when it is usable. */
    public static synchronized boolean load() {
        if (loaded != null) return loaded;
        String file = path;
        if (file == null) {
            failure = "no native library was built for this platform";
        } else if (archived) {
            failure = loadFromArchive(file);
        } else if (!new java.io.File(file).isFile()) {
            failure = "native library " + file + " is missing";
        } else {
            try {
                System.load(file);
            } catch (UnsatisfiedLinkError e) {
                if (String.valueOf(e.getMessage()).contains("another classloader")) {
                    failure = loadCopy(file);
                } else {
                    failure = "native library " + file + " could not be loaded: " + e.getMessage();
                }
            } catch (SecurityException e) {
                failure = "native library " + file + " could not be loaded: " + e.getMessage();
            }
        }
        loaded = failure == null;
        return loaded;
    }

    /** Why {@link #load()} failed, or null. */
    public static synchronized String failure() {
        return failure;
    }

    /** Whether this class loader runs a private copy of the library (another one in the JVM loaded the gem's file, or the gem is in an archive). */
    public static synchronized boolean privateCopy() {
        return copied;
    }

    /** Whether the library is the gem's own inside an archive, copied out to load (see {@link #setArchived}). */
    public static synchronized boolean archived() {
        return archived;
    }

    /**
     * Loads a private copy of the archive entry {@code shownAs} (see the
     * class comment); null when it loaded, else why not.
     */
    private static String loadFromArchive(String shownAs) {
        if (entry == null) return "native library " + shownAs + " is missing"; // the gem ships none for this platform
        byte[] bytes;
        try {
            bytes = LibraryCopy.read(entry);
        } catch (IOException | RuntimeException e) {
            return "native library " + shownAs + " could not be read from its archive: " + e;
        }
        byte[] recorded;
        try {
            recorded = LibraryCopy.recordedDigestOf(platformFile(), bytes);
        } catch (LibraryCopy.Unrecorded e) {
            return "native library " + shownAs + " is not loaded: " + e.getMessage();
        }
        try {
            LibraryCopy.load(bytes, recorded, System.mapLibraryName("fast_random"), copy -> System.load(copy.toString()));
        } catch (LibraryCopy.Failure e) {
            copyFailure = e;
            return "native library " + shownAs + " is inside an archive, and a private copy of it could not be loaded from "
                    + e.describe();
        }
        copied = true;
        return null;
    }

    /**
     * Why this library's private copy could not be loaded (its
     * {@link LibraryCopy.Failure#describe()} ends {@link #failure()}), or
     * null: what a copy of another library in the same directory would run
     * into as well.
     */
    public static synchronized LibraryCopy.Failure copyFailure() {
        return copyFailure;
    }

    /**
     * Loads a private copy of the file {@code original}, which another
     * class loader in this JVM has loaded; null when it loaded, else why not.
     */
    private static String loadCopy(String original) {
        try {
            byte[] bytes = Files.readAllBytes(Paths.get(original));
            LibraryCopy.load(bytes, LibraryCopy.sha256(bytes), System.mapLibraryName("fast_random"), copy -> System.load(copy.toString()));
        } catch (LibraryCopy.Failure e) {
            copyFailure = e;
            return "native library " + original + " is loaded by another class loader in this JVM (another JRuby runtime), "
                    + "and a private copy could not be loaded from " + e.describe();
        } catch (IOException | RuntimeException e) {
            return "native library " + original + " is loaded by another class loader in this JVM (another JRuby runtime), "
                    + "and could not be read for a private copy: " + e;
        }
        copied = true;
        return null;
    }
}
