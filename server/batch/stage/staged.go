package stage

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/entityapi/entityapi/server/batch/split"
	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage/jobs"
)

// Chunk is a split chunk of batch b as it waits in the database for its
// job, under the operation numbered operation: its items as sent, with
// every password hashed (Seal).
func Chunk(b *engine.Bulk, operation int64, ch split.Chunk) *jobs.Chunk {
	return &jobs.Chunk{OperationID: operation, Number: ch.Number,
		Items: encode(Seal(b, b.Resource(), ch.Data)), Included: encode(Seal(b, nil, ch.Included))}
}

// encode writes items as the JSON array of jobs.ChunkItem, copying each
// item's bytes as they are (nil for none).
func encode(items []jobs.ChunkItem) []byte {
	if len(items) == 0 {
		return nil
	}
	size := 2
	for _, it := range items {
		size += len(it.Raw) + 24
	}
	b := make([]byte, 0, size)
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"index":`...)
		b = strconv.AppendInt(b, int64(it.Index), 10)
		b = append(b, `,"raw":`...)
		b = append(b, it.Raw...)
		if it.Hashed {
			b = append(b, `,"hashed":true`...)
		}
		if len(it.Problems) > 0 {
			ps, _ := json.Marshal(it.Problems)
			b = append(b, `,"problems":`...)
			b = append(b, ps...)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// Decode reads the items of a staged chunk.
func Decode(ch *jobs.Chunk) (data, included []jobs.ChunkItem, err error) {
	if data, err = decodeItems(ch.Items); err != nil {
		return nil, nil, err
	}
	if included, err = decodeItems(ch.Included); err != nil {
		return nil, nil, err
	}
	return data, included, nil
}

// decodeItems reads the items of a staged chunk (nil: none).
func decodeItems(raw []byte) ([]jobs.ChunkItem, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	if items, ok := readItems(raw); ok {
		return items, nil
	}
	var items []jobs.ChunkItem
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("stage: a staged chunk is not readable: %w", err)
	}
	return items, nil
}

// readItems reads staged items as encode writes them, each item's bytes a
// sub-slice of raw rather than a copy made through reflection; ok is false
// for any other form (then encoding/json reads it, or says why not).
func readItems(raw []byte) (items []jobs.ChunkItem, ok bool) {
	if !json.Valid(raw) {
		return nil, false
	}
	ok = true
	items = make([]jobs.ChunkItem, 0, 128) // a chunk holds 100 items unless configured otherwise
	isArray := split.Elements(raw, func(el []byte) {
		var it jobs.ChunkItem
		isObject := split.Members(el, func(key, val []byte) {
			switch string(key) {
			case `"index"`:
				n, err := strconv.Atoi(string(val))
				it.Index, ok = n, ok && err == nil
			case `"raw"`:
				it.Raw = val
			case `"hashed"`:
				it.Hashed, ok = string(val) == "true", ok && (string(val) == "true" || string(val) == "false")
			case `"problems"`:
				ok = ok && json.Unmarshal(val, &it.Problems) == nil
			default:
				ok = false
			}
		})
		if !isObject || it.Raw == nil {
			ok = false
		}
		items = append(items, it)
	})
	return items, ok && isArray
}

// Problems are the problems Seal staged with an item, as the run reports
// them.
func Problems(ps []jobs.ChunkProblem) []*problem.Problem {
	out := make([]*problem.Problem, len(ps))
	for i, p := range ps {
		out[i] = problem.Constraint(p.Title, p.Detail, p.Pointer)
	}
	return out
}
