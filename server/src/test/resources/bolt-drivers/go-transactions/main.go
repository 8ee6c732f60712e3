// Command go-transactions runs issue 35's Go workload through Neo4j's official Go driver, unchanged, and prints one
// JSON document on stdout.
//
// Usage: go-transactions HOST:PORT USER PASSWORD
//
// 64 goroutines, one session each, run 15 managed transactions each (session.ExecuteWrite, which the driver retries
// on a transient error), each MERGE-ing a visit of a user to a site over a small shared key space (16 users, 8
// sites), so that they contend for the same nodes and relationships. Sites are created first, with a unique
// constraint on User.id and one on Site.url. One transaction in 20 (a seed per goroutine: every server gets the
// same plan) fails on a constraint instead, half of them after their visit, in a second statement creating the user
// they just merged, half at once, creating a site that exists: a Neo.ClientError.Schema.ConstraintValidationFailed,
// which the driver does not retry and which must undo the visit. Goroutine 0 also runs one transaction that reads
// back, by element id, the user it created in the same transaction.
//
// Reported: the transactions committed, the errors that reached the caller by code, every outcome that differs from
// the plan, how often the driver called the transaction functions and why it retried them (from its log), the
// attempts that ran whole but whose COMMIT failed, the values n the visits returned (per user and site they must be
// 1, 2, ... once each, as if the visits ran one at a time), and the graph afterwards beside what the committed
// transactions imply.
//
// Run by io.sluice.bolt.GoTransactionsTest against Neo4j's own server and against sluice.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

const (
	goroutines   = 64
	perGoroutine = 15
	users        = 16
	sites        = 8
	failOneIn    = 20
	readBackUser = 1_000_000
	// the whole run, below the bound GoTransactionsTest gives the process, so that a stuck run still reports
	runBound = 50 * time.Second
	// at most this many differences from the plan are listed (all are counted)
	listed = 20

	constraintFailed = "Neo.ClientError.Schema.ConstraintValidationFailed"

	visit = "MERGE (u:User {id: $u}) MERGE (s:Site {url: $s}) MERGE (u)-[v:VISITED]->(s) " +
		"ON CREATE SET v.n = 1 ON MATCH SET v.n = v.n + 1 RETURN v.n AS n"
	createUser = "CREATE (u:User {id: $u})"
	createSite = "CREATE (s:Site {url: $s})"
)

// What a planned transaction does.
type kind int

const (
	visitOnly    kind = iota // commits
	visitThenDup             // visits, then creates the user it merged: fails in its second statement
	dupSite                  // creates a site that exists: fails at once
)

type op struct {
	kind kind
	user int64
	site string
}

func siteURL(i int) string { return fmt.Sprintf("https://example.org/%d", i) }

// plan is goroutine g's transactions: the same on every server.
func plan(g int) []op {
	rng := rand.New(rand.NewPCG(35, uint64(g)))
	ops := make([]op, perGoroutine)
	for i := range ops {
		o := op{user: int64(rng.IntN(users)), site: siteURL(rng.IntN(sites))}
		if rng.IntN(failOneIn) == 0 {
			o.kind = visitThenDup + kind(rng.IntN(2))
		}
		ops[i] = o
	}
	return ops
}

func (o op) run(ctx context.Context, tx neo4j.ManagedTransaction) (any, error) {
	if o.kind == dupSite {
		return nil, consume(ctx)(tx.Run(ctx, createSite, map[string]any{"s": o.site}))
	}
	// the two-statement variant's first statement has a text of its own: sluice runs alone every transaction whose
	// first statement begins transactions of several, so with one text the visits would stop being grouped
	query := visit
	if o.kind == visitThenDup {
		query = visit + " // then a duplicate user"
	}
	res, err := tx.Run(ctx, query, map[string]any{"u": o.user, "s": o.site})
	if err != nil {
		return nil, err
	}
	rec, err := res.Single(ctx)
	if err != nil {
		return nil, err
	}
	n, _ := rec.Get("n")
	if o.kind == visitThenDup {
		if err := consume(ctx)(tx.Run(ctx, createUser, map[string]any{"u": o.user})); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// consume reads a statement's result to its end (where the driver reports the statement's failure); a function,
// so that Run's two results can be passed to it whole.
func consume(ctx context.Context) func(neo4j.ResultWithContext, error) error {
	return func(res neo4j.ResultWithContext, err error) error {
		if err != nil {
			return err
		}
		_, err = res.Consume(ctx)
		return err
	}
}

type report struct {
	Driver          string         `json:"driver"`
	Transactions    int            `json:"transactions"`
	PlannedFailures map[string]int `json:"planned_failures"`
	Committed       int            `json:"committed"`
	CommittedVisits int            `json:"committed_visits"`
	Calls           int            `json:"calls"`
	Retries         int            `json:"retries"`
	// why the driver retried, by code, and how long it slept before retrying, from its log
	RetryCauses    map[string]int `json:"retry_causes"`
	BackoffSeconds float64        `json:"backoff_seconds"`
	// the errors met inside the transaction functions, by code, and the attempts whose statements all ran but
	// whose COMMIT failed (Neo4j may report a deadlock there)
	FunctionErrors map[string]int `json:"function_errors"`
	CommitFailed   int            `json:"commit_failed"`
	Errors         map[string]int `json:"errors"`
	Unexpected     int            `json:"unexpected"`
	UnexpectedList []string       `json:"unexpected_list"`
	Seconds        float64        `json:"seconds"`
	ReadBack       readBack       `json:"read_back"`
	Expected       aggregates     `json:"expected"`
	Graph          aggregates     `json:"graph"`
	// pairs whose returned n were not 1, 2, ... k once each, or whose v.n in the graph is not k
	ReturnedWrong []string `json:"returned_wrong"`
	GraphWrong    []string `json:"graph_wrong"`

	mu       sync.Mutex
	returned map[string][]int64 // per user and site, the n each committed visit returned
	visitors map[int64]bool
}

type aggregates struct {
	Nodes         int64 `json:"nodes"`
	Relationships int64 `json:"relationships"`
	Users         int64 `json:"users"`
	Sites         int64 `json:"sites"`
	Visited       int64 `json:"visited"`
	Sum           int64 `json:"sum"`
}

type readBack struct {
	Committed bool   `json:"committed"`
	Calls     int    `json:"calls"`
	Same      bool   `json:"same"`
	Read      string `json:"read"`
	Error     string `json:"error,omitempty"`
}

func pairKey(user int64, site string) string { return fmt.Sprintf("%d %s", user, site) }

func (r *report) unexpected(format string, args ...any) {
	r.Unexpected++
	if len(r.UnexpectedList) < listed {
		r.UnexpectedList = append(r.UnexpectedList, fmt.Sprintf(format, args...))
	}
}

func (r *report) record(g, i int, o op, calls int, n any, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Calls += calls
	r.Retries += max(calls-1, 0)
	if err == nil {
		r.Committed++
		if o.kind != visitOnly {
			r.unexpected("goroutine %d, transaction %d (kind %d): committed, planned to fail", g, i, o.kind)
		}
		if o.kind != dupSite {
			r.CommittedVisits++
			v, ok := n.(int64)
			if !ok {
				r.unexpected("goroutine %d, transaction %d: n is %T %v", g, i, n, n)
			}
			r.returned[pairKey(o.user, o.site)] = append(r.returned[pairKey(o.user, o.site)], v)
			r.visitors[o.user] = true
		}
		return
	}
	code := codeOf(err)
	r.Errors[code]++
	if o.kind == visitOnly || code != constraintFailed {
		r.unexpected("goroutine %d, transaction %d (kind %d): %s", g, i, o.kind, err)
		fmt.Fprintf(os.Stderr, "goroutine %d, transaction %d (kind %d): %v\n", g, i, o.kind, err)
	}
}

// attempts counts the errors the transaction function met, and its attempts that ran whole but did not commit (the
// driver retried after them, or gave up, so their COMMIT failed).
func (r *report) attempts(inFunction map[string]int, committed int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for code, k := range inFunction {
		if code == "" {
			r.CommitFailed += k - committed
		} else {
			r.FunctionErrors[code] += k
		}
	}
}

// codeOf is the Neo4j code of what reached the caller, else the error's type.
func codeOf(err error) string {
	var limit *neo4j.TransactionExecutionLimit
	if errors.As(err, &limit) { // the driver gave up retrying: say so, not the last transient code
		return "TransactionExecutionLimit"
	}
	var ne *neo4j.Neo4jError
	if errors.As(err, &ne) {
		return ne.Code
	}
	return fmt.Sprintf("%T", err)
}

// retryLog is the driver's logger: it keeps what the driver says when it retries a transaction function (why, and
// how long it sleeps first) and drops everything else.
type retryLog struct{ r *report }

func (retryLog) Error(string, string, error)          {}
func (retryLog) Warnf(string, string, string, ...any) {}
func (retryLog) Infof(string, string, string, ...any) {}
func (l retryLog) Debugf(_, _ string, msg string, args ...any) {
	if !strings.HasPrefix(msg, "Retrying transaction") || len(args) < 2 {
		return
	}
	cause := "unknown"
	if err, ok := args[1].(error); ok {
		cause = codeOf(err)
	}
	l.r.mu.Lock()
	defer l.r.mu.Unlock()
	l.r.RetryCauses[cause]++
	if len(args) > 2 {
		if d, ok := args[2].(time.Duration); ok {
			l.r.BackoffSeconds += d.Seconds()
		}
	}
}

func worker(ctx context.Context, driver neo4j.DriverWithContext, g int, r *report) {
	session := driver.NewSession(ctx, neo4j.SessionConfig{})
	defer session.Close(ctx)
	for i, o := range plan(g) {
		if g == 0 && i == perGoroutine/2 {
			rb := readBackOwn(ctx, session)
			r.mu.Lock()
			r.ReadBack = rb
			if rb.Committed {
				r.visitors[readBackUser] = true
			}
			r.mu.Unlock()
		}
		calls, inFunction := 0, map[string]int{}
		n, err := session.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
			calls++
			n, err := o.run(ctx, tx)
			if err != nil {
				inFunction[codeOf(err)]++
			} else {
				inFunction[""]++ // ran whole: a retry after it means its COMMIT failed
			}
			return n, err
		})
		committed := 0
		if err == nil {
			committed = 1
		}
		r.record(g, i, o, calls, n, err)
		r.attempts(inFunction, committed)
	}
}

// readBackOwn creates a user and reads it back, by the element id it was given, in the same transaction: values
// the client holds (what an object mapper does after saving).
func readBackOwn(ctx context.Context, session neo4j.SessionWithContext) readBack {
	rb := readBack{}
	tags := []any{"go", "read-back"}
	read, err := session.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		rb.Calls++
		res, err := tx.Run(ctx, "CREATE (u:User {id: $u, name: $name, tags: $tags}) RETURN elementId(u) AS eid",
			map[string]any{"u": int64(readBackUser), "name": "reader", "tags": tags})
		if err != nil {
			return nil, err
		}
		rec, err := res.Single(ctx)
		if err != nil {
			return nil, err
		}
		eid, _ := rec.Get("eid")
		res, err = tx.Run(ctx, "MATCH (u:User) WHERE elementId(u) = $eid RETURN u.id AS id, u.name AS name, "+
			"u.tags AS tags", map[string]any{"eid": eid})
		if err != nil {
			return nil, err
		}
		rec, err = res.Single(ctx)
		if err != nil {
			return nil, err
		}
		return rec.AsMap(), nil
	})
	if err != nil {
		rb.Error = codeOf(err) + ": " + err.Error()
		return rb
	}
	rb.Committed = true
	got, _ := json.Marshal(read)
	rb.Read = string(got)
	want, _ := json.Marshal(map[string]any{"id": readBackUser, "name": "reader", "tags": tags})
	rb.Same = rb.Read == string(want)
	return rb
}

func setUp(ctx context.Context, driver neo4j.DriverWithContext) error {
	session := driver.NewSession(ctx, neo4j.SessionConfig{})
	defer session.Close(ctx)
	urls := make([]any, sites)
	for i := range urls {
		urls[i] = siteURL(i)
	}
	for _, q := range []struct {
		cypher string
		params map[string]any
	}{
		{"MATCH (n) DETACH DELETE n", nil},
		{"CREATE CONSTRAINT go_user_id IF NOT EXISTS FOR (u:User) REQUIRE u.id IS UNIQUE", nil},
		{"CREATE CONSTRAINT go_site_url IF NOT EXISTS FOR (s:Site) REQUIRE s.url IS UNIQUE", nil},
		{"UNWIND $urls AS url CREATE (:Site {url: url})", map[string]any{"urls": urls}},
	} {
		if err := consume(ctx)(session.Run(ctx, q.cypher, q.params)); err != nil {
			return fmt.Errorf("%s: %w", q.cypher, err)
		}
	}
	return nil
}

func one(ctx context.Context, session neo4j.SessionWithContext, cypher string) (*neo4j.Record, error) {
	res, err := session.Run(ctx, cypher, nil)
	if err != nil {
		return nil, err
	}
	return res.Single(ctx)
}

// readGraph fills in the graph's aggregates and compares each visited pair's v.n with the visits that committed.
func readGraph(ctx context.Context, driver neo4j.DriverWithContext, r *report) error {
	session := driver.NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeRead})
	defer session.Close(ctx)
	counts := []struct {
		cypher string
		into   *int64
	}{
		{"MATCH (n) RETURN count(n) AS c", &r.Graph.Nodes},
		{"MATCH ()-[r]->() RETURN count(r) AS c", &r.Graph.Relationships},
		{"MATCH (u:User) RETURN count(u) AS c", &r.Graph.Users},
		{"MATCH (s:Site) RETURN count(s) AS c", &r.Graph.Sites},
		{"MATCH (:User)-[v:VISITED]->(:Site) RETURN count(v) AS c", &r.Graph.Visited},
		{"MATCH (:User)-[v:VISITED]->(:Site) RETURN coalesce(sum(v.n), 0) AS c", &r.Graph.Sum},
	}
	for _, c := range counts {
		rec, err := one(ctx, session, c.cypher)
		if err != nil {
			return fmt.Errorf("%s: %w", c.cypher, err)
		}
		v, _ := rec.Values[0].(int64)
		*c.into = v
	}
	res, err := session.Run(ctx, "MATCH (u:User)-[v:VISITED]->(s:Site) RETURN u.id AS u, s.url AS s, v.n AS n", nil)
	if err != nil {
		return err
	}
	recs, err := res.Collect(ctx)
	if err != nil {
		return err
	}
	inGraph := map[string]int64{}
	for _, rec := range recs {
		u, _ := rec.Values[0].(int64)
		s, _ := rec.Values[1].(string)
		n, _ := rec.Values[2].(int64)
		inGraph[pairKey(u, s)] = n
	}
	for pair, ns := range r.returned {
		slices.Sort(ns)
		for i, n := range ns {
			if n != int64(i+1) {
				r.ReturnedWrong = append(r.ReturnedWrong, fmt.Sprintf("%s: %v", pair, ns))
				break
			}
		}
		if inGraph[pair] != int64(len(ns)) {
			r.GraphWrong = append(r.GraphWrong, fmt.Sprintf("%s: v.n %d, %d visits committed", pair, inGraph[pair],
				len(ns)))
		}
	}
	for pair, n := range inGraph {
		if _, ok := r.returned[pair]; !ok {
			r.GraphWrong = append(r.GraphWrong, fmt.Sprintf("%s: v.n %d, no visit committed", pair, n))
		}
	}
	slices.Sort(r.ReturnedWrong)
	slices.Sort(r.GraphWrong)
	return nil
}

func driverVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if strings.HasPrefix(dep.Path, "github.com/neo4j/neo4j-go-driver") {
				return dep.Path + " " + dep.Version
			}
		}
	}
	return "unknown"
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: go-transactions HOST:PORT USER PASSWORD")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), runBound)
	defer cancel()
	r := &report{Driver: driverVersion(), Transactions: goroutines * perGoroutine, Errors: map[string]int{},
		RetryCauses: map[string]int{}, FunctionErrors: map[string]int{}, PlannedFailures: map[string]int{}, UnexpectedList: []string{},
		ReturnedWrong: []string{}, GraphWrong: []string{}, returned: map[string][]int64{},
		visitors: map[int64]bool{}}
	driver, err := neo4j.NewDriverWithContext("bolt://"+os.Args[1], neo4j.BasicAuth(os.Args[2], os.Args[3], ""),
		func(c *neo4j.Config) { c.Log = retryLog{r} })
	if err != nil {
		fail(err)
	}
	defer driver.Close(context.Background())
	if err := setUp(ctx, driver); err != nil {
		fail(err)
	}
	for g := range goroutines {
		for _, o := range plan(g) {
			switch o.kind {
			case visitThenDup:
				r.PlannedFailures["second_statement"]++
			case dupSite:
				r.PlannedFailures["create_existing"]++
			}
		}
	}
	start := time.Now()
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			worker(ctx, driver, g, r)
		}()
	}
	wg.Wait()
	r.Seconds = time.Since(start).Seconds()

	r.Expected = aggregates{Users: int64(len(r.visitors)), Sites: sites, Visited: int64(len(r.returned)),
		Sum: int64(r.CommittedVisits)}
	r.Expected.Nodes = r.Expected.Users + r.Expected.Sites
	r.Expected.Relationships = r.Expected.Visited
	if err := readGraph(ctx, driver, r); err != nil {
		fail(err)
	}
	out := json.NewEncoder(os.Stdout)
	out.SetIndent("", " ")
	if err := out.Encode(r); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "go-transactions:", err)
	os.Exit(1)
}
