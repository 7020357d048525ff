package split

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/entityapi/entityapi/server/jsonguard"
)

// errValueTooLarge is what posReader answers when the decoder asks for more of
// a value (or run of white space) that already has maxValue bytes.
var errValueTooLarge = errors.New("batch: a value of the body is over the size limit")

// posReader passes the body through to the JSON decoder while remembering
// where lines start, so a syntax error can be reported as [line:column] the way
// Oro does. It keeps only the line starts the decoder has not consumed yet
// (prune drops the others), so its memory is bounded by the decoder's buffer.
//
// It also bounds that buffer and what reaches it: the bytes pass a
// jsonguard.Guard (UTF-8, nesting depth) on their way in, and the decoder never
// gets more than maxValue bytes past the point it has consumed, so no item,
// string or run of white space is ever held whole beyond that size: asked for
// more, the reader answers errValueTooLarge instead of reading on.
type posReader struct {
	r    io.Reader
	off  int64   // bytes passed on so far
	nl   []int64 // offsets of newlines; those from head on are at or after the pruned point
	head int
	// lines and last describe the pruned newlines: how many, and the offset of
	// the last one (-1 when none).
	lines int
	last  int64
	err   error // the first error of r other than io.EOF: not a JSON problem

	guard    jsonguard.Guard
	refused  *jsonguard.Error // what the guard refused, once it has
	dec      *json.Decoder    // the decoder reading this, for the point it has consumed
	maxValue int64
	over     bool // errValueTooLarge has been answered
}

func newPosReader(r io.Reader, maxValue int64) *posReader {
	return &posReader{r: r, last: -1, maxValue: maxValue}
}

func (p *posReader) Read(b []byte) (int, error) {
	switch {
	case p.refused != nil:
		return 0, p.refused
	case p.over:
		return 0, errValueTooLarge
	}
	if p.dec != nil {
		p.prune(p.dec.InputOffset())
		room := p.dec.InputOffset() + p.maxValue - p.off
		if room <= 0 {
			return p.atLimit()
		}
		if int64(len(b)) > room {
			b = b[:room]
		}
	}
	n, err := p.r.Read(b)
	ok, gerr := p.guard.Check(b[:n])
	p.pass(b[:ok])
	if gerr == nil && err == io.EOF {
		gerr = p.guard.End()
	}
	if gerr != nil {
		p.refused = gerr.(*jsonguard.Error)
		return ok, gerr
	}
	if err != nil && err != io.EOF && p.err == nil {
		p.err = err
	}
	return n, err
}

// atLimit answers a read when the decoder holds maxValue bytes of one value:
// the end of the body is fine (the value ended exactly there), one more byte
// is over the limit.
func (p *posReader) atLimit() (int, error) {
	var one [1]byte
	for {
		n, err := p.r.Read(one[:])
		switch {
		case n > 0:
			p.over = true
			return 0, errValueTooLarge
		case err == io.EOF:
			if gerr := p.guard.End(); gerr != nil {
				p.refused = gerr.(*jsonguard.Error)
				return 0, gerr
			}
			return 0, io.EOF
		case err != nil:
			if p.err == nil {
				p.err = err
			}
			return 0, err
		}
	}
}

// pass records the newlines of bytes handed to the decoder.
func (p *posReader) pass(b []byte) {
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			break
		}
		p.nl = append(p.nl, p.off+int64(i+j))
		i += j + 1
	}
	p.off += int64(len(b))
}

// prune forgets the newlines before offset off (the decoder has consumed them).
// The slice is compacted only once most of it is forgotten, so pruning costs
// constant time per newline.
func (p *posReader) prune(off int64) {
	k := p.head
	for k < len(p.nl) && p.nl[k] < off {
		k++
	}
	if k == p.head {
		return
	}
	p.lines += k - p.head
	p.last = p.nl[k-1]
	p.head = k
	if p.head > len(p.nl)/2 {
		p.nl = append(p.nl[:0], p.nl[p.head:]...)
		p.head = 0
	}
}

// position is the 1-based line and column (in bytes) of the byte at offset off.
func (p *posReader) position(off int64) (line, col int) {
	line, last := p.lines+1, p.last
	for _, o := range p.nl[p.head:] {
		if o >= off {
			break
		}
		line++
		last = o
	}
	return line, int(off - last)
}
