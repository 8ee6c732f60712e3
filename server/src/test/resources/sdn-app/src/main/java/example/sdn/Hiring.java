package example.sdn;

import java.util.Collection;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The application's unit of work, in Spring's transactions: SDN runs each as one driver transaction
 * ({@code session.beginTransaction}), committed when the method returns and rolled back when it throws.
 */
@Service
public class Hiring {
    private final PersonRepository people;
    private final CompanyRepository companies;

    public Hiring(PersonRepository people, CompanyRepository companies) {
        this.people = people;
        this.companies = companies;
    }

    /** What a unit saved: the id SDN assigned, the company's count it took, and what its own read saw wrong. */
    public record Hired(String id, long hires, String wrong) {
    }

    /**
     * Counts a hire at the company, saves a new person working there and reads the person back by the id SDN
     * assigned. With {@code violate}, the person is connected to a new company of the same name instead: its
     * creation breaks the unique constraint and the whole unit rolls back.
     */
    @Transactional
    public Hired hire(String name, int seq, String companyName, boolean violate) {
        // counted first: SDN's save writes the related company's properties back, so the entity it is given must
        // hold the count as of the lock (one loaded before would write a stale count over other units' hires)
        Company company = companies.hire(companyName);
        if (company == null) {
            throw new IllegalStateException("no company " + companyName);
        }
        Company target = violate ? new Company(companyName) : company;
        Person saved = people.save(new Person(name, seq, new Employment(seq, target)));
        Person read = people.findById(saved.getId()).orElse(null);
        return new Hired(saved.getId(), company.getHires(),
                wrong(read, name, seq, companyName, company.getHires(), true));
    }

    /** The person read back in a transaction of its own, after the unit committed: null when right. */
    @Transactional(readOnly = true)
    public String readBack(Hired hired, String name, int seq, String companyName) {
        return wrong(people.findById(hired.id()).orElse(null), name, seq, companyName, hired.hires(), false);
    }

    /** How many of the ids are found, in one read-only transaction. */
    @Transactional(readOnly = true)
    public int found(Collection<String> ids) {
        return people.findAllById(ids).size();
    }

    /**
     * What is wrong with a person read back, or null. In the saving transaction the company's count is the one
     * its own write left; later, others may have counted more.
     */
    static String wrong(Person p, String name, int seq, String company, long hires, boolean sameTransaction) {
        if (p == null) {
            return "not found";
        }
        if (!name.equals(p.getName()) || p.getSeq() != seq) {
            return "person " + p.getName() + "/" + p.getSeq();
        }
        if (p.getEmployments().size() != 1) {
            return p.getEmployments().size() + " employments";
        }
        Employment e = p.getEmployments().getFirst();
        if (e.getId() == null || e.getSince() != seq || e.getCompany() == null
                || !company.equals(e.getCompany().getName())) {
            return "employment " + e.getId() + "/" + e.getSince() + " at "
                    + (e.getCompany() == null ? null : e.getCompany().getName());
        }
        long seen = e.getCompany().getHires();
        if (sameTransaction ? seen != hires : seen < hires) {
            return "the company's hires " + seen + ", " + (sameTransaction ? "" : "at least ") + hires + " expected";
        }
        return null;
    }
}
