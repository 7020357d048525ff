package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestBatchItemSchemaErrors: items that break the schema in an asynchronous
// batch are reported with the problems and pointers a request of their own
// would get, whether the chunk run reads the item the quick way (plain
// members) or through encoding/json (escaped or case-variant names, members
// named twice, unexpected members or types); the valid items are written.
func TestBatchItemSchemaErrors(t *testing.T) {
	items := []string{
		`{"type":"accounts","attributes":{"name":"Valid 0"}}`,
		`{"type":"accounts","attributes":{"name":5}}`,
		`{"type":"accounts","attributes":{"name":"Valid 2","bogus":1}}`,
		`{"type":"accounts","attributes":{"na\u006de":5}}`,
		`{"type":"accounts","Attributes":{"name":"Valid 4"}}`,
		`{"type":"accounts","attributes":{"name":"x\u0000y"}}`,
		`{"type":"accounts","attributes":{"name":"Valid 6"},"links":{"self":"x"}}`,
		`{"type":"accounts","attributes":{"name":"Valid 7"},"extra":true}`,
		`{"type":"accounts","attributes":{"name":"a"},"attributes":{"externalId":7}}`,
		`{"type":"accounts","attributes":{"name":"` + strings.Repeat("n", 256) + `"}}`,
		`{"type":"accounts","attributes":{"name":"Valid 10","externalId":null},"meta":{"upsert":false}}`,
		`{"type":"accounts","id":"tmp","attributes":{"name":"Valid 11"},"relationships":{"owner":{"data":{"type":"users","id":"x"}}}}`,
		`{"type":"accounts","attributes":{"name":"Valid 12"},"relationships":{"owner":{"data":5}}}`,
		`{"type":"accounts","attributes":[]}`,
		`{"type":"accounts","attributes":{"name":"Valid 14","externalId":"e\u00e9"}}`,
	}
	body := `{"data":[` + strings.Join(items, ",") + `]}`
	eachAPI(t, func(t *testing.T, a *api) {
		r := a.do(http.MethodPatch, "/admin/api/accounts", jsonAPI, body).want(t, 202)
		id, _ := r.value("data/id").(string)
		done := a.awaitOperation(t, id)
		errs := a.do(http.MethodGet, "/admin/api/asyncoperations/"+id+"/errors?page[size]=100", jsonAPI, "").want(t, 200)
		var got []string
		for i := 0; ; i++ {
			at := fmt.Sprintf("data/%d/attributes/", i)
			if errs.value(at+"title") == nil {
				break
			}
			got = append(got, fmt.Sprintf("%v %v %v: %v", errs.value(at+"status"), errs.value(at+"source/pointer"),
				errs.value(at+"title"), errs.value(at+"detail")))
		}
		checkValues(t, done, map[string]any{"data/attributes/status": "success",
			"data/attributes/summary/readCount": 15.0, "data/attributes/summary/writeCount": 2.0,
			"data/attributes/summary/errorCount": 14.0})
		want := []string{
			"400 /data/1/attributes/name type constraint: This value should be of type string.",
			`400 /data/2/attributes extra fields constraint: This form should not contain extra fields: "bogus".`,
			"400 /data/3/attributes/name type constraint: This value should be of type string.",
			"400 /data/4/Attributes request data constraint: The 'Attributes' property is not allowed here.",
			"400 /data/4/attributes request data constraint: The 'attributes' property is required.",
			`400 /data/5/attributes/name value constraint: This value should not contain the NUL character (\u0000).`,
			"400 /data/6/links request data constraint: The 'links' property is not allowed here.",
			"400 /data/7/extra request data constraint: The 'extra' property is not allowed here.",
			"400 /data/8/attributes/externalId type constraint: This value should be of type string.",
			"400 /data/9/attributes/name length constraint: This value is too long. It should have 255 characters or less.",
			"400 /data/10/meta/upsert value constraint: This value should be true or an array of field names.",
			"404 /data/11/relationships/owner/data not found http exception: The entity does not exist.",
			"400 /data/12/relationships/owner/data type constraint: This value should be of type object.",
			"400 /data/13 request data constraint: The item should be a resource object.",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// TestBatchLargeJobs: a batch of more chunks than sixteen jobs of ten hold
// gets longer jobs, each written thirty chunks per transaction (the last
// run of a job may be shorter); every chunk is written once, and the errors
// keep their chunk numbers and pointers.
func TestBatchLargeJobs(t *testing.T) {
	// 170 chunks of 100: on PostgreSQL jobs of 11 chunks, one run each; on
	// SQLite (two workers: four jobs) jobs of about 43, written as 30 + 13.
	const n = 17_000
	eachAPI(t, func(t *testing.T, a *api) {
		r := a.do(http.MethodPatch, "/admin/api/accounts", jsonAPI, batchAccounts(n, "Large", 5, 1_050, n-1)).want(t, 202)
		id, _ := r.value("data/id").(string)
		done := a.awaitOperation(t, id)
		checkValues(t, done, map[string]any{"data/attributes/status": "success",
			"data/attributes/summary/readCount": float64(n), "data/attributes/summary/writeCount": float64(n - 3),
			"data/attributes/summary/errorCount": 3.0, "data/attributes/progress": 100.0})
		errs := a.do(http.MethodGet, "/admin/api/asyncoperations/"+id+"/errors", jsonAPI, "").want(t, 200)
		for i, want := range []struct{ id, pointer string }{
			{id + "-1-1", "/data/5/attributes/name"}, {id + "-11-1", "/data/1050/attributes/name"},
			{id + "-170-1", fmt.Sprintf("/data/%d/attributes/name", n-1)},
		} {
			checkValues(t, errs, map[string]any{
				fmt.Sprintf("data/%d/id", i): want.id, fmt.Sprintf("data/%d/attributes/source/pointer", i): want.pointer})
		}
		count := a.do(http.MethodGet, "/admin/api/accounts?page[size]=1", map[string]string{"Accept": "application/vnd.api+json", "X-Include": "totalCount"}, "").want(t, 200)
		if got := count.header.Get("X-Include-Total-Count"); got != fmt.Sprint(n-3) {
			t.Fatalf("accounts after the batch: %s, want %d", got, n-3)
		}
	})
}
