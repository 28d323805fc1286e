package fastrandom.jni;

/** The CPU's random number instruction failed while in use. */
public final class CpuRandomFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CpuRandomFailure(String message) {
        super(message);
    }
}
