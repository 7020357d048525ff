package server

import (
	"context"
	"fmt"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// loadedDocuments holds each OpenAPI document this process has loaded and
// validated, keyed by its text. The documents are embedded in the binary and
// nothing changes a loaded one (serveDocument changes a copy), so every
// server of the process can share it: a process that builds many servers
// (the tests build one per test and database) parses each document once
// instead of spending most of a server's start in the YAML parser.
var loadedDocuments sync.Map // string(raw) -> *loadedDocument

// loadedDocument is one document, loaded once.
type loadedDocument struct {
	once sync.Once
	doc  *openapi3.T
	err  error
}

// loadDocument returns the validated document of raw, loading it on first use.
func loadDocument(raw []byte) (*openapi3.T, error) {
	v, _ := loadedDocuments.LoadOrStore(string(raw), &loadedDocument{})
	ld := v.(*loadedDocument)
	ld.once.Do(func() {
		doc, err := openapi3.NewLoader().LoadFromData(raw)
		if err != nil {
			ld.err = fmt.Errorf("load document: %w", err)
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			ld.err = fmt.Errorf("document: %w", err)
			return
		}
		ld.doc = doc
	})
	return ld.doc, ld.err
}
