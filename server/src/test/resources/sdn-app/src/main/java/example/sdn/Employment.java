package example.sdn;

import org.springframework.data.neo4j.core.schema.RelationshipId;
import org.springframework.data.neo4j.core.schema.RelationshipProperties;
import org.springframework.data.neo4j.core.schema.TargetNode;

/** WORKS_AT, with a property of its own. */
@RelationshipProperties
public class Employment {
    @RelationshipId
    private String id;
    private int since;
    @TargetNode
    private Company company;

    public Employment() {
    }

    public Employment(int since, Company company) {
        this.since = since;
        this.company = company;
    }

    public String getId() {
        return id;
    }

    public int getSince() {
        return since;
    }

    public Company getCompany() {
        return company;
    }
}
