package io.trunkgate.tls.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * The modification time, size and identity (inode) of some files, symbolic links followed: a renewal changes at least
 * one of them, whether the file is rewritten or a new one is moved or linked in its place.
 */
public record FileStamps(List<String> stamps) {

    public static FileStamps of(Path... files) {
        List<String> stamps = new ArrayList<>();
        for (Path file : files) {
            try {
                BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
                stamps.add(file + "@" + attributes.lastModifiedTime().toInstant() + "/" + attributes.size() + "/"
                        + attributes.fileKey());
            } catch (IOException e) {
                stamps.add(file + "@missing");
            }
        }
        return new FileStamps(List.copyOf(stamps));
    }
}
