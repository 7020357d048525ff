package split

// This file holds the structural problems a split reports and how reading
// goes on (or stops) after one.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/entityapi/entityapi/server/jsonguard"
	"github.com/entityapi/entityapi/server/problem"
)

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

func (s *splitter) add(p *problem.Problem) {
	s.problems = append(s.problems, p)
	if len(s.problems) >= MaxProblems {
		s.stop = true
	}
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
		s.problems = append(s.problems, problem.ValueTooLarge(s.lim.MaxItemBytes, s.readingPointer()))
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

// readingPointer is the pointer of the item being decoded ("" between
// items).
func (s *splitter) readingPointer() string {
	if s.readingIndex < 0 {
		return ""
	}
	return s.readingArray + "/" + strconv.Itoa(s.readingIndex)
}
