package servletdeploy;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.catalina.Context;
import org.apache.catalina.Host;
import org.apache.catalina.Lifecycle;
import org.apache.catalina.Wrapper;
import org.apache.catalina.core.JreMemoryLeakPreventionListener;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.core.ThreadLocalLeakPreventionListener;
import org.apache.catalina.startup.ContextConfig;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.scan.StandardJarScanFilter;
import org.apache.tomcat.util.scan.StandardJarScanner;

/**
 * Deploys one web application (jruby-rack's RackFilter in front of a
 * config.ru; test/support/servlet_deploy.rb says where JRuby is), exploded
 * or a .war file that Tomcat does not unpack (unpackWARs="false"), into an embedded
 * Tomcat 9 on 127.0.0.1, requests it over HTTP, undeploys it, and does that
 * again and again in this one JVM; then checks that every web-app class
 * loader, and every class loader the application reported through
 * {@link Probe}, can be collected.
 *
 * Usage: Harness WEBAPP_DIR_OR_WAR BASE_DIR DEPLOYS REQUESTS CONCURRENCY GC_SECONDS
 *
 * Prints one line per event, each a JSON object with an "event" key:
 * "started" (the port), "deploy" (deploy number, milliseconds to start,
 * web-app class loader), "request" (deploy number, HTTP status, the body,
 * which is the application's JSON, or an "error"), "undeploy", and at the
 * end "loader" lines for each class loader still reachable and one
 * "summary". Everything else (Tomcat's and jruby-rack's log) goes to stderr.
 */
public final class Harness {
    static final String CONTEXT_PATH = "/app";

    public static void main(String[] args) throws Exception {
        File webapp = new File(args[0]).getAbsoluteFile();
        File base = new File(args[1]).getAbsoluteFile();
        int deploys = Integer.parseInt(args[2]);
        int requests = Integer.parseInt(args[3]);
        int concurrency = Integer.parseInt(args[4]);
        int gcSeconds = Integer.parseInt(args[5]);
        long begin = System.nanoTime();

        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.getPath());
        tomcat.setHostname("127.0.0.1");
        tomcat.setPort(0);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        // A stand-alone Tomcat's conf/server.xml has these listeners (embedded
        // Tomcat has none by default): the JRE leak prevention, and the one
        // that renews the connector's request threads after a context stops,
        // so ThreadLocals an application left on them do not keep it alive.
        tomcat.getServer().addLifecycleListener(new JreMemoryLeakPreventionListener());
        tomcat.getServer().addLifecycleListener(new ThreadLocalLeakPreventionListener());
        tomcat.getHost().setAutoDeploy(false);
        // A war is served from inside the archive, as with unpackWARs="false" in server.xml.
        ((org.apache.catalina.core.StandardHost) tomcat.getHost()).setUnpackWARs(false);
        tomcat.start();
        int port = tomcat.getConnector().getLocalPort();
        emit("{\"event\":\"started\",\"port\":" + port + "}");

        // Stock JRuby (9.4 and 10.1) keeps a web app's class loader in ways
        // that are no business of fast_random's, which this harness steps
        // around unless -Dservletdeploy.stock_workarounds=false:
        // - JRubyClassLoader.getTempDir() registers a JVM shutdown hook (a
        //   Thread subclass of the web app's JRuby, which pins its class
        //   loader for the JVM's life) when it creates java.io.tmpdir/jruby-PID,
        //   which is in the first deploy that loads a jar out of a jar
        //   (jruby-openssl's BouncyCastle); the directory is made here first.
        // - Ruby's DEDUP_WRAPPER_CACHE and LibrarySearcher's key wrappers are
        //   ThreadLocals whose values (of JRuby's classes) stay in every
        //   thread that ran Ruby code until that thread ends or happens to
        //   expunge them: so each deploy starts and stops on a thread of its
        //   own, and the connector's request threads are stopped after the
        //   last undeploy, before the class loaders are looked for.
        // - With JRuby on the container's class path, classes of it keep an
        //   exception made once, when the class initializes, whose stack
        //   trace holds the classes on the stack then, jruby-rack's of the
        //   first deploy among them (IRRuntimeHelpers' InvalidKeyException,
        //   joni's Matcher's InterruptedException): a runtime booted and
        //   torn down here first initializes them, as a container in which
        //   JRuby ran before would have.
        // - Some releases (JRuby 9.4, 10.0.1.0 to 10.0.4.0) keep their Java
        //   integration's per-class data (jruby.ji.class.values=STABLE) in
        //   ClassValues whose values hold the ClassValue itself, so no
        //   runtime of any deploy is ever collected: servlet_deploy.rb
        //   passes -Djruby.ji.class.values=HARD_MAP there.
        boolean workarounds = !"false".equals(System.getProperty("servletdeploy.stock_workarounds"));
        if (workarounds) {
            new File(System.getProperty("java.io.tmpdir"), "jruby-" + ProcessHandle.current().pid()).mkdirs();
            warmUpJRuby();
        }
        int[] requestFailures = {0};
        for (int deploy = 1; deploy <= deploys; deploy++) {
            int number = deploy;
            Callable<Void> cycle = () -> {
                cycle(tomcat, webapp, port, number, requests, concurrency, requestFailures);
                return null;
            };
            if (!workarounds) {
                cycle.call();
                continue;
            }
            Thread thread = new Thread(() -> {
                try {
                    cycle.call();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            }, "deploy-" + deploy);
            thread.start();
            thread.join();
        }
        if (workarounds) tomcat.getConnector().stop();

        List<Probe.Entry> entries = Probe.entries();
        long gcStart = System.nanoTime();
        long deadline = gcStart + TimeUnit.SECONDS.toNanos(gcSeconds);
        List<Probe.Entry> left = leftOver(entries);
        List<byte[]> pressure = new ArrayList<>();
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            System.gc();
            // A little allocation between collections, so that weak
            // references get processed and the heap is not idle.
            pressure.add(new byte[1 << 20]);
            if (pressure.size() > 64) pressure.clear();
            Thread.sleep(100);
            left = leftOver(entries);
        }
        pressure.clear();
        for (Probe.Entry entry : left) {
            emit("{\"event\":\"loader\",\"kind\":" + quote(entry.kind) + ",\"deploy\":" + entry.deploy
                 + ",\"loader\":" + quote(entry.description) + "}");
        }
        int webapp_left = 0, app_left = 0;
        for (Probe.Entry entry : left) {
            if (entry.kind.equals("webapp")) webapp_left++; else app_left++;
        }
        int webapp_total = 0;
        for (Probe.Entry entry : entries) if (entry.kind.equals("webapp")) webapp_total++;
        String dump = System.getProperty("servletdeploy.heapdump");
        if (dump != null && !left.isEmpty()) heapDump(dump);
        emit("{\"event\":\"summary\",\"deploys\":" + deploys + ",\"request_failures\":" + requestFailures[0]
             + ",\"stock_workarounds\":" + workarounds
             + ",\"ji_class_values\":" + quote(String.valueOf(System.getProperty("jruby.ji.class.values")))
             + ",\"webapp_loaders\":" + webapp_total + ",\"app_loaders\":" + (entries.size() - webapp_total)
             + ",\"webapp_loaders_left\":" + webapp_left + ",\"app_loaders_left\":" + app_left
             + ",\"gc_ms\":" + millis(gcStart) + ",\"total_ms\":" + millis(begin)
             + ",\"java\":" + quote(System.getProperty("java.version")) + "}");
        left = null;
        entries = null;
        tomcat.stop();
        tomcat.destroy();
    }

    /** Boots a JRuby runtime, runs a little, tears it down, if JRuby is on the class path. */
    static void warmUpJRuby() throws Exception {
        Class<?> ruby;
        try {
            ruby = Class.forName("org.jruby.Ruby", true, Harness.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            return; // JRuby is in WEB-INF/lib
        }
        long start = System.nanoTime();
        Object runtime = ruby.getMethod("newInstance").invoke(null);
        ruby.getMethod("evalScriptlet", String.class).invoke(runtime,
            "require 'json'; require 'openssl'; require 'securerandom'; require 'socket'; "
            + "/a+(b)/ =~ 'aab'; Thread.new { SecureRandom.uuid }.join; JSON.generate('a' => [1]); "
            + "begin; raise 'x'; rescue => e; e.backtrace; end");
        ruby.getMethod("tearDown").invoke(runtime);
        emit("{\"event\":\"warm_up\",\"ms\":" + millis(start) + "}");
    }

    /** One deploy: start, requests, undeploy. */
    static void cycle(Tomcat tomcat, File webapp, int port, int deploy, int requests, int concurrency,
                      int[] requestFailures) throws Exception {
        long start = System.nanoTime();
        Context context = deploy(tomcat.getHost(), webapp);
        if (!context.getState().isAvailable()) {
            emit("{\"event\":\"deploy\",\"deploy\":" + deploy + ",\"available\":false,\"state\":"
                 + quote(String.valueOf(context.getState())) + "}");
            tomcat.getHost().removeChild(context);
            requestFailures[0]++;
            return;
        }
        ClassLoader loader = context.getLoader().getClassLoader();
        Probe.webappLoader(deploy, loader);
        emit("{\"event\":\"deploy\",\"deploy\":" + deploy + ",\"available\":true,\"ms\":" + millis(start)
             + ",\"loader\":" + quote(Probe.describe(loader)) + "}");
        loader = null;

        String url = "http://127.0.0.1:" + port + CONTEXT_PATH + "/?deploy=" + deploy;
        int failures = requestAll(deploy, url, requests, concurrency);
        synchronized (requestFailures) {
            requestFailures[0] += failures;
        }

        start = System.nanoTime();
        tomcat.getHost().removeChild(context);
        emit("{\"event\":\"undeploy\",\"deploy\":" + deploy + ",\"ms\":" + millis(start) + "}");
    }

    /** Adds the web application at CONTEXT_PATH and starts it (as a host deploys a directory). */
    static Context deploy(Host host, File webapp) {
        StandardContext context = new StandardContext();
        context.setName(CONTEXT_PATH);
        context.setPath(CONTEXT_PATH);
        context.setDocBase(webapp.getPath());
        context.setUnpackWAR(false);
        // Scanning jruby-complete for TLDs and web fragments on every
        // deploy only costs time: web.xml is metadata-complete.
        StandardJarScanner scanner = new StandardJarScanner();
        StandardJarScanFilter filter = new StandardJarScanFilter();
        filter.setDefaultTldScan(false);
        filter.setDefaultPluggabilityScan(false);
        scanner.setJarScanFilter(filter);
        scanner.setScanManifest(false);
        context.setJarScanner(scanner);
        context.addLifecycleListener(new ContextConfig());
        // conf/web.xml's default servlet, without its JSP servlet: a filter
        // runs only for requests that map to some servlet.
        context.addLifecycleListener(event -> {
            if (Lifecycle.BEFORE_START_EVENT.equals(event.getType())) {
                Context started = (Context) event.getLifecycle();
                Wrapper servlet = started.createWrapper();
                servlet.setName("default");
                servlet.setServletClass("org.apache.catalina.servlets.DefaultServlet");
                servlet.setLoadOnStartup(1);
                started.addChild(servlet);
                started.addServletMappingDecoded("/", "default");
            }
        });
        host.addChild(context); // starts it: the host is started
        return context;
    }

    /** Sends the requests from CONCURRENCY threads; returns how many failed at the HTTP level. */
    static int requestAll(int deploy, String url, int requests, int concurrency) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(concurrency);
        try {
            List<Callable<String>> calls = new ArrayList<>();
            // First two that hold their runtime for a while, sent together:
            // with both of the pool's runtimes busy at once, each deploy is
            // sure to show both (jruby.max.runtimes=2).
            for (int i = 0; i < 2; i++) calls.add(() -> get(url + "&hold=0.5"));
            List<Future<String>> held = pool.invokeAll(calls);
            calls.clear();
            for (int i = 0; i < requests; i++) calls.add(() -> get(url));
            List<Future<String>> all = new ArrayList<>(held);
            all.addAll(pool.invokeAll(calls));
            int failures = 0;
            for (Future<String> result : all) {
                String line = result.get();
                if (!line.startsWith("200 ")) failures++;
                int space = line.indexOf(' ');
                String status = line.substring(0, space);
                String body = line.substring(space + 1);
                emit("{\"event\":\"request\",\"deploy\":" + deploy + ",\"status\":" + status + ","
                     + (status.equals("200") && body.startsWith("{") ? "\"body\":" + body : "\"error\":" + quote(body))
                     + "}");
            }
            return failures;
        } finally {
            pool.shutdown();
            pool.awaitTermination(1, TimeUnit.MINUTES);
        }
    }

    /** "STATUS BODY", or "0 exception" when the request failed. */
    static String get(String url) {
        try {
            HttpURLConnection connection = (HttpURLConnection) new URL(url).openConnection();
            connection.setConnectTimeout(10_000);
            connection.setReadTimeout(120_000);
            int status = connection.getResponseCode();
            InputStream in = status < 400 ? connection.getInputStream() : connection.getErrorStream();
            String body = in == null ? "" : read(in);
            return status + " " + body.trim().replace('\n', ' ');
        } catch (Exception e) {
            return "0 " + e;
        }
    }

    static String read(InputStream in) throws java.io.IOException {
        try (InputStream input = in) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int n; (n = input.read(buffer)) > 0; ) out.write(buffer, 0, n);
            return new String(out.toByteArray(), StandardCharsets.UTF_8);
        }
    }

    static List<Probe.Entry> leftOver(List<Probe.Entry> entries) {
        List<Probe.Entry> left = new ArrayList<>();
        for (Probe.Entry entry : entries) if (entry.reference.get() != null) left.add(entry);
        return left;
    }

    static void heapDump(String file) {
        try {
            new File(file).delete();
            com.sun.management.HotSpotDiagnosticMXBean bean = java.lang.management.ManagementFactory
                .getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            bean.dumpHeap(file, true);
            System.err.println("harness: heap dump in " + file);
        } catch (Exception e) {
            System.err.println("harness: no heap dump: " + e);
        }
    }

    static long millis(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    static synchronized void emit(String line) {
        System.out.println(line);
        System.out.flush();
    }

    static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') out.append('\\').append(c);
            else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
        return out.append('"').toString();
    }
}
