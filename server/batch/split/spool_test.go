package split

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
)

// TestSpool writes items to spools of several memory sizes and reads them
// back in order and out of order (odd offsets inside AES blocks); the
// temporary file never holds an item as sent (a password must not reach a
// disk in plain text) and is gone after close.
func TestSpool(t *testing.T) {
	for _, memory := range []int64{1 << 20, 100, 1} {
		t.Run(fmt.Sprint(memory), func(t *testing.T) {
			dir := t.TempDir()
			sp := &spool{dir: dir, memory: memory}
			var items [][]byte
			var offs []int64
			rng := rand.New(rand.NewPCG(3, 4))
			for i := range 500 {
				item := fmt.Appendf(nil, `{"type":"users","id":"%d","attributes":{"password":"secret-%d-%s"}}`, i, i, bytes.Repeat([]byte("p"), rng.IntN(40)))
				off, err := sp.write(item)
				if err != nil {
					t.Fatal(err)
				}
				items, offs = append(items, item), append(offs, off)
			}
			files, _ := os.ReadDir(dir)
			if want := memory < 1<<20; (len(files) == 1) != want {
				t.Fatalf("%d spool files, want a file: %v", len(files), want)
			}
			for i := range items {
				if i%3 != 0 {
					continue
				}
				got, err := sp.read(offs[i], len(items[i]))
				if err != nil || !bytes.Equal(got, items[i]) {
					t.Fatalf("item %d read back in order: %q, %v", i, got, err)
				}
			}
			for range 200 {
				i := rng.IntN(len(items))
				got, err := sp.read(offs[i], len(items[i]))
				if err != nil || !bytes.Equal(got, items[i]) {
					t.Fatalf("item %d read back out of order: %q, %v", i, got, err)
				}
			}
			if len(files) == 1 {
				raw, err := os.ReadFile(dir + "/" + files[0].Name())
				if err != nil {
					t.Fatal(err)
				}
				if bytes.Contains(raw, []byte("secret-")) || bytes.Contains(raw, []byte(`"type"`)) {
					t.Error("the spool file holds items in plain text")
				}
			}
			sp.close()
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				t.Errorf("%d files left after close", len(left))
			}
		})
	}
}
