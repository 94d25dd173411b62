/** JSON call records, one line per call at its end, written to {@code records.file}. */
package io.trunkgate.records;
