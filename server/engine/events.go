package engine

import (
	"slices"

	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// Change events (issue 19). Every write of the engine passes one of four
// places, and each records its events in the transaction of its change:
// writeRecords (creates, updates and upserts of single requests, included
// records, atomic operations, and the chunks of sync and async batches),
// Delete, DeleteList and changeRelationship. storage writes them
// (storage/event.go); GET /api/events reads them like any other resource
// (x-entityapi feed: true), after SequenceEvents has numbered what has
// committed (sequence).

// itemEvents are the events of records writeRecords wrote: created or
// updated (an upsert says which it found), naming the attributes and
// relationships the request set.
func (e *Engine) itemEvents(cl *call, items []*item) []storage.Event {
	out := make([]storage.Event, len(items))
	for i, it := range items {
		action := storage.EventCreated
		if it.update {
			action = storage.EventUpdated
		}
		t := e.table(it.res)
		ev := cl.event(t, it.res, it.key, action)
		ev.Attributes, ev.Relationships = changedNames(it.in)
		if !it.update && len(it.ch.newOne) == 0 && t.Versioned {
			// A new row is version 1 until a later write of the request
			// fills in a reference to another new record: the event need
			// not read it back (a batch chunk's hundred lookups).
			ev.Version = &firstVersion
		}
		out[i] = ev
	}
	return out
}

// groupEvent is the one event of every record of group, creates of one
// type that InsertMany writes together, when they all set the same
// attributes and relationships (a batch nearly always does): InsertMany
// then records the events with the rows (storage.Conn.Noting), each with
// its own key. False when the names differ.
func (e *Engine) groupEvent(cl *call, group []*item) (storage.Event, bool) {
	evs := e.itemEvents(cl, group[:1])
	ev := evs[0]
	for _, it := range group[1:] {
		attrs, rels := changedNames(it.in)
		if !slices.Equal(attrs, ev.Attributes) || !slices.Equal(rels, ev.Relationships) {
			return storage.Event{}, false
		}
	}
	ev.Key = nil
	return ev, true
}

// firstVersion is the version of a new row (storage.VersionColumn); events
// only read it.
var firstVersion = int64(1)

// event is an event of the caller's on the record with key.
func (cl *call) event(t *storage.Table, res *resource.Resource, key any, action string) storage.Event {
	return storage.Event{Org: cl.org, Type: res.Type, Action: action, Table: t, Key: key,
		Client: cl.client, User: cl.user}
}

// changedNames are the names of the attributes and relationships an input
// sets, sorted.
func changedNames(in *input) (attrs, rels []string) {
	if in == nil {
		return nil, nil
	}
	for name := range in.attrs {
		attrs = append(attrs, name)
	}
	for name := range in.rels {
		rels = append(rels, name)
	}
	slices.Sort(attrs)
	slices.Sort(rels)
	return attrs, rels
}

// sequence numbers the events that have committed before a read of the
// feed shows them (storage.SequenceEvents; nothing on SQLite), so that a
// follower reads every event as soon as its transaction is over.
func (e *Engine) sequence(cl *call) error {
	if !cl.rt.res.Feed {
		return nil
	}
	return e.store.SequenceEvents(cl.ctx)
}
