package example.sdn;

import java.util.ArrayList;
import java.util.List;
import org.springframework.data.neo4j.core.schema.GeneratedValue;
import org.springframework.data.neo4j.core.schema.Id;
import org.springframework.data.neo4j.core.schema.Node;
import org.springframework.data.neo4j.core.schema.Relationship;

/** A person: the id is the node's element id, which SDN reads back from the server when it saves. */
@Node("SdnPerson")
public class Person {
    @Id
    @GeneratedValue
    private String id;
    private String name;
    private int seq;
    @Relationship(type = "WORKS_AT")
    private List<Employment> employments = new ArrayList<>();

    public Person() {
    }

    public Person(String name, int seq, Employment employment) {
        this.name = name;
        this.seq = seq;
        this.employments.add(employment);
    }

    public String getId() {
        return id;
    }

    public String getName() {
        return name;
    }

    public int getSeq() {
        return seq;
    }

    public List<Employment> getEmployments() {
        return employments;
    }
}
