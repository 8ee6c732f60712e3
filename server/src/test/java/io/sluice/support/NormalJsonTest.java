package io.sluice.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** What the differential tests let differ between two servers, and what they do not. */
class NormalJsonTest {
    /** {@code body} (JSON written with ' for ") normalised, as JSON written with '. */
    static String normal(String body) {
        return NormalJson.normalise(NormalJson.parse(body.replace('\'', '"')),
                Map.of("http://127.0.0.1:7474", "<http>"), UnaryOperator.identity()).toString().replace('"', '\'');
    }

    @Test
    void idsBookmarksExpiryAndTimingsAreLeftAsideButIdentitiesAreKept() {
        assertThat(normal("{'data':{'values':[[{'elementId':'4:x:7'},{'elementId':'5:x:7','startNodeElementId':"
                + "'4:x:7'}]]},'resultAvailableAfter':3,'resultConsumedAfter':4,'bookmarks':['FB:a'],"
                + "'transaction':{'id':'abc123','expires':'2026-11-22T19:54:08Z'}}"))
                .isEqualTo("{'data':{'values':[[{'elementId':'<e1>'},{'elementId':'<e2>','startNodeElementId':"
                        + "'<e1>'}]]},'bookmarks':'<bookmarks>','transaction':{'id':'<tx>','expires':'<expires>'}}");
    }

    @Test
    void nodeAndRelationshipIdsAreNumberedApart() {
        assertThat(normal("{'meta':[{'id':0,'type':'node'},{'id':0,'type':'relationship'},{'id':1,'type':'node'}],"
                + "'graph':{'relationships':[{'id':'0','startNode':'1','endNode':'0'}]}}"))
                .isEqualTo("{'meta':[{'id':'<n1>','type':'node'},{'id':'<r1>','type':'relationship'},"
                        + "{'id':'<n2>','type':'node'}],'graph':{'relationships':[{'id':'<r1>','startNode':'<n2>',"
                        + "'endNode':'<n1>'}]}}");
    }

    @Test
    void valuesKeepTheirTextAndAddressesTheirPlace() {
        assertThat(normal("{'row':[3.0,1.0E20,9007199254740993,'x'],'commit':'http://127.0.0.1:7474/db/neo4j/tx/12/"
                + "commit','errors':[{'code':'C','message':'Transaction with Id: \\'a1b2c3\\' was not found.'}]}"))
                .isEqualTo("{'row':[3.0,1.0E+20,9007199254740993,'x'],'commit':'<http>/db/neo4j/tx/<n>/commit',"
                        + "'errors':[{'code':'C','message':'Transaction with Id: \\'<tx>\\' was not found.'}]}");
        assertThat(normal("{'row':[3]}")).as("3 is not 3.0").isNotEqualTo(normal("{'row':[3.0]}"));
        assertThat(normal("{'a':1}\n {'b':2}")).as("JSON lines").isEqualTo("[{'a':1},{'b':2}]");
    }
}
