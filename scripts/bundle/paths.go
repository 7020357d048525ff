package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/oasdiff/yaml"
)

// rootWithEntityPaths returns the root document of an application with, under
// paths, a reference to every path of every per-entity document beside it, so
// that adding an entity is adding its file: the root itself keeps only what
// belongs to no entity (info, servers, security, tags, the token path).
//
// A per-entity document is a .yaml file of the root's folder, other than the
// root, with an `openapi` member (oapi-codegen.yaml has none). A path named by two
// documents, or by the root and a document, is an error.
func rootWithEntityPaths(root string) ([]byte, error) {
	var doc map[string]any
	if err := readYAML(root, &doc); err != nil {
		return nil, err
	}
	paths, _ := doc["paths"].(map[string]any)
	if paths == nil {
		paths = map[string]any{}
	}
	owner := map[string]string{}
	for p := range paths {
		owner[p] = filepath.Base(root)
	}
	files, err := entityDocuments(root)
	if err != nil {
		return nil, err
	}
	for _, file := range files {
		for _, p := range file.paths {
			if prev, dup := owner[p]; dup {
				return nil, fmt.Errorf("path %s is in both %s and %s", p, prev, file.name)
			}
			owner[p] = file.name
			paths[p] = map[string]any{"$ref": file.name + "#/paths/" + pointerToken(p)}
		}
	}
	doc["paths"] = paths
	return json.Marshal(doc)
}

// entityDocument is a per-entity document: its file name and its paths, sorted.
type entityDocument struct {
	name  string
	paths []string
}

// entityDocuments reads the per-entity documents in the folder of root.
func entityDocuments(root string) ([]entityDocument, error) {
	dir := filepath.Dir(root)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var docs []entityDocument
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || filepath.Ext(name) != ".yaml" || name == filepath.Base(root) {
			continue
		}
		var file struct {
			OpenAPI string                     `json:"openapi"`
			Paths   map[string]json.RawMessage `json:"paths"`
		}
		if err := readYAML(filepath.Join(dir, name), &file); err != nil {
			return nil, err
		}
		if file.OpenAPI == "" {
			continue
		}
		doc := entityDocument{name: name}
		for p := range file.Paths {
			doc.paths = append(doc.paths, p)
		}
		sort.Strings(doc.paths)
		docs = append(docs, doc)
	}
	return docs, nil
}

func readYAML(file string, v any) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	j, err := yaml.YAMLToJSON(raw)
	if err == nil {
		err = json.Unmarshal(j, v)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// pointerToken escapes a path as one JSON Pointer token (RFC 6901): /api/x is
// ~1api~1x.
func pointerToken(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
