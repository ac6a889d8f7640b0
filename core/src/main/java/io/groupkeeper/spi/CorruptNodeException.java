package io.groupkeeper.spi;

/**
 * A node holds data the store cannot interpret (not JSON, foreign JSON, a negative offset). The message names the
 * path and the problem; the node is left untouched so that nothing stored is lost.
 */
public class CorruptNodeException extends StoreException {

    private static final long serialVersionUID = 1L;

    private final String path;

    public CorruptNodeException(String path, String problem) {
        super("corrupt node " + path + ": " + problem);
        this.path = path;
    }

    public String path() {
        return path;
    }
}
