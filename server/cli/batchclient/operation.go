package batchclient

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"
)

// The asyncoperations resource as `entityapi batch` reads and prints it
// (openapi/backoffice/asyncoperations.yaml): only the members a person
// following a batch needs, so that new members never break the client.

// operation is one asynchronous operation.
type operation struct {
	ID          string
	Status      string     `json:"status"`
	Progress    *float64   `json:"progress"`
	CreatedAt   string     `json:"createdAt"`
	UpdatedAt   string     `json:"updatedAt"`
	ElapsedTime int64      `json:"elapsedTime"`
	EntityType  string     `json:"entityType"`
	Summary     *opSummary `json:"summary"`
}

// opSummary holds the totals of an operation that ended success.
type opSummary struct {
	AggregateTime int64 `json:"aggregateTime"`
	ReadCount     int64 `json:"readCount"`
	WriteCount    int64 `json:"writeCount"`
	ErrorCount    int64 `json:"errorCount"`
	CreateCount   int64 `json:"createCount"`
	UpdateCount   int64 `json:"updateCount"`
}

// opError is one error of an operation, pointing into the original request.
type opError struct {
	ID         string `json:"id"`
	Attributes struct {
		Status int    `json:"status"`
		Title  string `json:"title"`
		Detail string `json:"detail"`
		Source *struct {
			Pointer      string `json:"pointer"`
			PropertyPath string `json:"propertyPath"`
		} `json:"source"`
	} `json:"attributes"`
}

// ended reports whether the operation will change no more.
func (op *operation) ended() bool {
	return op.Status == "success" || op.Status == "failed" || op.Status == "cancelled"
}

func decodeOperation(raw []byte) (*operation, error) {
	var doc struct {
		Data struct {
			Type       string    `json:"type"`
			ID         string    `json:"id"`
			Attributes operation `json:"attributes"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || doc.Data.Type != "asyncoperations" || doc.Data.ID == "" {
		return nil, fmt.Errorf("an answer that is not an asyncoperations document: %.300s", raw)
	}
	op := doc.Data.Attributes
	op.ID = doc.Data.ID
	return &op, nil
}

// percent renders progress, which is null while the operation is new.
func (op *operation) percent() string {
	if op.Progress == nil {
		return "-"
	}
	return strconv.FormatFloat(*op.Progress, 'f', 2, 64) + "%"
}

// printOperation writes what `entityapi batch status` shows.
func printOperation(w io.Writer, op *operation) {
	fmt.Fprintf(w, "operation %s (%s): %s, progress %s\n", op.ID, op.EntityType, op.Status, op.percent())
	fmt.Fprintf(w, "  created %s, updated %s, elapsed %s\n", op.CreatedAt, op.UpdatedAt, time.Duration(op.ElapsedTime)*time.Second)
	if s := op.Summary; s != nil {
		fmt.Fprintf(w, "  %s\n", s)
	}
}

// String is the one-line form of a summary.
func (s *opSummary) String() string {
	return fmt.Sprintf("%d read, %d written (%d created, %d updated), item errors: %d, chunk processing: %s",
		s.ReadCount, s.WriteCount, s.CreateCount, s.UpdateCount, s.ErrorCount,
		(time.Duration(s.AggregateTime) * time.Millisecond).String())
}

// printError writes one error on one line: where, what, why.
func printError(w io.Writer, e opError) {
	where := "(whole request)"
	if src := e.Attributes.Source; src != nil && src.Pointer != "" {
		where = src.Pointer
	} else if src != nil && src.PropertyPath != "" {
		where = src.PropertyPath
	}
	fmt.Fprintf(w, "  %s  %s  %s: %s\n", e.ID, where, e.Attributes.Title, e.Attributes.Detail)
}
