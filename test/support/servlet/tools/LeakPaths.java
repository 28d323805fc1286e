import java.io.File;
import java.util.List;

import org.netbeans.lib.profiler.heap.FieldValue;
import org.netbeans.lib.profiler.heap.GCRoot;
import org.netbeans.lib.profiler.heap.Heap;
import org.netbeans.lib.profiler.heap.HeapFactory;
import org.netbeans.lib.profiler.heap.Instance;
import org.netbeans.lib.profiler.heap.JavaClass;
import org.netbeans.lib.profiler.heap.ObjectArrayInstance;
import org.netbeans.lib.profiler.heap.ObjectFieldValue;
import org.netbeans.lib.profiler.heap.PrimitiveArrayInstance;

/**
 * For finding out what keeps a class loader of the servlet deployment test
 * alive: prints, for each instance of a class in a heap dump, the chain of
 * strong references from a GC root to it (nearest root first found).
 * Not part of the test run; by hand:
 *
 *   mvn -q dependency:get -Dartifact=org.gridkit.jvmtool:hprof-heap:0.16
 *   CP=~/.m2/repository/org/gridkit/jvmtool/hprof-heap/0.16/hprof-heap-0.16.jar:\
 *   ~/.m2/repository/org/gridkit/gzrand/gzrand/0.2/gzrand-0.2.jar
 *   javac -cp $CP -d tmp/leakpaths test/support/servlet/tools/LeakPaths.java
 *   java -Xmx4g -cp $CP:tmp/leakpaths LeakPaths DUMP.hprof [CLASS [MAX]]
 *
 * with a dump from ServletDeploy.run(..., heap_dump: "DUMP.hprof"), which the
 * harness writes when class loaders are left. CLASS defaults to Tomcat's
 * web-app class loader; org.jruby.util.JRubyClassLoader is the other one of
 * interest (fast_random's classes load there).
 */
public class LeakPaths {
    private static Heap heap;

    public static void main(String[] args) throws Exception {
        heap = HeapFactory.createHeap(new File(args[0]));
        String target = args.length > 1 ? args[1] : "org.apache.catalina.loader.ParallelWebappClassLoader";
        int max = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        JavaClass cls = heap.getJavaClassByName(target);
        List<Instance> instances = cls.getInstances();
        System.out.println(instances.size() + " instances of " + target);
        for (Instance instance : instances.subList(0, Math.min(max, instances.size()))) {
            System.out.println("== " + describe(instance));
            Instance current = instance;
            for (int depth = 0; current != null && depth < 60; depth++) {
                GCRoot root = heap.getGCRoot(current);
                if (root != null) {
                    System.out.println("   ROOT " + root.getKind() + " " + describe(current));
                    break;
                }
                Instance next = current.getNearestGCRootPointer();
                if (next == null) {
                    System.out.println("   (no path) " + describe(current));
                    break;
                }
                System.out.println("   <- " + describe(next) + " ." + via(next, current));
                current = next;
            }
        }
    }

    static String describe(Instance instance) {
        String name = instance.getJavaClass().getName();
        String s = name + "#" + instance.getInstanceId();
        if (name.equals("java.lang.Thread") || name.endsWith("TaskThread")) {
            Object threadName = instance.getValueOfField("name");
            if (threadName instanceof Instance) s += " name=" + string((Instance) threadName);
        }
        if (name.equals("java.lang.Class")) {
            JavaClass described = heap.getJavaClassByID(instance.getInstanceId());
            if (described != null) s += " (" + described.getName() + ")";
        }
        return s;
    }

    static String string(Instance s) {
        Object value = s.getValueOfField("value");
        if (!(value instanceof PrimitiveArrayInstance)) return "?";
        StringBuilder out = new StringBuilder();
        for (Object o : ((PrimitiveArrayInstance) value).getValues()) {
            String x = o.toString();
            out.append(x.length() == 1 ? x : String.valueOf((char) Integer.parseInt(x)));
        }
        return out.toString();
    }

    static String via(Instance from, Instance to) {
        if (from instanceof ObjectArrayInstance) {
            List<Instance> values = ((ObjectArrayInstance) from).getValues();
            for (int k = 0; k < values.size(); k++) {
                if (values.get(k) != null && values.get(k).getInstanceId() == to.getInstanceId()) return "[" + k + "]";
            }
        }
        for (Object o : from.getFieldValues()) {
            if (o instanceof ObjectFieldValue && ((ObjectFieldValue) o).getInstanceId() == to.getInstanceId()) {
                return ((FieldValue) o).getField().getName();
            }
        }
        return from.getJavaClass().getName().equals("java.lang.Class") ? "(a static field, or its class loader)" : "?";
    }
}
