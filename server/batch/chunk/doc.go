// Package chunk checks and writes the chunks of a batch (docs/decisions.md
// §7), for the synchronous request (Run, Reply) and for the job that runs
// the staged chunks of an operation (Check, then Write). Each item is read
// and checked by the engine as a single request's record is (engine.Item,
// engine.Group), outside any transaction; the items with problems, and
// those linked with them, are skipped and their problems recorded in the
// order of docs/decisions.md §7; the others are written by the engine in
// multi-row INSERTs, with the chunk's outcome in the same transaction. The
// upload, the queue and the operations are server/batch's; the staged form
// of a chunk is server/batch/stage's.
package chunk
