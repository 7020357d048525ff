// Package batch is the batch pipeline of an application (docs/decisions.md §7): the
// upload of PATCH /api/{type} (request.go), whose body is read as a stream
// and cut into chunks by server/batch/split, staged under an invisible
// operation (server/batch/stage: passwords hashed) and, once the body is
// whole and sound, published and queued, or run at once with X-Mode: sync
// (sync.go); the job that runs the queued chunks (job.go); and the
// asyncoperations resource (operations.go). server/batch/chunk checks and
// writes the items of a chunk with the engine (engine.Bulk), storage/jobs
// keeps the operations, chunks and queue, and the HTTP edge (package
// server) maps the errors Serve returns to HTTP.
package batch
