package io.groupkeeper.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table: columns padded to the widest cell, two spaces apart, "-" for empty cells. */
final class Table {

    private final List<String[]> rows = new ArrayList<>();
    private final int columns;

    Table(String... header) {
        this.columns = header.length;
        rows.add(header);
    }

    Table row(Object... cells) {
        String[] r = new String[columns];
        for (int i = 0; i < columns; i++) {
            Object c = i < cells.length ? cells[i] : null;
            String s = c == null ? "" : String.valueOf(c);
            r[i] = s.isEmpty() ? "-" : s;
        }
        rows.add(r);
        return this;
    }

    int size() {
        return rows.size() - 1;
    }

    void print(PrintWriter out) {
        int[] width = new int[columns];
        for (String[] r : rows) {
            for (int i = 0; i < columns; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        for (String[] r : rows) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                sb.append(r[i]);
                if (i < columns - 1) {
                    sb.append(" ".repeat(width[i] - r[i].length() + 2));
                }
            }
            out.println(sb.toString().stripTrailing());
        }
    }
}
