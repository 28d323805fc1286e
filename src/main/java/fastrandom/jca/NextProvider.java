package fastrandom.jca;

import java.security.Provider;
import java.security.Security;

/**
 * Where a service of the JVM-wide provider sends what it does not take (a
 * key of another kind, a curve or parameters it has no engine for): the
 * first provider after it in the JVM's list that offers the same service,
 * as if ours were not there.
 */
public final class NextProvider {
    private NextProvider() {}

    /** The first provider after {@code ours} offering {@code type}.{@code algorithm}; null if none. */
    public static Provider after(Provider ours, String type, String algorithm) {
        boolean past = false;
        for (Provider provider : Security.getProviders()) {
            if (provider == ours) {
                past = true;
            } else if (past && provider.getService(type, algorithm) != null) {
                return provider;
            }
        }
        if (!past) { // ours is not (or no longer) registered: any other provider
            for (Provider provider : Security.getProviders()) {
                if (provider != ours && provider.getService(type, algorithm) != null) return provider;
            }
        }
        return null;
    }
}
