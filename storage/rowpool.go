package storage

import "sync"

// Reading a page built a map (Row) for every record: on a GET of ten
// regions (issue 16) a quarter of the bytes the request allocated, and the
// CPU of making and filling them. A caller that is done with the rows Find
// gave it can hand them back with Release; Find then refills those maps,
// emptied, instead of making new ones. Rows not released are left to the
// garbage collector, as before.

// rowPools hold emptied rows by size class: class i holds maps made for up
// to 8<<i columns (8 is the slots of one map group), so that a reused map
// has about the room of a new one; wider rows are not pooled.
var rowPools [4]sync.Pool

// rowClass is the class of a row of n columns, or -1 when it is not pooled.
func rowClass(n int) int {
	for i := range rowPools {
		if n <= 8<<i {
			return i
		}
	}
	return -1
}

// newRow is an empty row for n columns: a released one when there is one.
func newRow(n int) Row {
	c := rowClass(n)
	if c < 0 {
		return make(Row, n)
	}
	if r, ok := rowPools[c].Get().(Row); ok {
		return r
	}
	return make(Row, 8<<c)
}

// Release hands rows that Find returned back to be reused by later reads,
// and sets each element of rows to nil. The caller must hold no other
// reference to those maps: after Release another request may refill them.
// Values read from them before stay valid (Release drops the maps'
// references to them, it does not change them).
func Release(rows []Row) {
	for i, r := range rows {
		rows[i] = nil
		if c := rowClass(len(r)); r != nil && c >= 0 {
			clear(r)
			rowPools[c].Put(r)
		}
	}
}
