package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The database floor of each read target: the queries the service runs for
// it, prepared, and a document of the same shape. No authentication; the
// organization is the demo administrator's (1). Each handler serves its own
// target (page 1 of the list it names), not the whole API.

const floorOrg = 1

// mainOrg is the organization linkage of every record the floors read.
var mainOrg = "1"

// readFloor answers one read target from the database.
type readFloor struct{ db *floorDB }

// apiBase is the base of the links, from the request as the service does.
func apiBase(r *http.Request) string { return "http://" + r.Host + "/admin/api" }

// writeDocument encodes doc with encoding/json and sends it with status.
func writeDocument(w http.ResponseWriter, status int, doc any) {
	raw, err := json.Marshal(doc)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", jsonAPI)
	w.Header().Set("Content-Length", strconv.Itoa(len(raw)))
	w.WriteHeader(status)
	_, _ = w.Write(raw)
}

func fail(w http.ResponseWriter, err error) {
	http.Error(w, err.Error(), http.StatusInternalServerError)
}

// pageSize reads page[size] (default 10).
func pageSize(q url.Values) int {
	if n, err := strconv.Atoi(q.Get("page[size]")); err == nil && n > 0 {
		return n
	}
	return 10
}

// nextLink is the link to page 2 of the list at r.
func nextLink(r *http.Request, q url.Values) string {
	next := url.Values{}
	for k, v := range q {
		next[k] = v
	}
	next.Set("page[number]", "2")
	return apiBase(r) + r.URL.Path[len("/admin/api"):] + "?" + next.Encode()
}

// country answers GET /admin/api/countries/{code}: the country and the codes
// of its regions (two queries, as the service).
func (f readFloor) country(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	code := strings.TrimPrefix(r.URL.Path, "/admin/api/countries/")
	rs, err := f.db.query(ctx, "country", code)
	if err != nil {
		fail(w, err)
		return
	}
	var a countryAttributes
	found := false
	for rs.Next() {
		found = true
		err = rs.Scan(&code, &a.ISO3Code, &a.Name)
	}
	rs.Close()
	if err != nil || rs.Err() != nil {
		fail(w, firstErr(err, rs.Err()))
		return
	}
	if !found {
		http.NotFound(w, r)
		return
	}
	regions, err := f.strings(ctx, "countryRegions", code)
	if err != nil {
		fail(w, err)
		return
	}
	base := apiBase(r)
	self := base + "/countries/" + code
	writeDocument(w, http.StatusOK, document{
		Data: resource[countryAttributes, countryRelationships]{Type: "countries", ID: code, Links: selfLink{self}, Attributes: a,
			Relationships: countryRelationships{Regions: many(self, "regions", "regions", regions)}},
		Links: pageLinks{Self: base + "/countries"},
	})
}

// strings runs a one-column query.
func (f readFloor) strings(ctx context.Context, name string, args ...any) ([]string, error) {
	rs, err := f.db.query(ctx, name, args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	out := []string{}
	for rs.Next() {
		var s string
		if err := rs.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rs.Err()
}

// regions answers GET /admin/api/regions?page[size]=N (one query).
func (f readFloor) regions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	size := pageSize(q)
	rs, err := f.db.query(r.Context(), "regionsPage", size+1)
	if err != nil {
		fail(w, err)
		return
	}
	base := apiBase(r)
	data := make([]resource[regionAttributes, regionRelationships], 0, size)
	more := false
	for rs.Next() {
		if len(data) == size {
			more = true
			break
		}
		var code, country string
		var a regionAttributes
		if err = rs.Scan(&code, &country, &a.Code, &a.Name); err != nil {
			break
		}
		self := base + "/regions/" + code
		data = append(data, resource[regionAttributes, regionRelationships]{Type: "regions", ID: code, Links: selfLink{self},
			Attributes: a, Relationships: regionRelationships{Country: one(self, "country", "countries", &country)}})
	}
	rs.Close()
	if err != nil || rs.Err() != nil {
		fail(w, firstErr(err, rs.Err()))
		return
	}
	doc := document{Data: data, Links: pageLinks{Self: base + "/regions"}}
	if more {
		doc.Links.Next = nextLink(r, q)
	}
	writeDocument(w, http.StatusOK, doc)
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// contact is a contacts row.
type contact struct {
	id                        int64
	a                         contactAttributes
	owner, assigned, reportTo sql.NullInt64
}

func scanContact(rs rows) (contact, error) {
	var c contact
	var birthday dateText
	var emails, phones rawJSON
	var created, updated timeText
	err := rs.Scan(&c.id, &c.a.NamePrefix, &c.a.FirstName, &c.a.MiddleName, &c.a.LastName, &c.a.NameSuffix, &c.a.Gender,
		&birthday, &c.a.Description, &c.a.JobTitle, &emails, &phones, &c.a.PrimaryEmail, &c.a.PrimaryPhone, &c.a.ExternalID,
		&c.owner, &c.assigned, &c.reportTo, &created, &updated)
	c.a.Birthday, c.a.Emails, c.a.Phones = birthday.Value, emails.Value, phones.Value
	if created.Value != nil && updated.Value != nil {
		c.a.CreatedAt, c.a.UpdatedAt = *created.Value, *updated.Value
	}
	return c, err
}

// contactsFiltered answers GET /admin/api/contacts with
// filter[lastName][starts_with], sort=-createdAt,lastName and page[size]:
// the page and the accounts linkage (two queries, as the service).
func (f readFloor) contactsFiltered(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	size := pageSize(q)
	prefix := likeEscaper.Replace(q.Get("filter[lastName][starts_with]")) + "%"
	f.contacts(w, r, q, size, false, "contactsStartingWith", floorOrg, prefix, size+1)
}

// contactsByOwner answers GET /admin/api/contacts?filter[owner.username]=U&
// page[size]=N: the page, found through the owner's username in one
// statement, and its accounts linkage (two queries, as the service).
func (f readFloor) contactsByOwner(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	size := pageSize(q)
	f.contacts(w, r, q, size, false, "contactsOwnedBy", floorOrg, floorOrg, q.Get("filter[owner.username]"), size+1)
}

// likeEscaper escapes LIKE's wildcards with the ESCAPE character '!'.
var likeEscaper = strings.NewReplacer("!", "!!", "%", "!%", "_", "!_")

// contactsIncluded answers GET /admin/api/contacts?include=accounts,owner&
// page[size]=N: the page, its accounts linkage, the accounts and their
// contacts linkage, the owners and their roles (six queries, as the service).
func (f readFloor) contactsIncluded(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	size := pageSize(q)
	f.contacts(w, r, q, size, true, "contactsPage", floorOrg, size+1)
}

func (f readFloor) contacts(w http.ResponseWriter, r *http.Request, q url.Values, size int, include bool, stmt string, args ...any) {
	ctx := r.Context()
	rs, err := f.db.query(ctx, stmt, args...)
	if err != nil {
		fail(w, err)
		return
	}
	page := make([]contact, 0, size)
	more := false
	for rs.Next() {
		if len(page) == size {
			more = true
			break
		}
		var c contact
		if c, err = scanContact(rs); err != nil {
			break
		}
		page = append(page, c)
	}
	rs.Close()
	if err != nil || rs.Err() != nil {
		fail(w, firstErr(err, rs.Err()))
		return
	}
	ids := make([]int64, len(page))
	for i, c := range page {
		ids[i] = c.id
	}
	accountsOf, err := f.links(ctx, "accountsOfContacts", ids)
	if err != nil {
		fail(w, err)
		return
	}
	base := apiBase(r)
	data := make([]resource[contactAttributes, contactRelationships], len(page))
	for i, c := range page {
		id := strconv.FormatInt(c.id, 10)
		self := base + "/contacts/" + id
		data[i] = resource[contactAttributes, contactRelationships]{Type: "contacts", ID: id, Links: selfLink{self},
			Attributes: c.a, Relationships: contactRelationships{
				Accounts:     many(self, "accounts", "accounts", accountsOf[c.id]),
				AssignedTo:   one(self, "assignedTo", "users", idText(c.assigned)),
				Organization: one(self, "organization", "organizations", &mainOrg),
				Owner:        one(self, "owner", "users", idText(c.owner)),
				ReportsTo:    one(self, "reportsTo", "contacts", idText(c.reportTo)),
			}}
	}
	doc := document{Data: data, Links: pageLinks{Self: base + "/contacts"}}
	if more {
		doc.Links.Next = nextLink(r, q)
	}
	if include {
		included, err := f.included(ctx, base, page, accountsOf)
		if err != nil {
			fail(w, err)
			return
		}
		doc.Included = &included
	}
	writeDocument(w, http.StatusOK, doc)
}

func idText(id sql.NullInt64) *string {
	if !id.Valid {
		return nil
	}
	s := strconv.FormatInt(id.Int64, 10)
	return &s
}

// links runs a linkage query (owner key, linked key) and groups the linked
// keys, as text, by owner.
func (f readFloor) links(ctx context.Context, stmt string, ids []int64) (map[int64][]string, error) {
	out := make(map[int64][]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rs, err := f.db.query(ctx, stmt, f.db.ids(ids))
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	for rs.Next() {
		var from int64
		var to keyText
		if err := rs.Scan(&from, &to); err != nil {
			return nil, err
		}
		out[from] = append(out[from], to.Value)
	}
	return out, rs.Err()
}

// keyText scans a key column (an integer or a text) as text.
type keyText struct{ Value string }

func (k *keyText) Scan(v any) error {
	switch x := v.(type) {
	case int64:
		k.Value = strconv.FormatInt(x, 10)
	case string:
		k.Value = x
	case []byte:
		k.Value = string(x)
	default:
		return fmt.Errorf("a key of %T", v)
	}
	return nil
}
