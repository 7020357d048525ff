package batch

import (
	"bytes"
	"io"
)

// posReader passes the body through to the JSON decoder while remembering
// where lines start, so a syntax error can be reported as [line:column] the way
// Oro does. It keeps only the line starts the decoder has not consumed yet
// (prune drops the others), so its memory is bounded by the decoder's buffer.
type posReader struct {
	r   io.Reader
	off int64   // bytes read so far
	nl  []int64 // offsets of the newlines at or after the pruned point
	// lines and last describe the pruned newlines: how many, and the offset of
	// the last one (-1 when none).
	lines int
	last  int64
	err   error // the first error of r other than io.EOF: not a JSON problem
}

func newPosReader(r io.Reader) *posReader { return &posReader{r: r, last: -1} }

func (p *posReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	for i := 0; i < n; {
		j := bytes.IndexByte(b[i:n], '\n')
		if j < 0 {
			break
		}
		p.nl = append(p.nl, p.off+int64(i+j))
		i += j + 1
	}
	p.off += int64(n)
	if err != nil && err != io.EOF && p.err == nil {
		p.err = err
	}
	return n, err
}

// prune forgets the newlines before offset off (the decoder has consumed them).
func (p *posReader) prune(off int64) {
	k := 0
	for k < len(p.nl) && p.nl[k] < off {
		k++
	}
	if k == 0 {
		return
	}
	p.lines += k
	p.last = p.nl[k-1]
	p.nl = append(p.nl[:0], p.nl[k:]...)
}

// position is the 1-based line and column (in bytes) of the byte at offset off.
func (p *posReader) position(off int64) (line, col int) {
	line, last := p.lines+1, p.last
	for _, o := range p.nl {
		if o >= off {
			break
		}
		line++
		last = o
	}
	return line, int(off - last)
}
