package fastrandom.jni;

import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Paths;

/**
 * One native library the gem ships (fast_random's own, {@link NativeLibrary};
 * the TLS engine's, {@code fastrandom.tls.openssl}), loaded at most once per
 * class loader, the first time something needs it. The Ruby layer says
 * where the gem keeps it: a file, loaded from there, never extracted to a
 * temporary directory, so read-only and noexec /tmp do not matter; or an
 * entry of a jar or war (a packaged application: Warbler, jruby-mains, a
 * fat jar), loaded from a private copy ({@link LibraryCopy}) checked
 * against the SHA-256 fast_random's jar records for it.
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
public final class LibraryFile {
    private final String description;
    private final String platformFile;
    private String path;
    private URL entry; // the archive entry at path, when the gem is packaged (null: a file, or no such entry)
    private boolean archived;
    private boolean chosenByUser = true; // false: the gem's own file for this platform
    private Boolean loaded;
    private String failure;
    private boolean copied;
    private LibraryCopy.Failure copyFailure; // why this library's private copy could not be loaded, if it could not

    /**
     * A library that messages call {@code description} ("native library"),
     * kept by the gem at {@code platformFile} relative to lib/fast_random
     * (the name its SHA-256 is recorded under).
     */
    public LibraryFile(String description, String platformFile) {
        this.description = description;
        this.platformFile = platformFile;
    }

    /** Where the gem keeps the library for this platform, relative to lib/fast_random. */
    public String platformFile() {
        return platformFile;
    }

    /** Where the library file is: chosen by the user ({@code chosenByUser}), or the gem's own file for this platform. */
    public synchronized void setPath(String libraryPath, boolean chosenByUser) {
        path = libraryPath;
        this.chosenByUser = chosenByUser;
        entry = null;
        archived = false;
    }

    /**
     * The gem's own library for this platform is an entry of an archive (the
     * gem is packaged in a jar or war): {@code shownAs} is its path as Ruby
     * names it ({@code uri:classloader:/gems/...}), {@code archiveEntry} its
     * URL, null when the archive has no such entry.
     */
    public synchronized void setArchived(String shownAs, URL archiveEntry) {
        path = shownAs;
        chosenByUser = false;
        entry = archiveEntry;
        archived = true;
    }

    /**
     * Whether {@link #load} failed only because the gem ships no library for
     * this platform: the gem's own file is not there, and no other was asked
     * for. Nothing the user can act on, unlike a library they named, or one
     * that is there and does not load.
     */
    public synchronized boolean absentAsExpected() {
        String file = path;
        if (!Boolean.FALSE.equals(loaded) || chosenByUser) return false;
        if (archived) return entry == null;
        return file == null || !new File(file).exists();
    }

    /**
     * Loads the library with {@code loader} (System.load from a class of the
     * class loader the library is for) if that has not been tried yet: the
     * file, else a private copy; true when it is usable.
     */
    public synchronized boolean load(LibraryCopy.Loader loader) {
        if (loaded != null) return loaded;
        String file = path;
        if (file == null) {
            failure = "no " + description + " was built for this platform";
        } else if (archived) {
            failure = loadFromArchive(file, loader);
        } else if (!new File(file).isFile()) {
            failure = description + " " + file + " is missing";
        } else {
            try {
                loader.load(Paths.get(file));
            } catch (UnsatisfiedLinkError e) {
                if (String.valueOf(e.getMessage()).contains("another classloader")) {
                    failure = loadCopy(file, loader);
                } else {
                    failure = description + " " + file + " could not be loaded: " + e.getMessage();
                }
            } catch (Exception e) { // SecurityException; a loader's own checked failure
                failure = description + " " + file + " could not be loaded: " + e.getMessage();
            }
        }
        loaded = failure == null;
        return loaded;
    }

    /** Why {@link #load} failed, or null. */
    public synchronized String failure() {
        return failure;
    }

    /** Whether this class loader runs a private copy of the library (another one in the JVM loaded the gem's file, or the gem is in an archive). */
    public synchronized boolean privateCopy() {
        return copied;
    }

    /** Whether the library is the gem's own inside an archive, copied out to load (see {@link #setArchived}). */
    public synchronized boolean archived() {
        return archived;
    }

    /**
     * Why this library's private copy could not be loaded (its
     * {@link LibraryCopy.Failure#describe()} ends {@link #failure()}), or
     * null: what a copy of another library in the same directory would run
     * into as well.
     */
    public synchronized LibraryCopy.Failure copyFailure() {
        return copyFailure;
    }

    /** The name a private copy is given: the file's own (a loader may read its name, as netty-tcnative does). */
    private String copyName() {
        return new File(platformFile).getName();
    }

    /** Loads a private copy of the archive entry {@code shownAs}; null when it loaded, else why not. */
    private String loadFromArchive(String shownAs, LibraryCopy.Loader loader) {
        if (entry == null) return description + " " + shownAs + " is missing"; // the gem ships none for this platform
        byte[] bytes;
        try {
            bytes = LibraryCopy.read(entry);
        } catch (IOException | RuntimeException e) {
            return description + " " + shownAs + " could not be read from its archive: " + e;
        }
        byte[] recorded;
        try {
            recorded = LibraryCopy.recordedDigestOf(platformFile, bytes);
        } catch (LibraryCopy.Unrecorded e) {
            return description + " " + shownAs + " is not loaded: " + e.getMessage();
        }
        try {
            LibraryCopy.load(bytes, recorded, copyName(), loader);
        } catch (LibraryCopy.Failure e) {
            copyFailure = e;
            return description + " " + shownAs + " is inside an archive, and a private copy of it could not be loaded from "
                    + e.describe();
        }
        copied = true;
        return null;
    }

    /** Loads a private copy of the file {@code original}, which another class loader in this JVM has loaded; null when it loaded, else why not. */
    private String loadCopy(String original, LibraryCopy.Loader loader) {
        try {
            byte[] bytes = Files.readAllBytes(Paths.get(original));
            LibraryCopy.load(bytes, LibraryCopy.sha256(bytes), copyName(), loader);
        } catch (LibraryCopy.Failure e) {
            copyFailure = e;
            return description + " " + original + " is loaded by another class loader in this JVM (another JRuby runtime), "
                    + "and a private copy could not be loaded from " + e.describe();
        } catch (IOException | RuntimeException e) {
            return description + " " + original + " is loaded by another class loader in this JVM (another JRuby runtime), "
                    + "and could not be read for a private copy: " + e;
        }
        copied = true;
        return null;
    }
}
