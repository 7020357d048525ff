// Package addentity holds the test of the "Adding an entity" guide in
// ARCHITECTURE.md: it follows the guide's steps in a scratch copy of the
// repository and proves the new entity is served, so that the guide and the code
// cannot drift apart unnoticed. It has no code of its own.
package addentity
