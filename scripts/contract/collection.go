package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// postmanItem is a folder or a request of a Postman collection (v2.1), as
// Portman writes it.
type postmanItem struct {
	Name    string        `json:"name"`
	Item    []postmanItem `json:"item"`
	Request *struct {
		Method string `json:"method"`
		URL    struct {
			Path []string `json:"path"`
		} `json:"url"`
	} `json:"request"`
	Event []struct {
		Listen string `json:"listen"`
		Script struct {
			Exec []string `json:"exec"`
		} `json:"script"`
	} `json:"event"`
}

// uncheckedSchema is how Portman's test script says it left a response's
// schema unchecked: "Response Validation - Disabled due to Invalid JSON
// Schema" (or "... Circular Reference", which it concludes from the text
// "$ref" anywhere in the schema, descriptions included).
const uncheckedSchema = "Response Validation - Disabled"

// checkCollection holds Portman's collection to what a contract run needs:
// every request has its tests, and none of them leaves the response's schema
// unchecked. Portman only logs a schema it cannot check, and newman then
// passes whatever the answer holds.
func checkCollection(raw []byte) error {
	var c struct {
		Item []postmanItem `json:"item"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return fmt.Errorf("not a Postman collection: %w", err)
	}
	var problems []string
	requests := 0
	var walk func(items []postmanItem)
	walk = func(items []postmanItem) {
		for _, it := range items {
			if it.Request == nil {
				walk(it.Item)
				continue
			}
			requests++
			name := it.Request.Method + " /" + strings.Join(it.Request.URL.Path, "/")
			var script strings.Builder
			for _, e := range it.Event {
				if e.Listen == "test" {
					script.WriteString(strings.Join(e.Script.Exec, "\n"))
				}
			}
			switch s := script.String(); {
			case s == "":
				problems = append(problems, name+": no tests")
			case strings.Contains(s, uncheckedSchema):
				line := s[strings.Index(s, uncheckedSchema):]
				line, _, _ = strings.Cut(line, "\n")
				problems = append(problems, name+": "+line)
			}
		}
	}
	walk(c.Item)
	if requests == 0 {
		return errors.New("no requests")
	}
	if len(problems) > 0 {
		return fmt.Errorf("Portman left %d of %d requests short of their contract tests:\n  %s",
			len(problems), requests, strings.Join(problems, "\n  "))
	}
	return nil
}
