package main

// The repository's licence: the OpenAPI documents promise Apache-2.0, so the
// text is at the root, and NOTICE names every third-party part shipped here.

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/entityapi/entityapi/openapi"
)

func TestLicenseFiles(t *testing.T) {
	license, err := os.ReadFile("LICENSE")
	if err != nil {
		t.Fatalf("no LICENSE at the root: %v", err)
	}
	// swagger-ui-dist ships the Apache License 2.0 verbatim: the same text.
	apache, err := os.ReadFile("server/docs/swagger-ui/LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(license, apache) || !bytes.Contains(license, []byte("Version 2.0, January 2004")) {
		t.Error("LICENSE is not the Apache License 2.0 text")
	}
	for name, raw := range map[string][]byte{"backoffice": openapi.Backoffice, "storefront": openapi.Storefront} {
		var doc struct {
			Info struct {
				License struct{ Name string } `yaml:"license"`
			} `yaml:"info"`
		}
		if err := yaml.Unmarshal(raw, &doc); err != nil || doc.Info.License.Name != "Apache-2.0" {
			t.Errorf("%s document: licence %q (%v), LICENSE holds Apache-2.0", name, doc.Info.License.Name, err)
		}
	}
	notice, err := os.ReadFile("NOTICE")
	if err != nil {
		t.Fatalf("no NOTICE at the root: %v", err)
	}
	// Each directory of others' files, and the licence NOTICE must name for it.
	for dir, licence := range map[string]string{
		"storage/isodata":         "LGPL-2.1",
		"server/docs/swagger-ui":  "Apache License, Version 2.0",
		"server/testdata/jsonapi": "CC0 1.0",
	} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s: %v", dir, err)
		}
		i := strings.Index(string(notice), dir)
		if i < 0 {
			t.Errorf("NOTICE does not name %s", dir)
			continue
		}
		// The licence is named in the same paragraph.
		para := string(notice)[strings.LastIndex(string(notice[:i]), "\n\n")+1:]
		if end := strings.Index(para[1:], "\n\n"); end >= 0 {
			para = para[:end+1]
		}
		if !strings.Contains(strings.Join(strings.Fields(para), " "), licence) {
			t.Errorf("NOTICE names %s without its licence %q", dir, licence)
		}
	}
}
