// Package stage is the staged form of a batch's chunks (docs/decisions.md §7):
// what waits in the database (storage/jobs) between the upload that split a
// body and the job that runs its chunks. Seal hashes every password of a
// split chunk's items before they are staged, so that no plain password is
// ever stored, and keeps the problems of a password that breaks a rule in
// its place; Chunk encodes the items as they are staged and Decode reads
// them back as server/batch/chunk runs them. It checks and writes no record:
// that is server/batch/chunk's, with the engine.
package stage
