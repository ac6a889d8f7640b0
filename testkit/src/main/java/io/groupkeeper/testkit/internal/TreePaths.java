package io.groupkeeper.testkit.internal;

/**
 * Path arithmetic of the modelled tree. The store's own paths (the layout) are {@code ZkPaths}, in zk-protocol: one
 * definition of the node layout.
 */
final class TreePaths {

    private TreePaths() {}

    /** The parent of an absolute path ({@code /} for a top-level node). */
    static String parent(String path) {
        int slash = path.lastIndexOf('/');
        return slash <= 0 ? "/" : path.substring(0, slash);
    }

    /** The last segment of an absolute path. */
    static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** {@code parent + "/" + child}, without doubling the root's slash. */
    static String child(String parent, String child) {
        return "/".equals(parent) ? "/" + child : parent + "/" + child;
    }
}
