package jsonguard_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/entityapi/entityapi/server/jsonguard"
)

func nested(depth int) string {
	return `{"a":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`
}

// TestGuard checks what the guard refuses and where, with the body given whole
// and one byte at a time (a sequence or a string cut between two reads).
func TestGuard(t *testing.T) {
	cases := []struct {
		name   string
		body   string
		offset int64 // -1: allowed
		reason string
	}{
		{"plain document", `{"data":{"type":"accounts","attributes":{"name":"Zoë 日本 🎉"}}}`, -1, ""},
		{"invalid byte", "{\"name\":\"\xff\xfe\"}", 9, jsonguard.ReasonUTF8},
		{"bad continuation", "{\"name\":\"\xc3\x28\"}", 9, jsonguard.ReasonUTF8},
		{"surrogate", "{\"name\":\"\xed\xa0\x80\"}", 9, jsonguard.ReasonUTF8},
		{"truncated sequence in a string", "{\"name\":\"\xe2\x82\"}", 9, jsonguard.ReasonUTF8},
		{"truncated sequence at the end", "{}\xe2\x82", 2, jsonguard.ReasonUTF8},
		{"overlong", "[\"\xc0\xaf\"]", 2, jsonguard.ReasonUTF8},
		{"above U+10FFFF", "[\"\xf4\x90\x80\x80\"]", 2, jsonguard.ReasonUTF8},
		{"invalid byte outside strings", "{}\xff", 2, jsonguard.ReasonUTF8},
		{"depth at the limit", nested(jsonguard.MaxDepth), -1, ""},
		{"one level too deep", nested(jsonguard.MaxDepth + 1), int64(5 + jsonguard.MaxDepth - 1), jsonguard.ReasonDepth},
		{"objects too deep", strings.Repeat(`{"a":`, jsonguard.MaxDepth+1), int64(5 * jsonguard.MaxDepth), jsonguard.ReasonDepth},
		{"brackets in strings do not nest", `["` + strings.Repeat("[{", 100) + `"]`, -1, ""},
		{"escaped quote keeps the string open", `["\"` + strings.Repeat("[", 100) + `"]`, -1, ""},
		{"escaped backslash closes it", `["\\"` + strings.Repeat("[", 100), 5 + jsonguard.MaxDepth - 1, jsonguard.ReasonDepth},
		{"siblings do not add up", "[" + strings.Repeat(nested(jsonguard.MaxDepth-1)+",", 50) + "1]", -1, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, step := range []int{len(tc.body), 1} {
				var g jsonguard.Guard
				var err error
				allowed := 0
				for i := 0; i < len(tc.body) && err == nil; i += step {
					var n int
					n, err = g.Check([]byte(tc.body[i:min(i+step, len(tc.body))]))
					allowed += n
				}
				if err == nil {
					err = g.End()
				}
				var ge *jsonguard.Error
				switch {
				case tc.offset < 0 && err != nil:
					t.Fatalf("step %d: refused: %v", step, err)
				case tc.offset < 0:
				case !errors.As(err, &ge):
					t.Fatalf("step %d: allowed, want %q at %d", step, tc.reason, tc.offset)
				case ge.Offset != tc.offset || ge.Reason != tc.reason:
					t.Fatalf("step %d: %q at %d, want %q at %d", step, ge.Reason, ge.Offset, tc.reason, tc.offset)
				case int64(allowed) > ge.Offset+4:
					t.Fatalf("step %d: %d bytes allowed past an error at %d", step, allowed, ge.Offset)
				}
			}
		})
	}
}

// TestGuardAgreesWithUTF8 compares the guard with utf8.Valid on random bytes
// (strings of mostly multi-byte sequences, some cut or damaged).
func TestGuardAgreesWithUTF8(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 2))
	pieces := [][]byte{[]byte("é"), []byte("日"), []byte("🎉"), {0xff}, {0xc3}, {0xe2, 0x82}, {0xed, 0xa0, 0x80}, {0xf4, 0x90}, []byte("a"), {0x80}}
	for i := 0; i < 5000; i++ {
		var b []byte
		for j := rng.IntN(6); j >= 0; j-- {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		var g jsonguard.Guard
		_, err := g.Check(b)
		if err == nil {
			err = g.End()
		}
		if (err == nil) != utf8.Valid(b) {
			t.Fatalf("%q: guard says %v, utf8.Valid %v", b, err, utf8.Valid(b))
		}
	}
}

// countingReader counts the bytes handed out.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestGuardStopsEarly: a body nested a million deep is refused at the first
// level too many, without reading the rest, and the check allocates nothing:
// its work is one step per byte up to the refusal, whatever follows.
func TestGuardStopsEarly(t *testing.T) {
	body := `{"data":{"type":"accounts","attributes":{"name":` + strings.Repeat(`{"a":`, 1_000_000) + `1` + strings.Repeat("}", 1_000_000) + `}}}`
	src := &countingReader{r: iotest.OneByteReader(strings.NewReader(body))}
	_, err := io.ReadAll(jsonguard.NewReader(src))
	var ge *jsonguard.Error
	if !errors.As(err, &ge) || ge.Reason != jsonguard.ReasonDepth {
		t.Fatalf("err = %v, want the depth refusal", err)
	}
	if want := strings.Index(body, `{"a":`) + 5*(jsonguard.MaxDepth-3); ge.Offset != int64(want) {
		t.Errorf("refused at %d, want %d", ge.Offset, want)
	}
	if src.n > int(ge.Offset)+1 {
		t.Errorf("%d bytes read for a refusal at %d", src.n, ge.Offset)
	}
	chunk := []byte(strings.Repeat(`{"name":"Zoë","x":[1,2,{"y":"\"["}]},`, 100))
	allocs := testing.AllocsPerRun(100, func() {
		var g jsonguard.Guard
		_, _ = g.Check([]byte("["))
		_, _ = g.Check(chunk)
	})
	if allocs != 0 {
		t.Errorf("Check allocates %.0f times per call", allocs)
	}
	if _, err := io.ReadAll(jsonguard.NewReader(bytes.NewReader(chunk))); err != nil {
		t.Errorf("a valid stream was refused: %v", err)
	}
}

// BenchmarkGuard measures the guard's throughput on batch-like JSON with some
// multi-byte text (go test ./server/jsonguard -bench Guard).
func BenchmarkGuard(b *testing.B) {
	body := []byte(`{"data":[` + strings.Repeat(`{"type":"accounts","attributes":{"name":"Zoë Müller \"Ltd\"","externalId":"A-123456"},"relationships":{"owner":{"data":{"type":"users","id":"1"}}}},`, 1000) + `{}]}`)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var g jsonguard.Guard
		if _, err := g.Check(body); err != nil {
			b.Fatal(err)
		}
	}
}
