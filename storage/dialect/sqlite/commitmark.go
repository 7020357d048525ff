package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"sync"

	"modernc.org/sqlite"

	"github.com/entityapi/entityapi/storage/dialect"
)

// Commit marks (docs/answers.md, "Freshness on SQLite"): a SQLite file in
// WAL mode keeps, in its shared-memory file (the "-shm" beside it), the
// wal-index header, which every commit of every process rewrites: its
// change counter grows by one with each, and its frame count and salts
// move with the log (https://www.sqlite.org/walformat.html, "The WAL-Index
// Header"; every SQLite since 3.7.0 shares that format, as the processes of
// one file must, whatever their SQLite). Reading the header where SQLite
// maps it costs a few loads of memory, no statement: when it is what it was
// before a reading of the reference generation began, nothing was committed
// since, and that reading is still the generation now.
//
// The header is read as SQLite's readers read it: the first copy, then the
// second, which a writer writes first; they differ while a commit is being
// written, and the mark is then unknown (the caller reads the database).
//
// A file of its own: the mark holds one connection of its own on the file
// for its life, opened with the store's pragmas (WAL) and read once, so that
// the shared memory it maps is the one SQLite uses: SQLite deletes the
// "-shm" file only when the last connection to the file closes, and never
// while this one is open.
//
// The descriptor the mapping is made through stays open until every SQLite
// connection of this process to the file has closed (closeWatch, last in
// DB.Close): SQLite's locks on the -shm are POSIX record locks, and closing
// any descriptor of a file drops every such lock the process holds on it.
// Closed at once, it dropped SQLite's "a connection is here" lock, and the
// next connection another process opened took the file for unused and
// reset the -shm under this process's mapping of it (SQLite then failed a
// write with "disk I/O error", SQLITE_IOERR_IN_PAGE); a lock taken for a
// write at that moment would have been dropped as well.

// commitWatch maps the wal-index header of one file.
type commitWatch struct {
	once sync.Once
	conn driver.Conn // the connection that keeps the -shm file (see above)
	hdr  *walIndexHeader
	shm  io.Closer // the descriptor of the -shm file, closed last (see above)
	err  error     // why there is no mark: no WAL, no -shm, no mmap
}

// walIndexHeader is the two copies of the header, 48 bytes each, as
// twelve 32-bit words: at the start of the -shm file, which SQLite aligns
// on a page.
type walIndexHeader [2][12]uint32

// walIndexHeaderSize is the bytes of walIndexHeader.
const walIndexHeaderSize = 96

// CommitMark is the wal-index header as committed now, ok false when it
// cannot be read (dialect.CommitMarker): ":memory:", a file not in WAL
// mode, a system without shared mappings, a commit being written.
func (d *DB) CommitMark() (dialect.CommitMark, bool) {
	if d.memory {
		return dialect.CommitMark{}, false
	}
	w := &d.watch
	w.once.Do(func() { w.hdr, w.conn, w.shm, w.err = d.openWatch() })
	if w.hdr == nil {
		return dialect.CommitMark{}, false
	}
	return w.hdr.read()
}

// read takes the header's first copy then its second, and is ok when they
// agree and the header is initialized (its isInit byte, in word 3).
func (h *walIndexHeader) read() (dialect.CommitMark, bool) {
	var first, second dialect.CommitMark
	for i := range first {
		first[i] = loadWord(&h[0][i])
	}
	for i := range second {
		second[i] = loadWord(&h[1][i])
	}
	return first, first == second && isInit(first[3])
}

// openWatch opens the watch's connection, makes it read the file (which
// maps the shared memory), checks the file is in WAL mode and maps the
// header. shm is the -shm file's descriptor when it was opened, even when
// the mapping then failed: it is closed last (see above).
func (d *DB) openWatch() (hdr *walIndexHeader, conn driver.Conn, shm io.Closer, err error) {
	if conn, err = (&sqlite.Driver{}).Open(DSN(d.path)); err != nil {
		return nil, nil, nil, err
	}
	mode, err := queryText(conn, "PRAGMA journal_mode")
	if err == nil && mode != "wal" {
		err = errors.New("sqlite: the file is not in WAL mode (" + mode + ")")
	}
	if err == nil {
		_, err = queryText(conn, "SELECT count(*) FROM sqlite_schema") // a read: maps the -shm
	}
	if err == nil {
		hdr, shm, err = mapHeader(d.path + "-shm")
	}
	if err != nil {
		return nil, nil, shm, errors.Join(err, conn.Close())
	}
	return hdr, conn, shm, nil
}

// closeWatch releases the watch's mapping and connection, then the -shm
// file's descriptor: DB.Close calls it once every other connection of the
// file is closed (see above).
func (d *DB) closeWatch() error {
	w := &d.watch
	w.once.Do(func() { w.err = errors.New("sqlite: closed") }) // none opens after
	var err error
	if w.hdr != nil {
		err = errors.Join(unmapHeader(w.hdr), w.conn.Close())
	}
	if w.shm != nil {
		err = errors.Join(err, w.shm.Close())
	}
	return err
}

// queryText is the first column of the first row of query on conn, as text.
func queryText(conn driver.Conn, query string) (string, error) {
	q, ok := conn.(driver.QueryerContext)
	if !ok {
		return "", errors.New("sqlite: the driver's connection does not query")
	}
	rows, err := q.QueryContext(context.Background(), query, nil)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	dest := make([]driver.Value, len(rows.Columns()))
	if err := rows.Next(dest); err != nil {
		if errors.Is(err, io.EOF) {
			return "", errors.New("sqlite: " + query + " answered no row")
		}
		return "", err
	}
	switch v := dest[0].(type) {
	case string:
		return v, nil
	case []byte:
		return string(v), nil
	default:
		return "", nil
	}
}
