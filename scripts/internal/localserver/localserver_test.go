package localserver

import (
	"encoding/json"
	"net/url"
	"testing"
)

func TestStatusField(t *testing.T) {
	t.Parallel()
	status := "Name:\tentityapi\nVmPeak:\t 1261544 kB\nVmHWM:\t   61528 kB\nVmRSS:\t   48212 kB\nThreads:\t9\n"
	for _, tc := range []struct {
		field string
		want  int64
		fail  bool
	}{
		{"VmRSS", 48212, false},
		{"VmHWM", 61528, false},
		{"Threads", 9, false},
		{"VmSwap", 0, true},
		{"Name", 0, true}, // not a number
		{"Vm", 0, true},   // a prefix of a field is not the field
	} {
		got, err := StatusField(status, tc.field)
		if got != tc.want || (err != nil) != tc.fail {
			t.Errorf("StatusField(%s) = %d, %v; want %d (fails: %v)", tc.field, got, err, tc.want, tc.fail)
		}
	}
}

func TestDatabaseURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		admin, want string
	}{
		{"postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "postgres://postgres@127.0.0.1:5432/entityapi_x_1?sslmode=disable"},
		{"postgresql://u:p%40ss@db:5432", "postgresql://u:p%40ss@db:5432/entityapi_x_1"},
		{"postgres://u@h/other/", "postgres://u@h/entityapi_x_1"},
	} {
		u, err := url.Parse(tc.admin)
		if err != nil {
			t.Fatal(err)
		}
		if got := databaseURL(u, "entityapi_x_1"); got != tc.want {
			t.Errorf("databaseURL(%s) = %s, want %s", tc.admin, got, tc.want)
		}
		if u.String() != tc.admin {
			t.Errorf("databaseURL changed the admin URL to %s", u)
		}
	}
}

func TestOperationEnded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		body      string
		wantEnded bool
		wantErr   bool
	}{
		{"running", `{"data":{"id":"1","attributes":{"status":"running","progress":40}}}`, false, false},
		{"new", `{"data":{"id":"1","attributes":{"status":"new"}}}`, false, false},
		{"success with every item", `{"data":{"id":"1","attributes":{"status":"success","summary":{"readCount":3,"writeCount":3,"errorCount":0}}}}`, true, false},
		{"success short of items", `{"data":{"id":"1","attributes":{"status":"success","summary":{"readCount":3,"writeCount":2,"errorCount":1}}}}`, true, true},
		{"success without a summary", `{"data":{"id":"1","attributes":{"status":"success"}}}`, true, true},
		{"failed", `{"data":{"id":"1","attributes":{"status":"failed"}}}`, true, true},
		{"cancelled", `{"data":{"id":"1","attributes":{"status":"cancelled"}}}`, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var op Operation
			if err := json.Unmarshal([]byte(tc.body), &op); err != nil {
				t.Fatal(err)
			}
			ended, err := op.Ended(3)
			if ended != tc.wantEnded || (err != nil) != tc.wantErr {
				t.Errorf("Ended(3) = %v, %v; want %v, error %v", ended, err, tc.wantEnded, tc.wantErr)
			}
		})
	}
}
