package jobs

import (
	"encoding/json"
	"time"

	"github.com/uptrace/bun"
)

// The Bun models of batch operations: their tables are created by storage's
// migrations (0004 and later), and only this package's queries touch them.

// Operation is an asynchronous batch request (docs/decisions.md §7): its state
// (one of the Status... constants), how many chunks it has and how many
// are done, and the summed counts of the done chunks. OwnerID is the user who
// sent it (nil once that user is deleted). StartedAt is set when it becomes
// running, FinishedAt when it ends. See operations.go.
type Operation struct {
	bun.BaseModel `bun:"table:async_operations"`

	ID             int64  `bun:"id,pk,autoincrement"`
	OrganizationID int64  `bun:"organization_id,notnull"`
	OwnerID        *int64 `bun:"owner_id"`
	// ClientID is the client that sent it, named by the change events of
	// its chunks (migration 0011; nil for operations sent before).
	ClientID *string `bun:"client_id"`
	// RequestID is the id of the request that sent it, which the audit
	// rows of its chunks name (migration 0021; nil for those sent before).
	RequestID   *string    `bun:"request_id"`
	EntityType  string     `bun:"entity_type,notnull"`
	Status      string     `bun:"status,notnull"`
	ChunkCount  int64      `bun:"chunk_count,notnull"`
	ChunksDone  int64      `bun:"chunks_done,notnull"`
	ReadCount   int64      `bun:"read_count,notnull"`
	WriteCount  int64      `bun:"write_count,notnull"`
	ErrorCount  int64      `bun:"error_count,notnull"`
	CreateCount int64      `bun:"create_count,notnull"`
	UpdateCount int64      `bun:"update_count,notnull"`
	AggregateMS int64      `bun:"aggregate_ms,notnull"`
	CreatedAt   time.Time  `bun:"created_at,nullzero,notnull,default:current_timestamp"`
	UpdatedAt   time.Time  `bun:"updated_at,nullzero,notnull,default:current_timestamp"`
	StartedAt   *time.Time `bun:"started_at"`
	FinishedAt  *time.Time `bun:"finished_at"`
}

// Chunk is one staged chunk of an operation, numbered from 1.
// Items holds its primary items and Included its included items (nil when
// none), each a JSON array of ChunkItem. Done marks a chunk whose writes,
// counts and errors are committed; its items are then dropped.
type Chunk struct {
	bun.BaseModel `bun:"table:async_operation_chunks"`

	OperationID int64           `bun:"operation_id,pk"`
	Number      int             `bun:"number,pk"`
	Items       json.RawMessage `bun:"items,notnull"`
	Included    json.RawMessage `bun:"included"`
	Done        bool            `bun:"done,notnull"`
}

// ChunkItem is one element of Chunk.Items or .Included: the
// item's zero-based index in the request's data (or included) array and its
// JSON text. A staged item never holds a password in plain text: the server
// replaces it by its hash before staging (Hashed), or, when the password
// breaks a rule that needs its plain value, drops it and stages the rule's
// problems instead, to be reported as the item's errors.
type ChunkItem struct {
	Index    int             `json:"index"`
	Raw      json.RawMessage `json:"raw"`
	Hashed   bool            `json:"hashed,omitempty"`
	Problems []ChunkProblem  `json:"problems,omitempty"`
}

// ChunkProblem is a constraint violation (status 400) found in an item
// before it was staged; Pointer points into the original request.
type ChunkProblem struct {
	Title   string `json:"title"`
	Detail  string `json:"detail,omitempty"`
	Pointer string `json:"pointer"`
}

// OperationError is one error of an operation, shown as the
// asyncoperationerrors resource "<op>-<chunk>-<n>": Chunk is the chunk's
// number (0: the whole request), N numbers the errors within it from 1.
// Status is an HTTP status; Pointer points into the original request.
type OperationError struct {
	bun.BaseModel `bun:"table:async_operation_errors"`

	OperationID  int64   `bun:"operation_id,pk"`
	Chunk        int     `bun:"chunk,pk"`
	N            int     `bun:"n,pk"`
	Status       int     `bun:"status,notnull"`
	Title        string  `bun:"title,notnull"`
	Detail       *string `bun:"detail"`
	Pointer      *string `bun:"pointer"`
	PropertyPath *string `bun:"property_path"`
}
