package batch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/entityapi/entityapi/server/jsonguard"
	"github.com/entityapi/entityapi/server/problem"
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

// MaxProblems is how many structural problems Split reports at most; it stops
// reading the body once it has found that many.
const MaxProblems = 100

// The details of the structural problems (request data constraint).
const (
	detailEmpty         = "The request data should not be empty."
	detailNotObject     = "The request data should be an object."
	detailDataArray     = "The 'data' property should be an array of resource objects."
	detailIncludedArray = "The 'included' property should be an array of resource objects."
	detailItemObject    = "The item should be an object."
	detailTypeRequired  = "The 'type' property is required."
	detailTypeMismatch  = "The 'type' property of the primary data object should match the requested resource."
	detailTypeString    = "The 'type' property should be a string."
	detailIDRequired    = "The 'id' property is required."
	detailIDString      = "The 'id' property should be a string."
	detailUnlinked      = "The entity should have a relationship with the primary entity and this should be explicitly specified in the request."
	detailGroupTooLarge = "The related items of one request part exceed the chunk limit."
	detailDataLimit     = "The data limit for the synchronous operation exceeded."
	detailIncludedLimit = "The data limit for the synchronous operation exceeded for the section \"included\"."
)

// Split reads r, calling emit for every chunk as soon as it is complete, and returns the
// structural problems of the request as a problem.List (a synchronous 400: the caller
// discards what it staged). It never returns a partial success: on a structural problem,
// the caller must treat every emitted chunk as void.
//
// Errors: a problem.List holds every structural problem found (at most
// MaxProblems; reading stops there, at a malformed spot, or at an exceeded
// MaxItems / MaxIncluded / MaxItemBytes). The body is read through a
// jsonguard.Guard: invalid UTF-8 and nesting deeper than jsonguard.MaxDepth are
// malformed JSON, found as the bytes arrive. An error of emit is returned as is and stops the
// split. An error of r itself (other than io.EOF, for example
// *http.MaxBytesError) is returned as is too: it is not a problem of the JSON.
// Once a problem has been found, emit is not called any more.
//
// Chunks: data items linked with no included item go into chunks of
// ChunkSize in request order. A data item is linked with an included item when
// one of its relationships names the included item (type + id), or the
// included item names the data item (the type of the request + the data item's
// id); included items link with each other the same way. Every connected group
// of data and included items goes into one chunk with all its items (it may
// share the chunk with other groups and plain items while the chunk stays
// within ChunkSize / IncludedChunkSize; a group larger than that gets a chunk
// of its own, up to MaxFactor times the sizes). References between two data
// items are not links: a data item cannot depend on another data item of the
// same request.
//
// Memory: the decoder holds one item at a time, of at most MaxItemBytes. What the splitter holds
// depends on where "included" stands in the body:
//   - "included" absent, or before "data": plain data items (those that turn out
//     to be linked with no included item) are emitted as soon as ChunkSize of
//     them are read, so they cost at most one chunk. When "included" came first
//     the linking of each data item is known when it is read; when "included"
//     has not been met yet, a data item without an id and without any
//     relationship identifier can never be linked and is emitted early too.
//   - Items that might refer to included items are held until the end of the
//     body: every included item, every data item linked with an included item,
//     and, while "included" has not been met yet, every data item that has an
//     id or a relationship identifier (it might be linked with an included item
//     still to come). So plain data items are held only when "included" comes
//     after "data", or may still come, and they carry an id or relationships.
//
// A held data item is not kept in memory: its bytes go to a spool (memory up
// to Limits.SpoolMemory, then a temporary file) and the splitter keeps only
// its index and size (12 bytes). At the end, when there are included items,
// one pass over the spool finds the held items linked with them (by their
// exact keys, read again); then the items are read back in request order as
// they are packed. So memory is bounded by the chunk sizes plus 12 bytes per
// held item, and by the included items, which are held whole; a client that
// sends updates or items with relationships and no included items avoids even
// the spool by putting an empty "included": [] before "data".
func Split(r io.Reader, typ string, lim Limits, emit func(Chunk) error) (Stats, error) {
	lim = lim.normal()
	pr := newPosReader(r, lim.MaxItemBytes)
	s := &splitter{
		typ:        typ,
		lim:        lim,
		emit:       emit,
		pr:         pr,
		dec:        json.NewDecoder(pr),
		incIndex:   map[string]int{},
		incTargets: map[string]struct{}{},
	}
	pr.dec = s.dec
	s.spool = spool{dir: lim.SpoolDir, memory: lim.SpoolMemory}
	defer s.spool.close()
	err := s.run()
	st := Stats{Data: s.nData, Included: s.nInc, Chunks: s.chunks}
	if err != nil {
		return st, err
	}
	if len(s.problems) > 0 {
		if len(s.problems) > MaxProblems {
			s.problems = s.problems[:MaxProblems]
		}
		return st, s.problems
	}
	return st, nil
}

// heldItem is what stays in memory of a held data item: its bytes are in the
// spool, where the held items stand one after the other (so the offset of
// one is the sum of the sizes before it).
type heldItem struct {
	index int32 // in data
	size  int32 // of its bytes (at most MaxItemBytes)
	bad   bool  // it has a structural problem
}

type incItem struct {
	Item
	refs  []string
	valid bool // type and id are fine and the item is not a duplicate
}

type splitter struct {
	typ  string
	lim  Limits
	emit func(Chunk) error
	pr   *posReader
	dec  *json.Decoder

	problems problem.List
	stop     bool   // stop reading: too many problems, malformed JSON or an item limit
	reading  string // the pointer of the item being decoded, "" between items

	dataSeen, incSeen bool // the member has been met
	incDone           bool // the included array has been read: every data item read now knows its links
	nData, nInc       int

	pending    []Item     // plain data items not emitted yet (fewer than ChunkSize)
	held       []heldItem // data items whose chunk is decided at the end
	spool      spool      // the bytes of the held items
	inc        []incItem
	incIndex   map[string]int      // key of a valid included item → its index in inc
	incTargets map[string]struct{} // every key some included item refers to

	chunks int
}

func key(typ, id string) string { return typ + "\x00" + id }

func (s *splitter) add(p *problem.Problem) {
	s.problems = append(s.problems, p)
	if len(s.problems) >= MaxProblems {
		s.stop = true
	}
}

func (s *splitter) run() error {
	tok, err := s.dec.Token()
	if err == io.EOF && s.pr.err == nil {
		s.add(problem.RequestData(detailEmpty, ""))
		return nil
	}
	if err != nil {
		return s.malformed(err)
	}
	switch tok {
	case json.Delim('{'):
	case nil:
		s.add(problem.RequestData(detailEmpty, ""))
		return s.end()
	default:
		// Not a document at all: nothing in the rest can change the answer.
		s.add(problem.RequestData(detailNotObject, ""))
		s.stop = true
		return nil
	}
	for s.dec.More() {
		tok, err := s.dec.Token()
		if err != nil {
			return s.malformed(err)
		}
		name, _ := tok.(string)
		switch name {
		case "data":
			err = s.readData()
		case "included":
			err = s.readIncluded()
		case "jsonapi", "meta":
			err = s.skip()
		default:
			s.add(problem.RequestData(fmt.Sprintf("The '%s' property is not allowed here.", name), "/"+escapePointer(name)))
			err = s.skip()
		}
		if err != nil || s.stop {
			return err
		}
	}
	if _, err := s.dec.Token(); err != nil { // the closing brace
		return s.malformed(err)
	}
	if err := s.end(); err != nil || s.stop {
		return err
	}
	if !s.dataSeen {
		s.add(problem.RequestData(detailEmpty, ""))
		return nil
	}
	return s.finish()
}

// end checks that nothing but white space follows the root value.
func (s *splitter) end() error {
	s.dec.More() // moves past white space
	off := s.dec.InputOffset()
	var next [1]byte
	_, _ = s.dec.Buffered().Read(next[:])
	_, err := s.dec.Token()
	if err == io.EOF && s.pr.err == nil {
		return nil
	}
	if err != nil {
		return s.malformed(err)
	}
	return s.malformedAt(off, fmt.Sprintf("invalid character %q after top-level value", next[0]))
}

// malformed turns an error of the decoder into the problem of a malformed
// body; an error of the reader itself is returned as is.
func (s *splitter) malformed(err error) error {
	if s.pr.err != nil {
		return s.pr.err
	}
	var se *json.SyntaxError
	var refused *jsonguard.Error
	switch {
	case errors.As(err, &refused):
		return s.malformedAt(refused.Offset, refused.Reason)
	case errors.Is(err, errValueTooLarge):
		s.problems = append(s.problems, problem.ValueTooLarge(s.lim.MaxItemBytes, s.reading))
		s.stop = true
		return nil
	case errors.As(err, &se):
		off := s.dec.InputOffset()
		if se.Offset != off {
			// The error comes from the scanner inside one value, whose Offset
			// is not an input offset: find the spot again in what is buffered.
			b, _ := io.ReadAll(s.dec.Buffered())
			var raw json.RawMessage
			var se2 *json.SyntaxError
			if errors.As(json.Unmarshal(b, &raw), &se2) && se2.Offset > 0 && se2.Offset <= int64(len(b)) {
				off += se2.Offset - 1
			}
		}
		return s.malformedAt(off, se.Error())
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return s.malformedAt(s.pr.off, "unexpected end of JSON input")
	default: // the decoder reports nothing else; should it, it is still about the JSON
		return s.malformedAt(s.dec.InputOffset(), err.Error())
	}
}

func (s *splitter) malformedAt(off int64, msg string) error {
	line, col := s.pr.position(off)
	msg = strings.TrimSuffix(msg, ".")
	if msg != "" {
		msg = strings.ToUpper(msg[:1]) + msg[1:] + "."
	}
	s.problems = append(s.problems, problem.MalformedJSON(fmt.Sprintf("Invalid json message received. Parsing error in [%d:%d]. %s", line, col, msg)))
	s.stop = true
	return nil
}

// skip reads the next value and forgets it, token by token, so a large value
// is never held.
func (s *splitter) skip() error {
	tok, err := s.dec.Token()
	if err != nil {
		return s.malformed(err)
	}
	return s.skipRest(tok)
}

// skipRest skips the rest of a value whose first token has been read.
func (s *splitter) skipRest(tok json.Token) error {
	depth := 0
	for {
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
		var err error
		if tok, err = s.dec.Token(); err != nil {
			return s.malformed(err)
		}
	}
}

// readArray reads the value of data or included: null (an empty section),
// an array of items, or anything else (a problem, notArray at pointer). each
// gets every item's index and bytes. empty tells whether the value was null or
// an empty array.
func (s *splitter) readArray(pointer, notArray string, limit int, limitDetail string, each func(int, json.RawMessage) error) (empty bool, err error) {
	tok, err := s.dec.Token()
	if err != nil {
		return false, s.malformed(err)
	}
	switch tok {
	case json.Delim('['):
	case nil:
		return true, nil
	default:
		s.add(problem.RequestData(notArray, pointer))
		return false, s.skipRest(tok)
	}
	n := 0
	for s.dec.More() {
		if limit > 0 && n >= limit {
			s.add(problem.RequestData(limitDetail, pointer))
			s.stop = true
			return false, nil
		}
		var raw json.RawMessage
		s.reading = pointer + "/" + strconv.Itoa(n)
		err := s.dec.Decode(&raw)
		if err != nil {
			return false, s.malformed(err)
		}
		s.reading = ""
		n++
		if err := each(n-1, raw); err != nil {
			return false, err
		}
		s.pr.prune(s.dec.InputOffset())
		if s.stop {
			return false, nil
		}
	}
	if _, err := s.dec.Token(); err != nil { // the closing bracket
		return false, s.malformed(err)
	}
	return n == 0, nil
}

func (s *splitter) readData() error {
	if s.dataSeen {
		s.add(problem.RequestData("The 'data' property should occur only once.", "/data"))
		return s.skip()
	}
	s.dataSeen = true
	empty, err := s.readArray("/data", detailDataArray, s.lim.MaxItems, detailDataLimit, func(i int, raw json.RawMessage) error {
		s.nData++
		return s.addData(i, raw)
	})
	if err != nil || s.stop {
		return err
	}
	if empty {
		s.add(problem.RequestData(detailEmpty, "/data"))
	}
	return nil
}

func (s *splitter) readIncluded() error {
	if s.incSeen {
		s.add(problem.RequestData("The 'included' property should occur only once.", "/included"))
		return s.skip()
	}
	s.incSeen = true
	_, err := s.readArray("/included", detailIncludedArray, s.lim.MaxIncluded, detailIncludedLimit, func(i int, raw json.RawMessage) error {
		s.nInc++
		s.addIncluded(i, raw)
		return nil
	})
	if err != nil || s.stop {
		return err
	}
	s.incDone = true
	return nil
}

func (s *splitter) addData(i int, raw json.RawMessage) error {
	it := Item{Index: i, Raw: raw}
	base := it.Pointer // built only for a problem
	if !isObject(raw) {
		s.add(problem.RequestData(detailItemObject, base()))
		return nil
	}
	f := readItem(raw)
	before := len(s.problems)
	t, present, isString := str(f.typ)
	it.Type = t
	switch {
	case !present || isString && t == "":
		s.add(problem.RequestData(detailTypeRequired, base()+"/type"))
	case !isString || t != s.typ:
		s.add(problem.RequestData(detailTypeMismatch, base()+"/type"))
	}
	if id, present, isString := str(f.id); present && !isString {
		s.add(problem.RequestData(detailIDString, base()+"/id"))
	} else {
		it.ID = id
	}
	itemRefs := refs(f.relationships)
	bad := len(s.problems) > before
	var linked bool
	if s.incDone {
		for _, r := range itemRefs {
			if _, ok := s.incIndex[r]; ok {
				linked = true
				break
			}
		}
		if !linked && it.ID != "" {
			_, linked = s.incTargets[key(s.typ, it.ID)]
		}
	} else {
		linked = len(itemRefs) > 0 || it.ID != ""
	}
	switch {
	case linked:
		return s.hold(it, bad)
	case bad:
		// reported; it links nothing and is never emitted
	default:
		if s.pending == nil {
			s.pending = make([]Item, 0, s.lim.ChunkSize)
		}
		s.pending = append(s.pending, it)
		if len(s.pending) >= s.lim.ChunkSize {
			c := Chunk{Data: s.pending}
			s.pending = nil
			return s.send(c)
		}
	}
	return nil
}

// hold keeps a data item for the end: its bytes in the spool.
func (s *splitter) hold(it Item, bad bool) error {
	if _, err := s.spool.write(it.Raw); err != nil {
		return err
	}
	s.held = append(s.held, heldItem{index: int32(it.Index), size: int32(len(it.Raw)), bad: bad})
	return nil
}

// loadHeld reads held item h, whose bytes are at off in the spool, back: the
// item as addData made it, and the keys it refers to.
func (s *splitter) loadHeld(h int, off int64) (Item, []string, error) {
	hi := s.held[h]
	raw, err := s.spool.read(off, int(hi.size))
	if err != nil {
		return Item{}, nil, err
	}
	f := readItem(raw)
	it := Item{Index: int(hi.index), Raw: raw}
	it.Type, _, _ = str(f.typ)
	if id, present, isString := str(f.id); !present || isString {
		it.ID = id
	}
	return it, refs(f.relationships), nil
}

func (s *splitter) addIncluded(i int, raw json.RawMessage) {
	it := incItem{Item: Item{Included: true, Index: i, Raw: raw}}
	base := it.Pointer
	if !isObject(raw) {
		s.add(problem.RequestData(detailItemObject, base()))
		s.inc = append(s.inc, it)
		return
	}
	f := readItem(raw)
	it.refs = refs(f.relationships)
	for _, r := range it.refs {
		s.incTargets[r] = struct{}{}
	}
	before := len(s.problems)
	t, present, isString := str(f.typ)
	it.Type = t
	switch {
	case !present || isString && t == "":
		s.add(problem.RequestData(detailTypeRequired, base()+"/type"))
	case !isString:
		s.add(problem.RequestData(detailTypeString, base()+"/type"))
	}
	id, present, isString := str(f.id)
	it.ID = id
	switch {
	case !present || isString && id == "":
		s.add(problem.RequestData(detailIDRequired, base()+"/id"))
	case !isString:
		s.add(problem.RequestData(detailIDString, base()+"/id"))
	}
	if len(s.problems) == before {
		k := key(t, id)
		if first, dup := s.incIndex[k]; dup {
			s.add(problem.RequestData(fmt.Sprintf("The item duplicates the item with the index %d.", first), base()))
		} else {
			s.incIndex[k] = len(s.inc)
			it.valid = true
		}
	}
	s.inc = append(s.inc, it)
}

// send emits a chunk unless the request is already known to be void.
func (s *splitter) send(c Chunk) error {
	if len(s.problems) > 0 {
		return nil
	}
	s.chunks++
	c.Number = s.chunks
	return s.emit(c)
}

// candidate is a held item linked with an included item, with its keys.
type candidate struct {
	held int
	off  int64  // of its bytes in the spool
	id   string // "" when it has none or has a problem
	refs []string
}

// finish links the held items with the included items, checks the links and
// emits the remaining chunks.
func (s *splitter) finish() error {
	cands, err := s.candidates()
	if err != nil {
		return err
	}
	nI := len(s.inc)
	uf := newUnionFind(nI + len(cands))
	dataByKey := map[string][]int{}
	for c, it := range cands {
		if it.id != "" {
			k := key(s.typ, it.id)
			dataByKey[k] = append(dataByKey[k], nI+c)
		}
		for _, r := range it.refs {
			if j, ok := s.incIndex[r]; ok {
				uf.union(nI+c, j)
			}
		}
	}
	for i, it := range s.inc {
		for _, r := range it.refs {
			if j, ok := s.incIndex[r]; ok {
				uf.union(i, j)
			}
			for _, c := range dataByKey[r] {
				uf.union(i, c)
			}
		}
	}
	n := nI + len(cands)
	nData := make([]int32, n)
	nInc := make([]int32, n)
	for i := range s.inc {
		nInc[uf.find(i)]++
	}
	var groupFirst []int // the first candidate of every group, in request order
	for c := range cands {
		root := uf.find(nI + c)
		if nData[root] == 0 && nInc[root] > 0 {
			groupFirst = append(groupFirst, c)
		}
		nData[root]++
	}
	for i, it := range s.inc {
		if it.valid && nData[uf.find(i)] == 0 {
			s.add(problem.RequestData(detailUnlinked, it.Pointer()))
		}
	}
	maxData, maxInc := int32(s.lim.MaxFactor*s.lim.ChunkSize), int32(s.lim.MaxFactor*s.lim.IncludedChunkSize)
	for _, c := range groupFirst {
		if root := uf.find(nI + c); nData[root] > maxData || nInc[root] > maxInc {
			s.add(problem.RequestData(detailGroupTooLarge, (&Item{Index: int(s.held[cands[c].held].index)}).Pointer()))
		}
	}
	if len(s.problems) > 0 {
		return nil
	}

	// Every plain item and every group is a unit; units are packed in the
	// order of their first data item: a group where its first data item
	// stands, with all its data and included items.
	type group struct{ data, included []int } // candidates, included items
	groups := make(map[int]*group, len(groupFirst))
	candOf := make(map[int]int, len(cands)) // held item → its candidate
	for c, it := range cands {
		candOf[it.held] = c
		if root := uf.find(nI + c); nInc[root] > 0 {
			g := groups[root]
			if g == nil {
				g = &group{}
				groups[root] = g
			}
			g.data = append(g.data, c)
		}
	}
	for i := range s.inc {
		g := groups[uf.find(i)]
		if g == nil { // cannot happen: an unlinked included item is a problem
			return errors.New("batch: an included item without a group")
		}
		g.included = append(g.included, i)
	}

	var cur Chunk
	flush := func() error {
		if len(cur.Data) == 0 && len(cur.Included) == 0 {
			return nil
		}
		slices.SortFunc(cur.Data, func(a, b Item) int { return a.Index - b.Index })
		slices.SortFunc(cur.Included, func(a, b Item) int { return a.Index - b.Index })
		c := cur
		cur = Chunk{}
		return s.send(c)
	}
	place := func(data, included []Item) error {
		if len(cur.Data)+len(data) > s.lim.ChunkSize || len(cur.Included)+len(included) > s.lim.IncludedChunkSize {
			if err := flush(); err != nil {
				return err
			}
		}
		cur.Data = append(cur.Data, data...)
		cur.Included = append(cur.Included, included...)
		return nil
	}
	pending := s.pending
	s.pending = nil
	off := int64(0)
	for h := range s.held {
		itemOff := off
		off += int64(s.held[h].size)
		for len(pending) > 0 && pending[0].Index < int(s.held[h].index) {
			if err := place(pending[:1], nil); err != nil {
				return err
			}
			pending = pending[1:]
		}
		if c, ok := candOf[h]; ok {
			if g := groups[uf.find(nI+c)]; g != nil {
				if g.data[0] == c {
					if err := s.placeGroup(cands, g.data, g.included, place); err != nil {
						return err
					}
				}
				continue
			}
		}
		it, _, err := s.loadHeld(h, itemOff)
		if err != nil {
			return err
		}
		if err := place([]Item{it}, nil); err != nil {
			return err
		}
	}
	for i := range pending {
		if err := place(pending[i:i+1], nil); err != nil {
			return err
		}
	}
	s.held, s.inc = nil, nil
	return flush()
}

// candidates reads the held items back, when there are included items, and
// returns those that refer to a valid included item or that an included item
// refers to: only they can be linked.
func (s *splitter) candidates() ([]candidate, error) {
	if len(s.inc) == 0 {
		return nil, nil
	}
	var cands []candidate
	off := int64(0)
	for h, hi := range s.held {
		it, itemRefs, err := s.loadHeld(h, off)
		if err != nil {
			return nil, err
		}
		c := candidate{held: h, off: off, refs: itemRefs}
		off += int64(hi.size)
		if !hi.bad {
			c.id = it.ID
		}
		linked := false
		if c.id != "" {
			_, linked = s.incTargets[key(s.typ, c.id)]
		}
		for _, r := range itemRefs {
			if _, ok := s.incIndex[r]; ok {
				linked = true
				break
			}
		}
		if linked {
			cands = append(cands, c)
		}
	}
	return cands, nil
}

// placeGroup places one group: its held data items read back, its included
// items.
func (s *splitter) placeGroup(cands []candidate, held, included []int, place func(data, included []Item) error) error {
	data := make([]Item, len(held))
	for i, c := range held {
		it, _, err := s.loadHeld(cands[c].held, cands[c].off)
		if err != nil {
			return err
		}
		data[i] = it
	}
	inc := make([]Item, len(included))
	for i, j := range included {
		inc[i] = s.inc[j].Item
	}
	return place(data, inc)
}

type unionFind struct{ parent, size []int32 }

func newUnionFind(n int) *unionFind {
	u := &unionFind{parent: make([]int32, n), size: make([]int32, n)}
	for i := range u.parent {
		u.parent[i] = int32(i)
		u.size[i] = 1
	}
	return u
}

func (u *unionFind) find(x int) int {
	for int(u.parent[x]) != x {
		u.parent[x] = u.parent[u.parent[x]]
		x = int(u.parent[x])
	}
	return x
}

func (u *unionFind) union(a, b int) {
	a, b = u.find(a), u.find(b)
	if a == b {
		return
	}
	if u.size[a] < u.size[b] {
		a, b = b, a
	}
	u.parent[b] = int32(a)
	u.size[a] += u.size[b]
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
