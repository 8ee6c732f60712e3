package example.sdn;

import java.util.UUID;
import org.springframework.data.neo4j.core.schema.GeneratedValue;
import org.springframework.data.neo4j.core.schema.Id;
import org.springframework.data.neo4j.core.schema.Node;

/** A company many people work at: a UUID id SDN assigns, a name a unique constraint guards, a counter. */
@Node("SdnCompany")
public class Company {
    @Id
    @GeneratedValue(GeneratedValue.UUIDGenerator.class)
    private UUID id;
    private String name;
    private long hires;

    public Company() {
    }

    public Company(String name) {
        this.name = name;
    }

    public UUID getId() {
        return id;
    }

    public String getName() {
        return name;
    }

    public long getHires() {
        return hires;
    }
}
