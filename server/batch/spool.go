package batch

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// DefaultSpoolMemory is the default of Limits.SpoolMemory: the bytes of held
// items kept in memory before they go to a temporary file.
const DefaultSpoolMemory = 4 << 20

// spool keeps the bytes of the held data items (those whose chunk is decided
// only at the end of the body): in memory while they are few, then in a
// temporary file, so that a request of a million updates costs the splitter a
// few dozen bytes of memory per item, not the item. Items are appended in
// request order and read back mostly in that order, so both directions go
// through a buffer.
type spool struct {
	dir    string // of the temporary file ("": the system's)
	memory int64  // bytes kept in mem before the file is opened
	mem    []byte
	f      *os.File
	w      *bufio.Writer // nil once reading has begun
	r      *bufio.Reader
	rpos   int64 // the offset r reads next
	size   int64
}

// write appends b and returns its offset.
func (sp *spool) write(b []byte) (int64, error) {
	off := sp.size
	if sp.f == nil && int64(len(sp.mem)+len(b)) > sp.memory {
		f, err := os.CreateTemp(sp.dir, "entityapi-batch-*")
		if err != nil {
			return 0, fmt.Errorf("batch: spool held items: %w", err)
		}
		sp.f, sp.w = f, bufio.NewWriterSize(f, 64<<10)
		if _, err := sp.w.Write(sp.mem); err != nil {
			return 0, fmt.Errorf("batch: spool held items: %w", err)
		}
		sp.mem = nil
	}
	if sp.f == nil {
		sp.mem = append(sp.mem, b...)
	} else if _, err := sp.w.Write(b); err != nil {
		return 0, fmt.Errorf("batch: spool held items: %w", err)
	}
	sp.size += int64(len(b))
	return off, nil
}

// read returns a copy of the n bytes at off (writing is over by then).
func (sp *spool) read(off int64, n int) ([]byte, error) {
	b := make([]byte, n)
	if sp.f == nil {
		copy(b, sp.mem[off:])
		return b, nil
	}
	if sp.w != nil {
		if err := sp.w.Flush(); err != nil {
			return nil, fmt.Errorf("batch: spool held items: %w", err)
		}
		sp.w = nil
	}
	if sp.r == nil || off != sp.rpos {
		sec := io.NewSectionReader(sp.f, off, sp.size-off)
		if sp.r == nil {
			sp.r = bufio.NewReaderSize(sec, 64<<10)
		} else {
			sp.r.Reset(sec)
		}
		sp.rpos = off
	}
	if _, err := io.ReadFull(sp.r, b); err != nil {
		return nil, fmt.Errorf("batch: read held items back: %w", err)
	}
	sp.rpos += int64(n)
	return b, nil
}

// close removes the temporary file, if any.
func (sp *spool) close() {
	if sp.f != nil {
		_ = sp.f.Close()
		_ = os.Remove(sp.f.Name())
		sp.f = nil
	}
	sp.mem = nil
}
