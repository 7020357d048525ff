package engine

import (
	"context"
	"slices"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// The answer to a create or an update shows the record as written. Most of it
// is known once the write is done: the INSERT or UPDATE reads the row back
// itself (RETURNING), and the to-many linkage of a record the request alone
// wrote is what it wrote. Only what the request cannot know is read again.

// hasIncluded tells whether a JSON:API body carries included records.
func hasIncluded(doc *jsonapi.Document) bool {
	return doc != nil && len(doc.Included) > 0 && !jsonapi.IsNull(doc.Included)
}

// writtenRow is the record of it as stored: what its INSERT or UPDATE read
// back, or, when nothing did (a record left unchanged), the record read anew.
func (e *Engine) writtenRow(ctx context.Context, cl *call, it *item) (storage.Row, error) {
	if it.stored != nil {
		return it.stored, nil
	}
	return cl.db.Get(ctx, e.table(it.res), cl.org, it.key)
}

// answerLinkage is the to-many linkage of the primary record of set, whose
// stored row is row. When the request wrote no other record, a relationship
// it set (a join table's members, replaced as a whole) or that a new record
// cannot have yet holds exactly what was written; an updated record's others
// came with its UPDATE (answerMembers); the rest are loaded, one query each,
// as loadLinkage would.
func (e *Engine) answerLinkage(ctx context.Context, cl *call, set *itemSet, row storage.Row) (linkage, error) {
	primary := set.items[0]
	res := primary.res
	if len(set.items) > 1 {
		return e.loadLinkage(ctx, cl, res, []storage.Row{row}, nil)
	}
	owner := row[res.IDColumn]
	var out linkage
	for _, rel := range res.Relationships {
		if !rel.ToMany {
			continue
		}
		keys, known := writtenMembers(primary, rel)
		if i := slices.Index(primary.members, rel); !known && i >= 0 && primary.memberKeys != nil {
			keys, known = primary.memberKeys[i], true // read by the UPDATE itself
		}
		if !known {
			pairs, err := e.pairs(ctx, cl, res, rel, []any{owner})
			if err != nil {
				return nil, err
			}
			keys = make([]any, len(pairs))
			for i, pair := range pairs {
				keys[i] = pair[0]
			}
		}
		if out == nil {
			out = linkage{}
		}
		out[rel.Name] = map[string][]any{keyString(owner): keys}
	}
	return out, nil
}

// answerMembers marks, on the primary record of a request that writes it
// alone as an update, the to-many relationships answerLinkage would load
// after the write, so that the UPDATE reads their keys itself (one
// statement instead of one more per relationship). Call it once the
// request's changes are prepared.
func answerMembers(set *itemSet) {
	primary := set.items[0]
	if len(set.items) > 1 || !primary.update || !primary.answered {
		return
	}
	primary.members = nil
	for _, rel := range primary.res.Relationships {
		if _, known := writtenMembers(primary, rel); rel.ToMany && !known {
			primary.members = append(primary.members, rel)
		}
	}
}

// writtenMembers is what a to-many relationship of it holds after the
// request wrote it alone, in the order loadLinkage reads them (by key), when
// that is known: the members it set through a join table (each once), or none
// for a new record, which nothing else can refer to yet (the foreign keys
// remove the references to a deleted record whose key the new one may reuse).
func writtenMembers(it *item, rel *resource.Relationship) ([]any, bool) {
	if rel.Through != nil {
		if keys, set := it.ch.links[rel]; set {
			return sortedMembers(keys)
		}
	}
	if !it.update {
		return nil, true
	}
	return nil, false
}

// sortedMembers sorts and deduplicates keys as the database orders them:
// integers by value; several text keys are left to the database, whose
// collation may not be Go's byte order.
func sortedMembers(keys []any) ([]any, bool) {
	ints := make([]int64, 0, len(keys))
	for _, k := range keys {
		n, ok := k.(int64)
		if !ok {
			if len(keys) == 1 || allEqual(keys) {
				return keys[:1], true
			}
			return nil, false
		}
		ints = append(ints, n)
	}
	slices.Sort(ints)
	ints = slices.Compact(ints)
	out := make([]any, len(ints))
	for i, n := range ints {
		out[i] = n
	}
	return out, true
}

func allEqual(keys []any) bool {
	for _, k := range keys[1:] {
		if k != keys[0] {
			return false
		}
	}
	return true
}
