package fastrandom.random;

import java.io.FileInputStream;
import java.io.IOException;

/**
 * Bytes straight from the OS's own generator: {@code /dev/urandom} read with
 * plain file I/O (no JCE, no provider to initialize), else the JDK's
 * non-blocking OS source ({@link OsEntropy}). What serves calls while the
 * process is starting and the DRBGs' JCE is still being initialized in the
 * background ({@link WarmUp}), as MRI serves every call. It keeps no state,
 * so there is nothing to reseed; thread-safe.
 */
final class OsSource implements BlockSource {
    private static final String DEVICE = "/dev/urandom";
    private static volatile FileInputStream device;
    private static volatile boolean noDevice;

    @Override
    public int maxRequest() {
        return 4096;
    }

    @Override
    public int minBuffer() {
        return 1024;
    }

    @Override
    public void fill(byte[] out, int offset, int length) {
        FileInputStream in = device();
        if (in != null) {
            try {
                readFully(in, out, offset, length);
                return;
            } catch (IOException e) {
                noDevice = true; // from now on the JDK's own OS source, below
            }
        }
        byte[] bytes = new byte[length];
        OsEntropy.INSTANCE.fill(bytes);
        System.arraycopy(bytes, 0, out, offset, length);
        java.util.Arrays.fill(bytes, (byte) 0);
    }

    private static void readFully(FileInputStream in, byte[] out, int offset, int length) throws IOException {
        int done = 0;
        while (done < length) {
            int n = in.read(out, offset + done, length - done);
            if (n < 0) throw new IOException(DEVICE + " ended");
            done += n;
        }
    }

    private static FileInputStream device() {
        if (noDevice) return null;
        FileInputStream in = device;
        if (in != null) return in;
        synchronized (OsSource.class) {
            if (device == null && !noDevice) {
                try {
                    device = new FileInputStream(DEVICE);
                } catch (IOException | SecurityException e) {
                    noDevice = true;
                }
            }
            return device;
        }
    }

    @Override
    public void reseed() {
        // nothing kept: every byte is the OS's
    }

    @Override
    public long seeds() {
        return 0;
    }

    @Override
    public long bytesSinceSeed() {
        return 0;
    }

    @Override
    public long stateFingerprint() {
        return 0;
    }

    @Override
    public void wipe() {
        // nothing kept
    }
}
