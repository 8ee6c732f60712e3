package example.sdn;

import java.util.UUID;
import org.springframework.data.neo4j.repository.Neo4jRepository;
import org.springframework.data.neo4j.repository.query.Query;
import org.springframework.data.repository.query.Param;

public interface CompanyRepository extends Neo4jRepository<Company, UUID> {
    /** Counts a hire: the write locks the company, so the entity returned is current until the commit. */
    @Query("MATCH (c:SdnCompany {name: $name}) SET c.hires = c.hires + 1 RETURN c")
    Company hire(@Param("name") String name);
}
