package split_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/entityapi/entityapi/server/batch/split"
)

// BenchmarkSplit measures how many items per second Split reads and chunks:
// plain accounts, and accounts of which one in ten refers to an included
// contact (included after data, so every item with relationships is held).
func BenchmarkSplit(b *testing.B) {
	const n = 10_000
	var plainBody, linkedBody bytes.Buffer
	plainBody.WriteString(`{"data":[`)
	linkedBody.WriteString(`{"data":[`)
	for i := range n {
		if i > 0 {
			plainBody.WriteByte(',')
			linkedBody.WriteByte(',')
		}
		plainBody.Write(account(i, nil))
		if i%10 == 0 {
			fmt.Fprintf(&linkedBody, `{"type":"accounts","attributes":{"name":"A%d"},"relationships":{"contacts":{"data":[{"type":"contacts","id":"c%d"}]},"owner":{"data":{"type":"users","id":"1"}}}}`, i, i)
		} else {
			fmt.Fprintf(&linkedBody, `{"type":"accounts","attributes":{"name":"A%d"},"relationships":{"owner":{"data":{"type":"users","id":"1"}}}}`, i)
		}
	}
	plainBody.WriteString(`]}`)
	linkedBody.WriteString(`],"included":[`)
	for i := 0; i < n; i += 10 {
		if i > 0 {
			linkedBody.WriteByte(',')
		}
		fmt.Fprintf(&linkedBody, `{"type":"contacts","id":"c%d","attributes":{"firstName":"C"}}`, i)
	}
	linkedBody.WriteString(`]}`)
	for _, bc := range []struct {
		name string
		body []byte
	}{{"plain", plainBody.Bytes()}, {"linked", linkedBody.Bytes()}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.body)))
			b.ReportAllocs()
			items := 0
			for b.Loop() {
				st, err := split.Split(bytes.NewReader(bc.body), "accounts", split.DefaultLimits, func(split.Chunk) error { return nil })
				if err != nil {
					b.Fatal(err)
				}
				items += st.Data + st.Included
			}
			b.ReportMetric(float64(items)/b.Elapsed().Seconds(), "items/s")
		})
	}
}
