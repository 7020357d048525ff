package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
)

// TestQueueLogger: River's information is dropped, its warnings and errors
// pass, and once the queue stops a cancelled context is not an error.
func TestQueueLogger(t *testing.T) {
	for _, tt := range []struct {
		name     string
		stopping bool
		level    slog.Level
		err      any
		written  bool
	}{
		{"information", false, slog.LevelInfo, nil, false},
		{"warning", false, slog.LevelWarn, "boom", true},
		{"error", false, slog.LevelError, "boom", true},
		{"cancelled while running", false, slog.LevelError, "context canceled", true},
		{"cancelled when stopping (text)", true, slog.LevelError, "context canceled", false},
		{"cancelled when stopping (error)", true, slog.LevelError, fmt.Errorf("begin: %w", context.Canceled), false},
		{"another error when stopping", true, slog.LevelError, "database is locked", true},
		{"deadline when stopping", true, slog.LevelError, context.DeadlineExceeded, true},
		{"warning when stopping", true, slog.LevelWarn, "context canceled", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			l := RiverLogger(slog.New(slog.NewTextHandler(&out, nil)), func() bool { return tt.stopping })
			l.Log(context.Background(), tt.level, "maintenance.PeriodicJobEnqueuer: Error starting transaction", "error", tt.err)
			if written := out.Len() > 0; written != tt.written {
				t.Errorf("written %v, want %v: %q", written, tt.written, out.String())
			}
		})
	}
	var out bytes.Buffer
	quietLogger(slog.New(slog.NewTextHandler(&out, nil))).Error("x", "error", errors.New("context canceled"))
	if out.Len() == 0 {
		t.Error("the migrator's logger dropped an error")
	}
}
