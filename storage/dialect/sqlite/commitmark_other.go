//go:build !unix

package sqlite

import (
	"errors"
	"io"
)

// mapHeader fails where there is no shared mapping here: every freshness
// check then reads the database.
func mapHeader(string) (*walIndexHeader, io.Closer, error) {
	return nil, nil, errors.New("sqlite: no shared mapping of the wal-index on this system")
}

func unmapHeader(*walIndexHeader) error { return nil }

func loadWord(w *uint32) uint32 { return *w }

func isInit(uint32) bool { return false }
