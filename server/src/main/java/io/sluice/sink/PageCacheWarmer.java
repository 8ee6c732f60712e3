package io.sluice.sink;

import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.neo4j.io.pagecache.PageCache;
import org.neo4j.io.pagecache.PagedFile;
import org.neo4j.io.pagecache.context.CursorContext;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The embedded database's warm-up ({@link EmbeddedSink#warmUp}): its files faulted into Neo4j's page cache. */
final class PageCacheWarmer {
    private static final Logger log = LoggerFactory.getLogger(PageCacheWarmer.class);
    /** Pages asked of {@code PagedFile.touch} at a time. */
    private static final int TOUCH_PAGES = 256;

    private PageCacheWarmer() {}

    /**
     * Touches every page of {@code db}'s files mapped in Neo4j's page cache (the files of other databases, such as
     * system, are left alone), stores first and indexes ({@code schema/}) last, in chunks of {@value #TOUCH_PAGES}
     * pages: {@code PagedFile.touch} faults them in without pinning them, as Neo4j's own Enterprise warmer does. A
     * file unmapped meanwhile (a database stopping) is skipped.
     */
    static Sink.Warmed warm(GraphDatabaseAPI db, BooleanSupplier stop) throws GraphException {
        Path dir = db.databaseLayout().databaseDirectory().toAbsolutePath();
        List<PagedFile> files;
        try {
            files = new ArrayList<>(db.getDependencyResolver().resolveDependency(PageCache.class)
                    .listExistingMappings());
        } catch (IOException | RuntimeException e) {
            throw new GraphException(Neo4jError.unknown("cannot list the page cache's files: " + e), e);
        }
        files.removeIf(f -> !f.path().toAbsolutePath().startsWith(dir));
        files.sort(Comparator.comparing(f -> dir.relativize(f.path().toAbsolutePath()).toString()
                .startsWith("schema")));
        int touchedFiles = 0;
        long pages = 0;
        long bytes = 0;
        for (PagedFile f : files) {
            try {
                long last = f.getLastPageId();
                for (long p = 0; p <= last && !stop.getAsBoolean(); p += TOUCH_PAGES) {
                    int n = f.touch(p, (int) Math.min(TOUCH_PAGES, last - p + 1),
                            CursorContext.NULL_CONTEXT);
                    pages += n;
                    bytes += (long) n * f.pageSize();
                }
                touchedFiles++;
            } catch (IOException | RuntimeException e) {
                log.debug("warm-up skipped {}: {}", f.path(), e.toString());
            }
            if (stop.getAsBoolean()) {
                break;
            }
        }
        return new Sink.Warmed("page cache", touchedFiles, pages, bytes);
    }
}
