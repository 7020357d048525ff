package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// A floor must do the service's work: before anything is measured, its
// document is compared with the service's as JSON (key order and spacing
// aside), after the differences that are not work are taken out: the host of
// the links, and on writes the new record's key and times.

// normalization says what to take out of a document before comparing.
type normalization struct {
	replace []string        // old, new pairs applied to every string (hosts, keys in links)
	drop    map[string]bool // members dropped wherever they are (meta request ids, times of writes)
	ids     map[string]bool // values of "id" members replaced by "ID" (the written record's key)
}

// normalize decodes raw and applies n.
func (n normalization) normalize(raw []byte) (any, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("not JSON: %w: %.200s", err, raw)
	}
	r := strings.NewReplacer(n.replace...)
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				switch {
				case n.drop[k]:
					delete(x, k)
				case k == "id" && n.ids[fmt.Sprint(e)]:
					x[k] = "ID"
				default:
					x[k] = walk(e)
				}
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		case string:
			return r.Replace(x)
		}
		return v
	}
	return walk(v), nil
}

// compareDocuments returns "" when service and floor are the same document
// after n, else where they first differ.
func compareDocuments(service, floor []byte, n normalization) (string, error) {
	a, err := n.normalize(service)
	if err != nil {
		return "", fmt.Errorf("service: %w", err)
	}
	b, err := n.normalize(floor)
	if err != nil {
		return "", fmt.Errorf("floor: %w", err)
	}
	return firstDifference(a, b, ""), nil
}

// firstDifference names the first place where a and b differ ("" if nowhere).
func firstDifference(a, b any, path string) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: object against %s", orRoot(path), short(b))
		}
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			xv, xok := x[k]
			yv, yok := y[k]
			switch {
			case !xok:
				return fmt.Sprintf("%s/%s: only in the floor's document (%s)", path, k, short(yv))
			case !yok:
				return fmt.Sprintf("%s/%s: missing from the floor's document (service: %s)", path, k, short(xv))
			}
			if d := firstDifference(xv, yv, path+"/"+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok {
			return fmt.Sprintf("%s: array against %s", orRoot(path), short(b))
		}
		for i := range min(len(x), len(y)) {
			if d := firstDifference(x[i], y[i], fmt.Sprintf("%s/%d", path, i)); d != "" {
				return d
			}
		}
		if len(x) != len(y) {
			return fmt.Sprintf("%s: %d items in the service's document, %d in the floor's", orRoot(path), len(x), len(y))
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("%s: service %s, floor %s", orRoot(path), short(a), short(b))
	}
	return ""
}

func orRoot(path string) string {
	if path == "" {
		return "/"
	}
	return path
}

func short(v any) string {
	raw, _ := json.Marshal(v)
	if len(raw) > 120 {
		return string(raw[:120]) + "..."
	}
	return string(raw)
}
