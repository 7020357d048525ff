package server_test

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
)

// The plans of the statements a request sends, as the database makes them:
// what TestPlansDoNotReadGrownTables reads.

// sentStatement is a statement as the store sent it.
type sentStatement struct {
	query  string
	params []any
}

// paramsRecorder keeps the generic queries sent while it is on, with their
// parameters (storage.StatementParamsHook).
type paramsRecorder struct {
	mu   sync.Mutex
	on   bool
	sent []sentStatement
}

var _ storage.StatementParamsHook = (*paramsRecorder)(nil)

func (r *paramsRecorder) BeforeStatement(ctx context.Context, _ string) context.Context { return ctx }

func (r *paramsRecorder) AfterStatement(context.Context, string, error) {}

func (r *paramsRecorder) StatementParams(_ context.Context, query string, params []any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.on && strings.HasPrefix(query, "SELECT") {
		r.sent = append(r.sent, sentStatement{query, append([]any(nil), params...)})
	}
}

// during returns the SELECTs sent while fn runs.
func (r *paramsRecorder) during(fn func()) []sentStatement {
	r.mu.Lock()
	r.on, r.sent = true, nil
	r.mu.Unlock()
	fn()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on = false
	return r.sent
}

// plan is one plan of a statement, as the database prints it.
type plan struct{ kind, text string }

// plansOf reads the plans of st: on SQLite its query plan with its
// parameters; on PostgreSQL the plan for its values and the generic plan of
// the statement prepared, each run (PREPARE, then EXPLAIN (ANALYZE) EXECUTE
// under each plan_cache_mode, with the values written as literals), on one
// connection.
func plansOf(ctx context.Context, t *testing.T, s *storage.Store, st sentStatement) []plan {
	t.Helper()
	conn, err := s.DB().DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if s.Dialect() == "sqlite" {
		return []plan{{"query", readPlan(ctx, t, conn, "EXPLAIN QUERY PLAN "+st.query, st.params...)}}
	}
	execSQL(ctx, t, conn, "PREPARE growth_plan AS "+st.query)
	defer execSQL(ctx, t, conn, "RESET plan_cache_mode")
	defer execSQL(ctx, t, conn, "DEALLOCATE growth_plan")
	var out []plan
	for _, mode := range []string{"custom", "generic"} {
		execSQL(ctx, t, conn, "SET plan_cache_mode = force_"+mode+"_plan")
		out = append(out, plan{mode, readPlan(ctx, t, conn, "EXPLAIN (ANALYZE) "+execute(t, "growth_plan", st.params))})
	}
	return out
}

// keptStatements are statements prepared on one connection while the
// tables are small and run six times each, as pgx's statement cache runs
// them on a connection of the pool: after five runs PostgreSQL may keep a
// generic plan for the statement.
type keptStatements struct {
	conn    *sql.Conn
	queries []string
	runs    []string // the EXECUTE of each query, with its values
}

func keep(ctx context.Context, t *testing.T, s *storage.Store, sent []sentStatement) *keptStatements {
	t.Helper()
	conn, err := s.DB().DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	k := &keptStatements{conn: conn}
	seen := map[string]bool{}
	for _, st := range sent {
		if seen[st.query] {
			continue
		}
		seen[st.query] = true
		name := "growth_kept_" + strconv.Itoa(len(k.runs))
		execSQL(ctx, t, conn, "PREPARE "+name+" AS "+st.query)
		run := execute(t, name, st.params)
		for range 6 {
			execSQL(ctx, t, conn, run)
		}
		k.queries, k.runs = append(k.queries, st.query), append(k.runs, run)
	}
	return k
}

// plans reads the plan each kept statement runs with now (EXPLAIN
// EXECUTE uses the plan PostgreSQL keeps, planning it again only when it
// was invalidated); a plan's kind is its statement.
func (k *keptStatements) plans(ctx context.Context, t *testing.T) []plan {
	out := make([]plan, len(k.runs))
	for i, run := range k.runs {
		out[i] = plan{k.queries[i], readPlan(ctx, t, k.conn, "EXPLAIN (ANALYZE) "+run)}
	}
	return out
}

// execute is the EXECUTE of the prepared statement name with params.
func execute(t *testing.T, name string, params []any) string {
	if len(params) == 0 {
		return "EXECUTE " + name
	}
	lits := make([]string, len(params))
	for i, p := range params {
		lits[i] = literal(t, p)
	}
	return "EXECUTE " + name + "(" + strings.Join(lits, ", ") + ")"
}

func execSQL(ctx context.Context, t *testing.T, conn *sql.Conn, q string) {
	t.Helper()
	if _, err := conn.ExecContext(ctx, q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// readPlan runs an EXPLAIN and returns the last column of its rows, a line
// each (SQLite's detail; PostgreSQL's plan line).
func readPlan(ctx context.Context, t *testing.T, conn *sql.Conn, q string, args ...any) string {
	t.Helper()
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s\n", vals[len(vals)-1])
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return b.String()
}

// literal writes a parameter as an SQL literal of unknown type, which
// EXECUTE converts to the parameter's type.
func literal(t *testing.T, v any) string {
	t.Helper()
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	switch v := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(v, 10)
	case int:
		return strconv.Itoa(v)
	case string:
		return quote(v)
	case bool:
		return strconv.FormatBool(v)
	case time.Time:
		return quote(v.Format(time.RFC3339Nano))
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			s := strings.Trim(literal(t, e), "'")
			parts[i] = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
		}
		return quote("{" + strings.Join(parts, ",") + "}")
	}
	t.Fatalf("no literal for a parameter of type %T", v)
	return ""
}

// readBound is how many rows of the grown table a plan may read for a page
// of at most 50 of them: 0.5% of the table, twenty times the page.
const readBound = 1000

var (
	seqScan  = regexp.MustCompile(`^(SCAN (\S+)|Seq Scan on (\S+))`)
	scanNode = regexp.MustCompile(`Scan.* on (\S+) .*\(actual time=\S+ rows=(\d+) loops=(\d+)\)`)
	removed  = regexp.MustCompile(`Rows Removed by (Filter|Index Recheck): (\d+)`)
)

// wholeScan names the first node of plan that reads table whole, or "": a
// sequential scan (PostgreSQL's Seq Scan, SQLite's SCAN, with or without an
// index: SEARCH is what reads by key), or, in PostgreSQL's EXPLAIN ANALYZE,
// a scan of it that read more than readBound rows (an index scan on
// organization_id reads the whole organization, which is the table).
func wholeScan(plan, table string) string {
	lines := strings.Split(plan, "\n")
	for i, line := range lines {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "->"))
		if m := seqScan.FindStringSubmatch(line); m != nil && (m[2] == table || m[3] == table) {
			return line
		}
		m := scanNode.FindStringSubmatch(line)
		if m == nil || m[1] != table {
			continue
		}
		rows, _ := strconv.Atoi(m[2])
		loops, _ := strconv.Atoi(m[3])
		for _, detail := range lines[i+1:] {
			if strings.Contains(detail, "->") {
				break
			}
			if r := removed.FindStringSubmatch(detail); r != nil {
				n, _ := strconv.Atoi(r[2])
				rows += n
			}
		}
		if rows*loops > readBound {
			return fmt.Sprintf("%d rows read: %s", rows*loops, line)
		}
	}
	return ""
}

// TestWholeScan holds the reading of plans TestPlansDoNotReadGrownTables
// relies on: each plan it must refuse is refused, each it must pass passes.
func TestWholeScan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, plan string
		whole      bool
	}{
		{"sqlite scan", "SCAN accounts\n", true},
		{"sqlite scan of an index", "SCAN accounts USING INDEX accounts_organization_id_id_idx\n", true},
		{"sqlite search", "SEARCH accounts USING INTEGER PRIMARY KEY (rowid=?)\nLIST SUBQUERY 1\nSCAN k VIRTUAL TABLE INDEX 1:\n", false},
		{"sqlite scan of another table", "SCAN contacts\nSEARCH accounts USING INTEGER PRIMARY KEY (rowid=?)\n", false},
		{"postgres seq scan", "Limit  (cost=0.00..1.00 rows=20 width=8) (actual time=0.01..0.02 rows=20 loops=1)\n" +
			"  ->  Seq Scan on accounts  (cost=0.00..3000.00 rows=200050 width=8) (actual time=0.01..0.02 rows=20 loops=1)\n", true},
		{"postgres bitmap scan of the organization", "Hash Join  (cost=52.08..1402.43 rows=2 width=120) (actual time=65.209..65.245 rows=50 loops=1)\n" +
			"  ->  Bitmap Heap Scan on accounts  (cost=8.87..1357.65 rows=591 width=120) (actual time=6.683..49.025 rows=200050 loops=1)\n" +
			"        Recheck Cond: (organization_id = '1'::bigint)\n", true},
		{"postgres rows removed by a filter", "Bitmap Heap Scan on accounts  (cost=4.17..11.32 rows=1 width=120) (actual time=10.406..142.669 rows=50 loops=1)\n" +
			"  Recheck Cond: (organization_id = $1)\n  Filter: (id = ANY ($0))\n  Rows Removed by Filter: 200000\n", true},
		{"postgres loops", "Index Scan using accounts_pkey on accounts  (cost=0.42..8.17 rows=1 width=120) (actual time=0.002..0.002 rows=1 loops=5000)\n", true},
		{"postgres keys", "Index Scan using accounts_organization_id_id_idx on accounts  (cost=0.42..48.28 rows=1 width=120) (actual time=0.075..0.134 rows=50 loops=1)\n" +
			"  Index Cond: ((organization_id = $1) AND (id = ANY ($0)))\n", false},
		{"postgres page from an index", "Limit  (cost=0.42..1.26 rows=21 width=100) (actual time=0.01..0.05 rows=21 loops=1)\n" +
			"  ->  Index Scan Backward using accounts_pkey on accounts  (cost=0.42..7982.30 rows=200050 width=100) (actual time=0.01..0.04 rows=21 loops=1)\n" +
			"        Filter: (organization_id = '1'::bigint)\n", false},
		{"postgres seq scan of a small table", "Seq Scan on account_contacts  (cost=0.12..37.88 rows=460 width=8) (actual time=0.014..0.058 rows=99 loops=1)\n", false},
	}
	for _, tc := range tests {
		if got := wholeScan(tc.plan, "accounts"); (got != "") != tc.whole {
			t.Errorf("%s: wholeScan = %q, want whole %v", tc.name, got, tc.whole)
		}
	}
}
