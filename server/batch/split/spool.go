package split

import (
	"bufio"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/binary"
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
//
// The file is encrypted (AES-CTR with a key made for the request and held in
// memory only): items may carry secrets, such as the password of a user, that
// are never to be stored as sent; what stays on a disk after a crash is
// unreadable.
type spool struct {
	dir    string // of the temporary file ("": the system's)
	memory int64  // bytes kept in mem before the file is opened
	mem    []byte
	f      *os.File
	w      *bufio.Writer // nil once reading has begun
	r      *bufio.Reader
	rpos   int64 // the offset r reads next
	size   int64
	block  cipher.Block
	iv     [aes.BlockSize]byte
	enc    cipher.Stream // the writer's, at offset size
	buf    []byte        // encrypted bytes on their way to w
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
		if err := sp.newKey(); err != nil {
			return 0, err
		}
		if err := sp.encrypt(sp.mem); err != nil {
			return 0, err
		}
		sp.mem = nil
	}
	if sp.f == nil {
		sp.mem = append(sp.mem, b...)
	} else if err := sp.encrypt(b); err != nil {
		return 0, err
	}
	sp.size += int64(len(b))
	return off, nil
}

// newKey makes the file's key and the writer's stream.
func (sp *spool) newKey() error {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return fmt.Errorf("batch: spool key: %w", err)
	}
	if _, err := rand.Read(sp.iv[:]); err != nil {
		return fmt.Errorf("batch: spool key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return fmt.Errorf("batch: spool key: %w", err)
	}
	sp.block, sp.enc = block, cipher.NewCTR(block, sp.iv[:])
	return nil
}

// encrypt writes b, encrypted, to the file.
func (sp *spool) encrypt(b []byte) error {
	for len(b) > 0 {
		n := min(len(b), 32<<10)
		if cap(sp.buf) < n {
			sp.buf = make([]byte, 32<<10)
		}
		out := sp.buf[:n]
		sp.enc.XORKeyStream(out, b[:n])
		if _, err := sp.w.Write(out); err != nil {
			return fmt.Errorf("batch: spool held items: %w", err)
		}
		b = b[n:]
	}
	return nil
}

// decrypter is a reader of the file from off on, decrypted.
func (sp *spool) decrypter(off int64) io.Reader {
	// The counter block of off: the IV plus off/16, then off%16 bytes of
	// key stream skipped.
	var iv [aes.BlockSize]byte
	hi, lo := binary.BigEndian.Uint64(sp.iv[:8]), binary.BigEndian.Uint64(sp.iv[8:])
	n := uint64(off) / aes.BlockSize
	if lo+n < lo {
		hi++
	}
	binary.BigEndian.PutUint64(iv[:8], hi)
	binary.BigEndian.PutUint64(iv[8:], lo+n)
	stream := cipher.NewCTR(sp.block, iv[:])
	var skip [aes.BlockSize]byte
	stream.XORKeyStream(skip[:off%aes.BlockSize], skip[:off%aes.BlockSize])
	return cipher.StreamReader{S: stream, R: io.NewSectionReader(sp.f, off, sp.size-off)}
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
		sec := sp.decrypter(off)
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
