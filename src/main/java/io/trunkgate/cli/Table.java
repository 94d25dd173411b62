package io.trunkgate.cli;

import java.util.List;

/** Rows as columns padded to their widest cell, the last column as it is. */
final class Table {

    private Table() {
    }

    static String of(List<String[]> rows) {
        int columns = rows.get(0).length;
        int[] widths = new int[columns];
        for (String[] row : rows) {
            for (int i = 0; i < columns - 1; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        StringBuilder text = new StringBuilder();
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                line.append(i < columns - 1 ? String.format("%-" + (widths[i] + 2) + "s", row[i]) : row[i]);
            }
            text.append(line.toString().stripTrailing()).append('\n');
        }
        return text.toString().stripTrailing();
    }
}
