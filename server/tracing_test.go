package server_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// spans is what a traced test server recorded: an in-memory exporter fed
// as each span ends, and a signal of each end, so that a test waits for the
// span it needs (a request span ends after its answer is sent; a chunk job
// runs on a worker) instead of for a time.
type spans struct {
	exp     *tracetest.InMemoryExporter
	mu      sync.Mutex
	changed chan struct{} // closed, and replaced, when a span ends
}

// spans is also the sdktrace.SpanProcessor giving the signal; it comes
// after the exporter's, so a span is exported when it is signalled.
func (s *spans) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (s *spans) OnEnd(sdktrace.ReadOnlySpan) {
	s.mu.Lock()
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}
func (s *spans) Shutdown(context.Context) error   { return nil }
func (s *spans) ForceFlush(context.Context) error { return nil }

// await returns the first recorded span for which match holds, waiting
// for it to end (a minute at most: a liveness bound, not a measure).
func (s *spans) await(t *testing.T, what string, match func(tracetest.SpanStub) bool) tracetest.SpanStub {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		s.mu.Lock()
		changed := s.changed
		s.mu.Unlock()
		for _, sp := range s.exp.GetSpans() {
			if match(sp) {
				return sp
			}
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("no span %s was recorded; spans: %s", what, spanNames(s.exp.GetSpans()))
		}
	}
}

// children are the recorded spans whose parent is sp.
func (s *spans) children(sp tracetest.SpanStub) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, c := range s.exp.GetSpans() {
		if c.Parent.SpanID() == sp.SpanContext.SpanID() && c.Parent.TraceID() == sp.SpanContext.TraceID() {
			out = append(out, c)
		}
	}
	return out
}

func spanNames(list []tracetest.SpanStub) string {
	names := make([]string, len(list))
	for i, sp := range list {
		names[i] = sp.Name
	}
	return strings.Join(names, ", ")
}

// named is the one span of list called name.
func named(t *testing.T, list []tracetest.SpanStub, name string) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	for _, sp := range list {
		if sp.Name == name {
			found = append(found, sp)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d spans named %q among %s, want 1", len(found), name, spanNames(list))
	}
	return found[0]
}

// attr is the value of a span's attribute, as a string ("" when absent).
func attr(sp tracetest.SpanStub, key attribute.Key) string {
	for _, kv := range sp.Attributes {
		if kv.Key == key {
			return kv.Value.Emit()
		}
	}
	return ""
}

// tracedAPI is a server on a database of dialect whose spans are recorded.
func tracedAPI(t *testing.T, dialect string, adjust func(*server.Config)) (*api, *spans) {
	rec := &spans{exp: tracetest.NewInMemoryExporter(), changed: make(chan struct{})}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(rec.exp), sdktrace.WithSpanProcessor(rec),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample())))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	a := newAPIWith(t, storagetest.Open(t, dialect), func(c *server.Config) {
		c.TracerProvider = tp
		if adjust != nil {
			adjust(c)
		}
	})
	return a, rec
}

// dbSystem is the db.system.name of a dialect's statements.
func dbSystem(dialect string) string {
	if dialect == "postgres" {
		return "postgresql"
	}
	return "sqlite"
}

// sqlChildren are the statement spans under sp, each checked for the
// attributes every statement span has.
func sqlChildren(t *testing.T, rec *spans, sp tracetest.SpanStub, dialect string) []tracetest.SpanStub {
	t.Helper()
	var out []tracetest.SpanStub
	for _, c := range rec.children(sp) {
		if attr(c, "db.system.name") == "" {
			continue
		}
		if got := attr(c, "db.system.name"); got != dbSystem(dialect) {
			t.Errorf("statement %q: db.system.name %q, want %q", c.Name, got, dbSystem(dialect))
		}
		if c.SpanKind != trace.SpanKindClient || attr(c, "db.operation.name") != c.Name || attr(c, "db.query.text") == "" {
			t.Errorf("statement span %q: kind %v, attributes %v", c.Name, c.SpanKind, c.Attributes)
		}
		out = append(out, c)
	}
	return out
}

// TestTracingRequestSpanTree: a GET is a server span named by its route
// template, with the status and the client, whose children are the
// validation and the engine; the engine's children are the statements that
// read the record. On PostgreSQL that read goes through pgx's pool, not
// database/sql (storage/rows.go), so both paths are held here: the batch
// test's statements run in transactions, through database/sql and Bun.
func TestTracingRequestSpanTree(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			a, rec := tracedAPI(t, dialect, nil)
			id := a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Traced"}}}`)
			a.do(http.MethodGet, "/admin/api/accounts/"+id, jsonAPI, "").want(t, 200)

			req := rec.await(t, "of the GET", func(sp tracetest.SpanStub) bool {
				return sp.Name == "GET /admin/api/accounts/:id"
			})
			if req.SpanKind != trace.SpanKindServer || req.Parent.IsValid() {
				t.Errorf("request span: kind %v, parent %v; want a server span at the root", req.SpanKind, req.Parent)
			}
			for key, want := range map[attribute.Key]string{
				"http.route": "/admin/api/accounts/:id", "http.request.method": "GET",
				"http.response.status_code": "200", "entityapi.client_id": principalNamed(t, "admin").client,
			} {
				if got := attr(req, key); got != want {
					t.Errorf("request span: %s = %q, want %q", key, got, want)
				}
			}
			if attr(req, "entityapi.request_id") == "" {
				t.Errorf("request span has no entityapi.request_id: %v", req.Attributes)
			}
			kids := rec.children(req)
			validate, engine := named(t, kids, "validate"), named(t, kids, "engine")
			if validate.Status.Code != 0 { // codes.Unset
				t.Errorf("validate span of a valid request: status %v", validate.Status)
			}
			if got := attr(engine, "entityapi.operation_id"); got != "getAccount" {
				t.Errorf("engine span: operation id %q, want getAccount", got)
			}
			statements := sqlChildren(t, rec, engine, dialect)
			read := false
			for _, st := range statements {
				read = read || (st.Name == "SELECT" && strings.Contains(attr(st, "db.query.text"), "accounts"))
			}
			if !read {
				t.Errorf("no SELECT of accounts under the engine span; its statements: %s", spanNames(statements))
			}
			for _, sp := range rec.exp.GetSpans() {
				if sp.SpanContext.TraceID() == req.SpanContext.TraceID() && strings.Contains(attr(sp, "db.query.text"), "Traced") {
					t.Errorf("a statement's text carries a value: %s", attr(sp, "db.query.text"))
				}
			}
		})
	}
}

// TestTracingRefusedValidation: a request the document refuses ends its
// validate span with an error and has no engine span.
func TestTracingRefusedValidation(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			a, rec := tracedAPI(t, dialect, nil)
			a.do(http.MethodPost, "/admin/api/accounts", jsonAPI, `{"data":{"type":"accounts","attributes":{"name":""}}}`).want(t, 400)
			req := rec.await(t, "of the POST", func(sp tracetest.SpanStub) bool {
				return sp.Name == "POST /admin/api/accounts" && attr(sp, "http.response.status_code") == "400"
			})
			kids := rec.children(req)
			if validate := named(t, kids, "validate"); validate.Status.Code == 0 || attr(validate, "http.response.status_code") != "400" {
				t.Errorf("validate span of a refused request: status %v, attributes %v", validate.Status, validate.Attributes)
			}
			for _, k := range kids {
				if k.Name == "engine" {
					t.Errorf("a refused request reached the engine")
				}
			}
		})
	}
}

// TestTracingHonoursTraceparent: a request carrying a W3C traceparent
// continues that trace: its span is the remote span's child.
func TestTracingHonoursTraceparent(t *testing.T) {
	t.Parallel()
	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		spanID  = "00f067aa0ba902b7"
	)
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			a, rec := tracedAPI(t, dialect, nil)
			headers := map[string]string{"Accept": "application/vnd.api+json", "traceparent": "00-" + traceID + "-" + spanID + "-01"}
			a.do(http.MethodGet, "/admin/api/countries?page[size]=2", headers, "").want(t, 200)
			req := rec.await(t, "of the GET", func(sp tracetest.SpanStub) bool { return sp.Name == "GET /admin/api/countries" })
			if got := req.SpanContext.TraceID().String(); got != traceID {
				t.Errorf("request span's trace %s, want the caller's %s", got, traceID)
			}
			if got := req.Parent.SpanID().String(); got != spanID || !req.Parent.IsRemote() {
				t.Errorf("request span's parent %s (remote %v), want the caller's span %s", got, req.Parent.IsRemote(), spanID)
			}
			engine := named(t, rec.children(req), "engine")
			if len(sqlChildren(t, rec, engine, dialect)) == 0 {
				t.Errorf("the continued trace has no statement under its engine span")
			}
		})
	}
}

// TestTracingBatchChunkJobs: an asynchronous batch's chunk jobs are spans of
// traces of their own, each linked to the request that queued them, with
// the statements that wrote the chunk under them.
func TestTracingBatchChunkJobs(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			a, rec := tracedAPI(t, dialect, nil)
			r := a.do(http.MethodPatch, "/admin/api/accounts", jsonAPI, batchAccounts(3, "Traced batch")).want(t, 202)
			opID, _ := get(r.doc, "data/id").(string)
			req := rec.await(t, "of the PATCH", func(sp tracetest.SpanStub) bool { return sp.Name == "PATCH /admin/api/accounts" })
			if got := attr(req, "http.response.status_code"); got != "202" {
				t.Errorf("batch request span: status %s, want 202", got)
			}
			named(t, rec.children(req), "engine")
			job := rec.await(t, "of the chunk job", func(sp tracetest.SpanStub) bool {
				return sp.Name == "batch chunk job" && attr(sp, "entityapi.asyncoperation.id") == opID
			})
			if job.Parent.IsValid() || job.SpanContext.TraceID() == req.SpanContext.TraceID() {
				t.Errorf("chunk job span: parent %v, trace %s; want the root of a trace of its own", job.Parent, job.SpanContext.TraceID())
			}
			if len(job.Links) != 1 || !job.Links[0].SpanContext.Equal(req.SpanContext.WithRemote(true)) {
				t.Fatalf("chunk job span's links %v, want one to the request span %v", job.Links, req.SpanContext)
			}
			if job.SpanKind != trace.SpanKindConsumer || job.Status.Code != 0 {
				t.Errorf("chunk job span: kind %v, status %v", job.SpanKind, job.Status)
			}
			inserted := false
			for _, st := range sqlChildren(t, rec, job, dialect) {
				inserted = inserted || (st.Name == "INSERT" && strings.Contains(attr(st, "db.query.text"), "accounts"))
			}
			if !inserted {
				t.Errorf("no INSERT into accounts under the chunk job span; its children: %s", spanNames(rec.children(job)))
			}
			if op := a.awaitOperation(t, opID); get(op.doc, "data/attributes/status") != "success" {
				t.Errorf("the traced batch did not succeed: %s", op.body)
			}
		})
	}
}
