package io.sluice.fastpath;

import java.util.List;
import java.util.Map;
import org.eclipse.collections.api.factory.primitive.IntObjectMaps;
import org.eclipse.collections.api.map.primitive.IntObjectMap;
import org.neo4j.exceptions.KernelException;
import org.neo4j.graphdb.Direction;
import org.neo4j.internal.kernel.api.CursorFactory;
import org.neo4j.internal.kernel.api.IndexReadSession;
import org.neo4j.internal.kernel.api.NodeCursor;
import org.neo4j.internal.kernel.api.NodeValueIndexCursor;
import org.neo4j.internal.kernel.api.PropertyIndexQuery;
import org.neo4j.internal.kernel.api.Read;
import org.neo4j.internal.kernel.api.RelationshipTraversalCursor;
import org.neo4j.internal.kernel.api.TokenWrite;
import org.neo4j.internal.kernel.api.Write;
import org.neo4j.internal.schema.IndexDescriptor;
import org.neo4j.internal.schema.SchemaDescriptors;
import org.neo4j.io.pagecache.context.CursorContext;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.memory.MemoryTracker;
import org.neo4j.storageengine.api.RelationshipSelection;
import org.neo4j.values.storable.Value;
import org.neo4j.values.storable.Values;

/**
 * The spike's kernel-API versions of the bench's two templates, written as Cypher's runtime does the same work:
 * {@code MERGE (n:L {k: v})} on a uniquely constrained key through {@link Write#uniqueNodeMerge} (the locking
 * unique-index seek Cypher's MERGE uses: a shared index-entry lock when found, an exclusive one held to the end of
 * the transaction when not), {@code MERGE (a)-[:T]->(b)} between bound nodes as Cypher's {@code Merge} with
 * {@code LockNodes}: look for the relationship, and when absent lock both nodes exclusively, look again, create;
 * {@code CREATE (:L {k: v})} as a labelled node created with its property. Only for {@link FastPathSpike}: the
 * measured gain did not justify a fast path in sluice (docs/BENCHMARKS.md, "Kernel fast path (issue 14)").
 */
final class KernelShapes {
    private KernelShapes() {}

    private static final IntObjectMap<Value> NONE = IntObjectMaps.immutable.empty();

    /** What a batch wrote, in Cypher's counters. */
    static final class Counts implements org.neo4j.internal.kernel.api.MutationCallback {
        long nodes;
        long relationships;
        long labels;
        long properties;

        @Override
        public void onMutation(int nodesCreated, int relationshipsCreated, int labelsAdded, int propertiesSet) {
            nodes += nodesCreated;
            relationships += relationshipsCreated;
            labels += labelsAdded;
            properties += propertiesSet;
        }

        @Override
        public String toString() {
            return "nodes=" + nodes + " rels=" + relationships + " labels=" + labels + " props=" + properties;
        }
    }

    /** {@code MERGE (u:User {id: row.user}) MERGE (s:Site {url: row.url}) MERGE (u)-[:VISITED]->(s)}. */
    static void visited(KernelTransaction ktx, List<Map<String, Object>> rows, Counts counts) throws KernelException {
        TokenWrite tokens = ktx.tokenWrite();
        int user = tokens.labelGetOrCreateForName("User");
        int site = tokens.labelGetOrCreateForName("Site");
        int id = tokens.propertyKeyGetOrCreateForName("id");
        int url = tokens.propertyKeyGetOrCreateForName("url");
        int visited = tokens.relationshipTypeGetOrCreateForName("VISITED");
        Read read = ktx.dataRead();
        Write write = ktx.dataWrite();
        IndexReadSession users = read.indexReadSession(uniqueIndex(ktx, user, id));
        IndexReadSession sites = read.indexReadSession(uniqueIndex(ktx, site, url));
        CursorFactory cursors = ktx.cursors();
        CursorContext cc = ktx.cursorContext();
        MemoryTracker mt = ktx.memoryTracker();
        RelationshipSelection out = RelationshipSelection.selection(visited, Direction.OUTGOING);
        RelationshipSelection in = RelationshipSelection.selection(visited, Direction.INCOMING);
        try (NodeValueIndexCursor index = cursors.allocateNodeValueIndexCursor(cc, mt);
                NodeCursor node = cursors.allocateNodeCursor(cc, mt);
                RelationshipTraversalCursor rels = cursors.allocateRelationshipTraversalCursor(cc, mt)) {
            for (Map<String, Object> row : rows) {
                long u = write.uniqueNodeMerge(users, index, exact(id, row.get("user")), NONE, NONE, counts);
                long s = write.uniqueNodeMerge(sites, index, exact(url, row.get("url")), NONE, NONE, counts);
                if (!related(read, node, rels, u, s, out, in)) {
                    ktx.locks().acquireExclusiveNodeLock(u, s);
                    if (!related(read, node, rels, u, s, out, in)) {
                        write.relationshipCreate(u, visited, s);
                        counts.relationships++;
                    }
                }
            }
        }
    }

    /** {@code CREATE (:Person {id: row.id})}. */
    static void createIndexed(KernelTransaction ktx, List<Map<String, Object>> rows, Counts counts)
            throws KernelException {
        TokenWrite tokens = ktx.tokenWrite();
        int[] person = {tokens.labelGetOrCreateForName("Person")};
        int id = tokens.propertyKeyGetOrCreateForName("id");
        Write write = ktx.dataWrite();
        for (Map<String, Object> row : rows) {
            long n = write.nodeCreateWithLabels(person);
            write.nodeSetProperty(n, id, value(row.get("id")));
            counts.onMutation(1, 0, 1, 1);
        }
    }

    /**
     * Whether {@code a -[type]-> b} exists, read from whichever end has fewer such relationships when both know
     * their degree cheaply (dense nodes), otherwise from {@code a}, as Cypher's expand-into does.
     */
    private static boolean related(Read read, NodeCursor node, RelationshipTraversalCursor rels, long a, long b,
            RelationshipSelection out, RelationshipSelection in) {
        read.singleNode(a, node);
        if (!node.next()) {
            return false;
        }
        long to = b;
        RelationshipSelection selection = out;
        if (node.supportsFastDegreeLookup()) {
            long outDegree = node.degree(out);
            read.singleNode(b, node);
            if (node.next() && (!node.supportsFastDegreeLookup() || node.degree(in) < outDegree)) {
                to = a;
                selection = in;
            } else {
                read.singleNode(a, node);
                node.next();
            }
        }
        node.relationships(rels, selection);
        while (rels.next()) {
            if (rels.otherNodeReference() == to) {
                return true;
            }
        }
        return false;
    }

    private static IndexDescriptor uniqueIndex(KernelTransaction ktx, int label, int key) {
        var it = ktx.schemaRead().index(SchemaDescriptors.forLabel(label, key));
        while (it.hasNext()) {
            IndexDescriptor d = it.next();
            if (d.isUnique()) {
                return d;
            }
        }
        throw new IllegalStateException("no uniqueness constraint on " + label + "." + key);
    }

    private static PropertyIndexQuery.ExactPredicate[] exact(int key, Object v) {
        return new PropertyIndexQuery.ExactPredicate[] {PropertyIndexQuery.exact(key, value(v))};
    }

    /** Cypher's integers are 64-bit and its floats doubles: a row's Integer is stored as a long, as Cypher does. */
    static Value value(Object v) {
        return switch (v) {
            case Long l -> Values.longValue(l);
            case Integer i -> Values.longValue(i);
            case String s -> Values.stringValue(s);
            case Double d -> Values.doubleValue(d);
            case Boolean b -> Values.booleanValue(b);
            default -> throw new IllegalArgumentException("not a simple value: " + v);
        };
    }
}
