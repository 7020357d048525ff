package storage_test

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestCursorKeyIsShared: every process on one database signs cursors with
// one key, whichever asks first and however many ask at once, and it stays
// the same on later asks (a restart reads it again).
func TestCursorKeyIsShared(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			first, second := storagetest.OpenTwo(t, dialect)
			ctx := context.Background()
			keys := make([][]byte, 8)
			var wg sync.WaitGroup
			for i := range keys {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s := first
					if i%2 == 1 {
						s = second
					}
					k, err := s.CursorKey(ctx)
					if err != nil {
						t.Error(err)
					}
					keys[i] = k
				}()
			}
			wg.Wait()
			again, err := second.CursorKey(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(again) != 32 {
				t.Fatalf("a key of %d bytes", len(again))
			}
			for i, k := range keys {
				if !bytes.Equal(k, again) {
					t.Errorf("ask %d got another key", i)
				}
			}
		})
	}
}
