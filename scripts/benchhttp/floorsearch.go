package main

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
)

// The database floor of the search target (issue 32): GET /admin/api/search
// with one word and page[size], answered by the statement the service sends
// (the four searchable tables' ranked matches, UNION ALL, most relevant
// first) prepared, then the titles of the page's records read by key (the
// contacts: the word is a last name) and the document written with
// encoding/json.

// searchTables are the searchable tables, in the order the service unites them.
var searchTables = []string{"accounts", "businessunits", "contacts", "users"}

// searchStatement is the floor's text of the search: $1 the query in the
// database's syntax, $2 the organization, $3 the page's LIMIT.
func searchStatement(dialect string) string {
	parts := make([]string, len(searchTables))
	for i, t := range searchTables {
		if dialect == "postgres" {
			parts[i] = "SELECT CAST('" + t + "' AS TEXT) AS entity, id AS k, ts_rank(search_vector, to_tsquery('simple', $1)) AS score " +
				"FROM " + t + " WHERE organization_id = $2 AND search_vector @@ to_tsquery('simple', $1)"
			continue
		}
		parts[i] = "SELECT CAST('" + t + "' AS TEXT) AS entity, r.id AS k, -bm25(" + t + "_search) AS score FROM " + t + "_search " +
			"JOIN " + t + " AS r ON r.id = " + t + "_search.rowid WHERE " + t + "_search MATCH $1 AND r.organization_id = $2"
	}
	return "SELECT entity, k, score FROM (" + strings.Join(parts, " UNION ALL ") + ") AS hits ORDER BY score DESC, entity, k LIMIT $3"
}

// searchResult is one result of the search document.
type searchResult struct {
	Type          string              `json:"type"`
	ID            string              `json:"id"`
	Attributes    searchAttributes    `json:"attributes"`
	Relationships searchRelationships `json:"relationships"`
	Meta          searchMeta          `json:"meta"`
}

type searchAttributes struct {
	Entity string `json:"entity"`
	Title  string `json:"title"`
}

type searchRelationships struct {
	Entity struct {
		Data identifier `json:"data"`
	} `json:"entity"`
}

type searchMeta struct {
	Score float64 `json:"score"`
}

// search answers the search target. The word goes to the database in its
// syntax, as the service writes one word: ('word') for to_tsquery, ("word")
// for FTS5.
func (f readFloor) search(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	size := pageSize(q)
	word := strings.ToLower(q.Get("filter[searchText]"))
	query := "('" + word + "')"
	if f.db.dialect == "sqlite" {
		query = `("` + word + `")`
	}
	rs, err := f.db.query(ctx, "search", query, floorOrg, size+1)
	if err != nil {
		fail(w, err)
		return
	}
	type hit struct {
		entity string
		key    int64
		score  float64
	}
	var hits []hit
	more := false
	for rs.Next() {
		if len(hits) == size {
			more = true
			break
		}
		var h hit
		if err = rs.Scan(&h.entity, &h.key, &h.score); err != nil {
			break
		}
		hits = append(hits, h)
	}
	rs.Close()
	if err != nil || rs.Err() != nil {
		fail(w, firstErr(err, rs.Err()))
		return
	}
	var ids []int64
	for _, h := range hits {
		if h.entity != "contacts" {
			fail(w, errNotContact)
			return
		}
		ids = append(ids, h.key)
	}
	titles := make(map[int64]string, len(ids))
	if len(ids) > 0 {
		crs, err := f.db.query(ctx, "contactTitles", floorOrg, f.db.ids(ids))
		if err != nil {
			fail(w, err)
			return
		}
		for crs.Next() {
			var id int64
			var first, last *string
			if err := crs.Scan(&id, &first, &last); err != nil {
				crs.Close()
				fail(w, err)
				return
			}
			var parts []string
			for _, p := range []*string{first, last} {
				if p != nil && *p != "" {
					parts = append(parts, *p)
				}
			}
			titles[id] = strings.Join(parts, " ")
		}
		crs.Close()
		if err := crs.Err(); err != nil {
			fail(w, err)
			return
		}
	}
	data := make([]searchResult, len(hits))
	for i, h := range hits {
		id := strconv.FormatInt(h.key, 10)
		data[i] = searchResult{Type: "search", ID: h.entity + "-" + id, Attributes: searchAttributes{Entity: h.entity, Title: titles[h.key]},
			Meta: searchMeta{Score: h.score}}
		data[i].Relationships.Entity.Data = identifier{Type: h.entity, ID: id}
	}
	doc := document{Data: data, Links: pageLinks{Self: apiBase(r) + "/search"}}
	if more {
		doc.Links.Next = nextLink(r, q)
	}
	writeDocument(w, http.StatusOK, doc)
}

// errNotContact: the search target's word names contacts only (seed.go's
// last names); a hit of another type means the seed changed under the floor.
var errNotContact = errors.New("the search found a record that is not a contact: the floor reads contacts only")
