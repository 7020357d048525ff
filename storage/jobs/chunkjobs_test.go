package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestForChunks: runs of consecutive chunks become jobs of ten chunks, more
// in a large batch (as many as still make shape.Spread jobs, up to
// shape.Most): PostgreSQL's shape, and SQLite's with two workers.
func TestForChunks(t *testing.T) {
	t.Parallel()
	seq := func(from, to int) []int {
		var out []int
		for n := from; n <= to; n++ {
			out = append(out, n)
		}
		return out
	}
	postgres := jobs.Shape{Spread: 16, Most: 50}
	sqlite := jobs.Shape{Spread: 4, Most: 500}
	for _, tc := range []struct {
		name    string
		numbers []int
		shape   jobs.Shape
		want    string // chunk+count of each job
	}{
		{"none", nil, postgres, "[]"},
		{"one", []int{1}, postgres, "[1+1]"},
		{"three", seq(1, 3), postgres, "[1+3]"},
		{"ten", seq(1, 10), postgres, "[1+10]"},
		{"twenty-three", seq(1, 23), postgres, "[1+10 11+10 21+3]"},
		{"gaps", []int{2, 3, 5, 9, 10, 11}, postgres, "[2+2 5+1 9+3]"},
		{"two hundred", seq(1, 200), postgres, "[1+13 14+13 27+13 40+13 53+13 66+13 79+13 92+13 105+13 118+13 131+13 144+13 157+13 170+13 183+13 196+5]"},
		{"a thousand", seq(1, 1000), postgres, "[1+50 51+50 101+50 151+50 201+50 251+50 301+50 351+50 401+50 451+50 501+50 551+50 601+50 651+50 701+50 751+50 801+50 851+50 901+50 951+50]"},
		{"sqlite twenty-three", seq(1, 23), sqlite, "[1+10 11+10 21+3]"},
		{"sqlite two hundred", seq(1, 200), sqlite, "[1+50 51+50 101+50 151+50]"},
		{"sqlite a thousand", seq(1, 1000), sqlite, "[1+250 251+250 501+250 751+250]"},
		{"sqlite three thousand", seq(1, 3000), sqlite, "[1+500 501+500 1001+500 1501+500 2001+500 2501+500]"},
		{"sqlite gaps", []int{2, 3, 5, 9, 10, 11}, sqlite, "[2+2 5+1 9+3]"},
		{"no spread", seq(1, 30), jobs.Shape{}, "[1+10 11+10 21+10]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			js := jobs.ForChunks(7, 3, tc.numbers, tc.shape)
			got := []string{}
			for _, j := range js {
				if j.Operation != 7 || j.Org != 3 {
					t.Errorf("job %+v: want operation 7 of organization 3", j)
				}
				got = append(got, fmt.Sprintf("%d+%d", j.Chunk, j.Chunks()))
			}
			if s := fmt.Sprint(got); s != tc.want {
				t.Errorf("ForChunks(%v) = %s, want %s", tc.numbers, s, tc.want)
			}
		})
	}
}

// TestJobShape: a queue cuts batches for its database: on SQLite two jobs
// per worker of this process, large ones; on PostgreSQL, sixteen for the
// workers of every process.
func TestJobShape(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		q, err := jobs.NewQueue(s, jobs.Config{Workers: 3, NoWorkers: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = q.Stop(context.Background()) })
		want := jobs.Shape{Spread: 16, Most: 50}
		if s.Dialect() == "sqlite" {
			want = jobs.Shape{Spread: 6, Most: 500}
		}
		if got := q.JobShape(); got != want {
			t.Errorf("JobShape() = %+v, want %+v", got, want)
		}
	})
}

// TestFinishChunks: several chunks recorded at once add up as one by one
// would, keep their own errors, and end the operation with its last chunk;
// a set with a chunk already done or missing records nothing.
func TestFinishChunks(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		op := stageOperation(t, s, 1, nil, 4, true)
		chunks, err := jobs.LoadChunks(ctx, s.Conn, op.ID, 2, 10)
		if err != nil || len(chunks) != 3 || chunks[0].Number != 2 || chunks[2].Number != 4 {
			t.Fatalf("Chunks(2, 10) = %d chunks, %v", len(chunks), err)
		}
		if done, err := jobs.FinishChunk(ctx, s.Conn, op.ID, 2, jobs.ChunkCounts{Read: 1, Write: 1, Created: 1}, nil); err != nil || !done {
			t.Fatalf("FinishChunk(2) = %v, %v", done, err)
		}
		three := jobs.ChunkOutcome{Number: 3, Counts: jobs.ChunkCounts{Read: 2, Write: 1, Created: 1, Errors: 1},
			Errors: itemErrors("c", 1)}
		for _, tc := range []struct {
			name     string
			outcomes []jobs.ChunkOutcome
			notFound bool
		}{
			{"one already done", []jobs.ChunkOutcome{three, {Number: 2}}, false},
			{"one missing", []jobs.ChunkOutcome{three, {Number: 9}}, true},
		} {
			done, err := jobs.FinishChunks(ctx, s.Conn, op.ID, tc.outcomes)
			if tc.notFound != errors.Is(err, storage.ErrNotFound) || (!tc.notFound && err != nil) || done {
				t.Errorf("%s: FinishChunks = %v, %v", tc.name, done, err)
			}
			if ch, err := jobs.LoadChunk(ctx, s.Conn, op.ID, 3); err != nil || ch.Done {
				t.Errorf("%s: chunk 3 is done (%v), yet nothing was to be recorded", tc.name, err)
			}
		}
		four := jobs.ChunkOutcome{Number: 4, Counts: jobs.ChunkCounts{Read: 3, Write: 1, Updated: 1, Errors: 2},
			Errors: itemErrors("d", 2)}
		if done, err := jobs.FinishChunks(ctx, s.Conn, op.ID, []jobs.ChunkOutcome{three, four}); err != nil || !done {
			t.Fatalf("FinishChunks(3, 4) = %v, %v", done, err)
		}
		got := operation(t, s, 1, op.ID)
		if got.Status != jobs.StatusRunning || got.ChunksDone != 3 || got.ReadCount != 6 || got.WriteCount != 3 ||
			got.CreateCount != 2 || got.UpdateCount != 1 || got.ErrorCount != 3 {
			t.Errorf("after chunks 2, 3 and 4 of 4: %+v", got)
		}
		if done, err := jobs.FinishChunks(ctx, s.Conn, op.ID, []jobs.ChunkOutcome{{Number: 1}}); err != nil || !done {
			t.Fatalf("FinishChunks(1) = %v, %v", done, err)
		}
		if got := operation(t, s, 1, op.ID); got.Status != jobs.StatusSuccess || got.ChunksDone != 4 || got.FinishedAt == nil {
			t.Errorf("after the last chunk: %+v", got)
		}
		all, err := jobs.Errors(ctx, s.Conn, op.ID, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		keys := errorKeys(all)
		want := []string{"3-1 /data/c0/attributes/name", "4-1 /data/d0/attributes/name", "4-2 /data/d1/attributes/name"}
		if !reflect.DeepEqual(keys, want) {
			t.Errorf("errors = %v, want %v", keys, want)
		}
	})
}
