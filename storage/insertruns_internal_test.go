package storage

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/storage/dialect"
)

// TestInsertRuns: the statements of a multi-row INSERT. With LongInserts
// (SQLite) a batch's run of 3,000 records goes in one, longer ones in whole
// multiples of insertChunk then what is left, so that few lengths (texts
// kept prepared) ever occur; without, insertChunk rows each. Wide rows get
// fewer, never more than MaxParams values.
func TestInsertRuns(t *testing.T) {
	for _, tc := range []struct {
		name  string
		long  bool
		n     int
		width int
		want  []int
	}{
		{"one row", true, 1, 5, []int{1}},
		{"under a unit", true, 499, 5, []int{499}},
		{"a unit", true, 500, 5, []int{500}},
		{"a run of 3,000", true, 3000, 5, []int{3000}},
		{"a run with a refused record", true, 2999, 5, []int{2500, 499}},
		{"past the parameters", true, 7000, 5, []int{6000, 1000}},
		{"the parameters' multiple", true, 12001, 5, []int{6000, 6000, 1}},
		{"wide rows", true, 1000, 100, []int{320, 320, 320, 40}},
		{"short inserts", false, 3000, 5, []int{500, 500, 500, 500, 500, 500}},
		{"short inserts of wide rows", false, 700, 100, []int{320, 320, 60}},
		{"nothing", true, 0, 5, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Store{f: dialect.Features{LongInserts: tc.long}}
			var got []int
			next := 0
			for start, rows := range s.insertRuns(tc.n, tc.width) {
				if start != next {
					t.Fatalf("a statement starts at row %d, want %d", start, next)
				}
				if rows*tc.width > MaxParams {
					t.Errorf("a statement of %d rows of %d holds more than %d values", rows, tc.width, MaxParams)
				}
				got = append(got, rows)
				next += rows
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("insertRuns(%d, %d) = %v, want %v", tc.n, tc.width, got, tc.want)
			}
		})
	}
}

// TestPreparedCacheBoundsMarks: past maxPreparedMarks parameters in all, a
// new text runs unprepared, however few statements the cache holds (each
// parameter of a prepared statement holds SQLite memory outside the Go
// heap); the texts kept stay prepared.
func TestPreparedCacheBoundsMarks(t *testing.T) {
	db, err := sql.Open("sqlite", "file:"+t.TempDir()+"/marks.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var p preparedCache
	defer p.close()
	// Texts of 30,000 marks each: six fit the bound, the seventh does not.
	text := func(i int) string {
		return fmt.Sprintf("SELECT %d WHERE 1 IN (%s)", i, strings.TrimSuffix(strings.Repeat("?,", 30000), ","))
	}
	for i := range 6 {
		if p.get(db, text(i), false) == nil {
			t.Fatalf("text %d (%d marks before it) was not prepared", i, p.marks)
		}
	}
	if stmt := p.get(db, text(6), false); stmt != nil {
		t.Errorf("the text past %d marks was prepared (%d held)", maxPreparedMarks, p.marks)
	}
	if p.marks > maxPreparedMarks || len(p.byText) != 6 {
		t.Errorf("the cache holds %d texts of %d marks, want 6 of at most %d", len(p.byText), p.marks, maxPreparedMarks)
	}
	if p.get(db, text(0), false) == nil || p.get(db, "SELECT 1", false) == nil {
		t.Error("a text held, or a text without marks, is not prepared")
	}
}
