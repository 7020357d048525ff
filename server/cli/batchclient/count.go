package batchclient

import "sync/atomic"

// The batch client counts the records of the file as it streams out, so that
// the progress shows records per second while the server works (the
// operation itself tells only its percentage until it ends). The count costs
// a few comparisons per byte and holds nothing of the file.

// itemCounter counts the elements of the root "data" array of a JSON
// document written to it in pieces. Anything it does not follow (a "data"
// key spelt with escapes, a document that is not an object) leaves the count
// at 0, which the progress shows as unknown; the server judges the document.
type itemCounter struct {
	n         atomic.Int64 // read by the progress while the transport writes
	depth     int          // objects and arrays open
	inString  bool         // inside a string
	escape    bool         // after a backslash in a string
	capture   bool         // the string is a key of the root object
	expectKey bool         // at depth 1, the next string is a key
	value     bool         // at depth 1, after a colon: a value starts
	inData    bool         // inside the root "data" array
	key       [5]byte
	keyLen    int // bytes of the key; above len(key): not "data"
}

func (c *itemCounter) Write(p []byte) (int, error) {
	for _, b := range p {
		if c.inString {
			switch {
			case c.escape:
				c.escape = false
			case b == '\\':
				c.escape = true
				if c.capture {
					c.keyLen = len(c.key) + 1
				}
			case b == '"':
				c.inString = false
			case c.capture && c.keyLen < len(c.key):
				c.key[c.keyLen] = b
				c.keyLen++
			case c.capture:
				c.keyLen = len(c.key) + 1
			}
			continue
		}
		switch b {
		case '"':
			c.inString = true
			c.capture = c.depth == 1 && c.expectKey
			if c.capture {
				c.keyLen, c.expectKey = 0, false
			}
			if c.depth == 1 {
				c.value = false
			}
		case ':':
			c.value = c.depth == 1
		case ',':
			if c.depth == 1 {
				c.expectKey, c.value = true, false
			}
		case '{', '[':
			switch {
			case c.depth == 0 && b == '{':
				c.expectKey = true
			case c.depth == 1 && c.value && b == '[' && c.keyLen == 4 && string(c.key[:4]) == "data":
				c.inData = true
			case c.depth == 2 && c.inData && b == '{':
				c.n.Add(1)
			}
			if c.depth == 1 {
				c.value = false
			}
			c.depth++
		case '}', ']':
			c.depth--
			if c.depth == 1 {
				c.inData = false
			}
		}
	}
	return len(p), nil
}
