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
// paths, a reference to every path of every per-entity document beside it, and
// under tags, after the root's own, each tag a per-entity document declares in
// its top-level tags that the root does not, so that adding an entity is adding
// its file: the root itself keeps only what belongs to no entity (info, servers,
// security, the token path) and the tags of the entities that were there first.
//
// A per-entity document is a .yaml file of the root's folder, other than the
// root, with an `openapi` member (oapi-codegen.yaml has none). A path named by two
// documents, or by the root and a document, is an error; so is a tag two
// per-entity documents both declare.
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
	tags, err := withEntityTags(doc["tags"], files)
	if err != nil {
		return nil, err
	}
	if tags != nil {
		doc["tags"] = tags
	}
	return json.Marshal(doc)
}

// withEntityTags appends to the root's tags those the per-entity documents
// declare and the root does not, in the order of the files (sorted by name).
func withEntityTags(rootTags any, files []entityDocument) (any, error) {
	list, _ := rootTags.([]any)
	owner := map[string]string{}
	for _, t := range list {
		if m, ok := t.(map[string]any); ok {
			name, _ := m["name"].(string)
			owner[name] = "the root"
		}
	}
	for _, file := range files {
		for _, t := range file.tags {
			name, _ := t["name"].(string)
			switch prev := owner[name]; {
			case prev == "the root":
				continue
			case prev != "":
				return nil, fmt.Errorf("tag %q is declared in both %s and %s", name, prev, file.name)
			}
			owner[name] = file.name
			list = append(list, t)
		}
	}
	if list == nil {
		return rootTags, nil
	}
	return list, nil
}

// entityDocument is a per-entity document: its file name, its paths, sorted,
// and the tags it declares.
type entityDocument struct {
	name  string
	paths []string
	tags  []map[string]any
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
			Tags    []map[string]any           `json:"tags"`
		}
		if err := readYAML(filepath.Join(dir, name), &file); err != nil {
			return nil, err
		}
		if file.OpenAPI == "" {
			continue
		}
		doc := entityDocument{name: name, tags: file.Tags}
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
