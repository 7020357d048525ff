package split

// This file holds what a split hands out (items and chunks) and the limits
// it keeps to.

import (
	"encoding/json"
	"strconv"
)

// Item is one resource object of the request, as sent.
type Item struct {
	Included bool            // from the root included array, else from data
	Index    int             // zero-based position in its array (pointers into the ORIGINAL request: /data/17, /included/2)
	Raw      json.RawMessage // the object as sent
	Type, ID string          // its type and client id ("" when absent)
}

// Pointer is the JSON Pointer of the item in the original request.
func (it Item) Pointer() string {
	if it.Included {
		return "/included/" + strconv.Itoa(it.Index)
	}
	return "/data/" + strconv.Itoa(it.Index)
}

// Chunk is a unit of work: primary items and the included items they refer to
// (or that refer to them).
type Chunk struct {
	Number   int    // 1-based, in the order chunks are emitted
	Data     []Item // in request order
	Included []Item // in request order
}

// Limits are the sizes a split keeps to. A zero or negative ChunkSize,
// IncludedChunkSize, MaxFactor or MaxItemBytes means the default (100, 50, 10,
// DefaultMaxItemBytes).
type Limits struct {
	ChunkSize         int // primary items per chunk (DESIGN: 100)
	IncludedChunkSize int // included items per chunk (50)
	MaxFactor         int // a chunk closed under reference may exceed the nominal sizes up to this factor (10); beyond: 400
	MaxItems          int // 0: unlimited; otherwise more primary items is a 400 (the sync mode uses 100 / MaxIncluded 50)
	MaxIncluded       int
	// MaxItemBytes bounds what the decoder holds at once: one item, or any
	// other single value or run of white space of the body. A body with a
	// larger one is refused (413) as soon as that many bytes of it are read,
	// never held whole.
	MaxItemBytes int64
	// SpoolMemory is how many bytes of held items (see Split) stay in memory;
	// the rest go to a temporary file in SpoolDir ("": os.TempDir), removed
	// before Split returns. Zero or negative: DefaultSpoolMemory.
	SpoolMemory int64
	SpoolDir    string
}

// DefaultMaxItemBytes is the default of Limits.MaxItemBytes (1 MiB): far more
// than an item of attributes needs (the documents limit strings to 255
// characters or so); only a to-many linkage of some 20,000 identifiers comes
// near it, and needs the setting raised.
const DefaultMaxItemBytes = 1 << 20

// DefaultLimits are the limits of an asynchronous batch (oro-behaviour §10.3).
var DefaultLimits = Limits{ChunkSize: 100, IncludedChunkSize: 50, MaxFactor: 10}

// SyncLimits are the limits of a batch with X-Mode: sync. As the item limits
// equal the chunk sizes, a valid synchronous request is always one chunk.
var SyncLimits = Limits{ChunkSize: 100, IncludedChunkSize: 50, MaxFactor: 10, MaxItems: 100, MaxIncluded: 50}

func (l Limits) normal() Limits {
	if l.ChunkSize <= 0 {
		l.ChunkSize = DefaultLimits.ChunkSize
	}
	if l.IncludedChunkSize <= 0 {
		l.IncludedChunkSize = DefaultLimits.IncludedChunkSize
	}
	if l.MaxFactor <= 0 {
		l.MaxFactor = DefaultLimits.MaxFactor
	}
	if l.MaxItemBytes <= 0 {
		l.MaxItemBytes = DefaultMaxItemBytes
	}
	if l.SpoolMemory <= 0 {
		l.SpoolMemory = DefaultSpoolMemory
	}
	return l
}

// Stats counts what a split read: the items of each array (including those with
// problems) and the calls of emit (including one that failed).
type Stats struct{ Data, Included, Chunks int }
