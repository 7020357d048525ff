// Package batch is the batch pipeline of an application (docs/decisions.md §7): the
// upload of PATCH /api/{type} (request.go), whose body is read as a stream
// and cut into chunks by server/batch/split, staged under an invisible
// operation and, once the body is whole and sound, published and queued, or
// run at once with X-Mode: sync; and the job that runs the queued chunks
// (job.go). The engine (server/engine) checks and writes the items of a
// chunk and renders the answers, storage/jobs keeps the operations, chunks
// and queue, and the HTTP edge (package server) maps the errors Serve
// returns to HTTP.
package batch
