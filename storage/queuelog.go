package storage

import (
	"context"
	"errors"
	"log/slog"
)

// quietLogger is the logger River's migrator gets: it passes River's
// warnings and errors on and drops its routine information messages, which
// would drown the request log.
func quietLogger(l *slog.Logger) *slog.Logger {
	return RiverLogger(l, func() bool { return false })
}

// RiverLogger is quietLogger for a River client (the job queue of
// storage/jobs; the filter lives here because the migrator, which runs
// River's migrations, uses it too). Once the queue is stopping
// (stopping reports true), an ERROR whose error is context.Canceled is the
// stop itself, not a failure, and is dropped: River's maintenance services
// still run a statement with their cancelled context when stopped early (its
// periodic job enqueuer logs "Error starting transaction" error="context
// canceled" when the process stops within its staggered start, the first
// seconds of every run).
func RiverLogger(l *slog.Logger, stopping func() bool) *slog.Logger {
	return slog.New(riverLogFilter{Handler: l.Handler(), min: slog.LevelWarn, stopping: stopping})
}

type riverLogFilter struct {
	slog.Handler
	min      slog.Level
	stopping func() bool
}

func (f riverLogFilter) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= f.min && f.Handler.Enabled(ctx, l)
}

func (f riverLogFilter) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError && f.stopping() && cancelledError(r) {
		return nil
	}
	return f.Handler.Handle(ctx, r)
}

func (f riverLogFilter) WithAttrs(a []slog.Attr) slog.Handler {
	return riverLogFilter{f.Handler.WithAttrs(a), f.min, f.stopping}
}

func (f riverLogFilter) WithGroup(name string) slog.Handler {
	return riverLogFilter{f.Handler.WithGroup(name), f.min, f.stopping}
}

// cancelledError tells whether a record's error attribute is context.Canceled
// (River logs err.Error(), a string).
func cancelledError(r slog.Record) bool {
	found := false
	r.Attrs(func(a slog.Attr) bool {
		if a.Key != "error" && a.Key != "err" {
			return true
		}
		v := a.Value.Resolve()
		if err, ok := v.Any().(error); ok && v.Kind() == slog.KindAny {
			found = errors.Is(err, context.Canceled)
		} else {
			found = v.String() == context.Canceled.Error()
		}
		return !found
	})
	return found
}
