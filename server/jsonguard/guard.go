// Package jsonguard reads a JSON request body as it streams by and stops it at
// the first byte no body of this service may hold: a byte that is not valid
// UTF-8, or an object or array nested deeper than MaxDepth. It runs before any
// JSON decoder, in constant time and memory per byte, so that what the decoders
// (encoding/json, kin-openapi's validator, the batch splitter) get is never
// nested deeper than they can walk cheaply, and never holds a byte that
// encoding/json would silently replace with U+FFFD.
//
// The guard is lexical: it follows strings (and their escapes) to know which
// brackets nest, and nothing more. Whether the bytes form JSON is left to the
// decoder that reads them next; on a body that is not JSON the guard may stop at
// a later spot than the decoder would, never at an earlier one that is valid.
//
// The package imports only the standard library.
package jsonguard

import (
	"fmt"
	"io"
	"strconv"
)

// MaxDepth is how deeply objects and arrays may nest in a request body, the
// body's own levels included ({"data":{"attributes":{"x":...}}} is 3 deep
// at x). Encoding/json allows 10,000 levels, and walking them costs the
// decoders (and kin-openapi's validator) time that grows with the square of the
// depth; no resource of this service needs more than a few.
const MaxDepth = 64

// Reasons of an Error, as they end a client's error detail.
var (
	ReasonUTF8  = "The body is not valid UTF-8."
	ReasonDepth = "Objects and arrays are nested deeper than " + strconv.Itoa(MaxDepth) + " levels."
)

// Error is a body the guard refused: Offset is the zero-based offset of the
// first byte that is not allowed (for invalid UTF-8, the start of the
// sequence).
type Error struct {
	Offset int64
	Reason string
}

func (e *Error) Error() string { return fmt.Sprintf("json: offset %d: %s", e.Offset, e.Reason) }

// Guard is the state of one body being read. The zero value is ready to use.
type Guard struct {
	off      int64 // offset of the next byte
	depth    int   // objects and arrays open
	inString bool
	escaped  bool // the previous byte in a string was an unescaped backslash

	// The UTF-8 sequence being read: bytes still to come, the range the next
	// one must lie in, and where the sequence started.
	need     int
	lo, hi   byte
	seqStart int64

	err *Error
}

// Check reads the next bytes of the body. It returns how many of them are
// allowed and, when not all are, the *Error at the first that is not; once an
// error is returned, every later call returns it again.
func (g *Guard) Check(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	start := g.off
	i := 0
	for i < len(p) {
		b := p[i]
		switch {
		case g.need > 0:
			if b < g.lo || b > g.hi {
				return i, g.fail(g.seqStart, ReasonUTF8)
			}
			g.need--
			g.lo, g.hi = 0x80, 0xBF
		case b >= 0x80:
			if !g.lead(b) {
				return i, g.fail(start+int64(i), ReasonUTF8)
			}
			g.seqStart = start + int64(i)
		case g.inString:
			if g.escaped {
				g.escaped = false
				break
			}
			if plainInString[b] { // the common case: skip the run at once
				for i++; i < len(p) && plainInString[p[i]]; i++ {
				}
				continue
			}
			if b == '\\' {
				g.escaped = true
			} else {
				g.inString = false // b is the closing quote
			}
		case plainOutside[b]:
			for i++; i < len(p) && plainOutside[p[i]]; i++ {
			}
			continue
		case b == '"':
			g.inString = true
		case b == '{' || b == '[':
			if g.depth >= MaxDepth {
				return i, g.fail(start+int64(i), ReasonDepth)
			}
			g.depth++
		case b == '}' || b == ']':
			if g.depth > 0 {
				g.depth--
			}
		}
		i++
	}
	g.off = start + int64(len(p))
	return len(p), nil
}

// plainOutside marks the bytes that change nothing outside a string: ASCII
// but the quote and the brackets.
var plainOutside = func() (t [256]bool) {
	for b := 0; b < 0x80; b++ {
		t[b] = b != '"' && b != '{' && b != '[' && b != '}' && b != ']'
	}
	return t
}()

// plainInString marks the bytes that change nothing inside a string: ASCII
// but the quote and the backslash.
var plainInString = func() (t [256]bool) {
	for b := 0; b < 0x80; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// lead starts a multi-byte UTF-8 sequence at b (RFC 3629: no overlong forms,
// no surrogates, nothing above U+10FFFF); it is false for a byte that cannot
// start one.
func (g *Guard) lead(b byte) bool {
	g.lo, g.hi = 0x80, 0xBF
	switch {
	case b >= 0xC2 && b <= 0xDF:
		g.need = 1
	case b == 0xE0:
		g.need, g.lo = 2, 0xA0
	case b == 0xED:
		g.need, g.hi = 2, 0x9F
	case b >= 0xE1 && b <= 0xEF:
		g.need = 2
	case b == 0xF0:
		g.need, g.lo = 3, 0x90
	case b >= 0xF1 && b <= 0xF3:
		g.need = 3
	case b == 0xF4:
		g.need, g.hi = 3, 0x8F
	default:
		return false
	}
	return true
}

// End reports the end of the body: a UTF-8 sequence cut short there is an
// error.
func (g *Guard) End() error {
	if g.err == nil && g.need > 0 {
		return g.fail(g.seqStart, ReasonUTF8)
	}
	if g.err != nil {
		return g.err
	}
	return nil
}

func (g *Guard) fail(off int64, reason string) *Error {
	g.off = off
	g.err = &Error{Offset: off, Reason: reason}
	return g.err
}

// Reader passes a body through a Guard: it returns the allowed bytes of what
// it reads and then the guard's *Error. Errors of the underlying reader are
// returned as they are.
type Reader struct {
	r io.Reader
	g Guard
}

// NewReader guards r.
func NewReader(r io.Reader) *Reader { return &Reader{r: r} }

func (r *Reader) Read(p []byte) (int, error) {
	if r.g.err != nil {
		return 0, r.g.err
	}
	n, err := r.r.Read(p)
	ok, gerr := r.g.Check(p[:n])
	if gerr != nil {
		return ok, gerr
	}
	if err == io.EOF {
		if eerr := r.g.End(); eerr != nil {
			return n, eerr
		}
	}
	return n, err
}
