package storage

import "context"

// EventsAfter returns up to limit events of the feed whose position (id) is
// above after, in feed order, over every organization: what the webhook
// dispatcher reads (storage/jobs). It numbers the committed events first
// (SequenceEvents), as the feed does before each read, so that the feed's
// order is the one it follows. This is the one place the webhooks read
// events; a change of the feed's mechanism is adapted here.
func (s *Store) EventsAfter(ctx context.Context, after int64, limit int) ([]ChangeEvent, error) {
	if err := s.SequenceEvents(ctx); err != nil {
		return nil, err
	}
	events := []ChangeEvent{}
	err := s.db.NewSelect().Model(&events).Where("id > ?", after).OrderExpr("id ASC").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, s.mapError("select", "events", err)
	}
	return events, nil
}
