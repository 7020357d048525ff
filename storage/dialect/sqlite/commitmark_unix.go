//go:build unix

package sqlite

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// mapHeader maps the start of the -shm file at path, read-only and shared:
// the same memory SQLite's connections map, so that their commits show.
// The file it opened is returned open, even when it fails: closing it
// drops SQLite's locks on the file (commitmark.go), so the caller closes it
// once no connection of this process to the database is left.
func mapHeader(path string) (*walIndexHeader, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		return nil, f, err
	}
	if info.Size() < walIndexHeaderSize {
		return nil, f, fmt.Errorf("sqlite: %s holds %d bytes, less than a wal-index header", path, info.Size())
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, walIndexHeaderSize, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, f, fmt.Errorf("sqlite: map %s: %w", path, err)
	}
	return (*walIndexHeader)(unsafe.Pointer(unsafe.SliceData(mem))), f, nil
}

// unmapHeader undoes mapHeader.
func unmapHeader(h *walIndexHeader) error {
	return syscall.Munmap(unsafe.Slice((*byte)(unsafe.Pointer(h)), walIndexHeaderSize))
}

// loadWord reads a word another process may be writing: atomically, and in
// order with the loads around it.
func loadWord(w *uint32) uint32 { return atomic.LoadUint32(w) }

// isInit reads the header's isInit byte, the first of its fourth word in
// memory (the header is in the machine's byte order).
func isInit(word uint32) bool {
	var b [4]byte
	binary.NativeEndian.PutUint32(b[:], word)
	return b[0] != 0
}
