package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The write floor: the handler shape of the read floor doing one statement in
// a transaction per request, INSERT ... RETURNING for POST and
// UPDATE ... RETURNING (with the contacts linkage in the same statement) for
// PATCH, and answering the service's document. It reads the JSON:API body
// with encoding/json and checks what the statement needs.

// maxWriteBody bounds a write floor's request body.
const maxWriteBody = 64 << 10

// accountInput is the part of an account document the write floor reads.
type accountInput struct {
	Data struct {
		Type       string `json:"type"`
		ID         string `json:"id"`
		Attributes struct {
			Name       *string `json:"name"`
			ExternalID *string `json:"externalId"`
		} `json:"attributes"`
	} `json:"data"`
}

func readAccount(w http.ResponseWriter, r *http.Request) (accountInput, error) {
	var in accountInput
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxWriteBody)).Decode(&in); err != nil {
		return in, err
	}
	if in.Data.Type != "accounts" || in.Data.Attributes.Name == nil || strings.TrimSpace(*in.Data.Attributes.Name) == "" {
		return in, errors.New("want an account with a name")
	}
	return in, nil
}

// floorClient is the client the event floors' events name: the one whose
// token the bench sends (demo-backoffice).
const floorClient = "demo-backoffice"

// writeFloor answers the write targets. With events (the write + event
// floor) each write also records its change event in its transaction, a
// second statement, as the service's writes record theirs (issue 19).
type writeFloor struct {
	db     *floorDB
	events bool
}

// writeSearchIndex writes, in q's transaction, the full-text index of what
// it wrote, as the service does before it commits: on SQLite the triggers
// only note the records (the service's migration 0019), and this statement
// writes their words; PostgreSQL keeps its index in each statement.
func (f writeFloor) writeSearchIndex(ctx context.Context, q querier) error {
	if f.db.dialect != "sqlite" {
		return nil
	}
	rs, err := q.query(ctx, "writeSearchNotes")
	if err != nil {
		return err
	}
	rs.Close()
	return rs.Err()
}

// recordEvent inserts the change event of account id, in q's transaction.
func (f writeFloor) recordEvent(ctx context.Context, q querier, id int64, action string) error {
	if !f.events {
		return nil
	}
	rs, err := q.query(ctx, "insertEvent", floorOrg, "accounts", strconv.FormatInt(id, 10), action, `["name"]`, `[]`,
		int64(1), floorClient, nil, f.db.timeArg(time.Now()))
	if err != nil {
		return err
	}
	rs.Close()
	return rs.Err()
}

// create answers POST /admin/api/accounts: 201 and the new account.
func (f writeFloor) create(w http.ResponseWriter, r *http.Request) {
	in, err := readAccount(w, r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	var a account
	err = f.db.tx(ctx, func(q querier) error {
		rs, err := q.query(ctx, "insertAccount", floorOrg, *in.Data.Attributes.Name, in.Data.Attributes.ExternalID,
			f.db.timeArg(time.Now()))
		if err != nil {
			return err
		}
		defer rs.Close()
		if !rs.Next() {
			return firstErr(rs.Err(), errors.New("INSERT returned no row"))
		}
		if a, err = scanAccount(rs); err != nil {
			return err
		}
		rs.Close()
		if err := f.writeSearchIndex(ctx, q); err != nil {
			return err
		}
		return f.recordEvent(ctx, q, a.id, "created")
	})
	if err != nil {
		fail(w, err)
		return
	}
	base := apiBase(r)
	res := a.resource(base, []string{}) // a new account has no contacts yet
	w.Header().Set("Location", res.Links.Self)
	writeDocument(w, http.StatusCreated, document{Data: res, Links: pageLinks{Self: base + "/accounts"}})
}

// update answers PATCH /admin/api/accounts/{id}: 200 and the account.
func (f writeFloor) update(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(strings.TrimPrefix(r.URL.Path, "/admin/api/accounts/"), 10, 64)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	in, err := readAccount(w, r)
	if err != nil || in.Data.ID != strconv.FormatInt(id, 10) {
		http.Error(w, "want the account of the path with a name", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	var a account
	var contacts []int64    // PostgreSQL: an array
	var contactList linkIDs // SQLite: a JSON array
	dest := any(&contacts)
	if f.db.dialect == "sqlite" {
		dest = &contactList
	}
	found := false
	err = f.db.tx(ctx, func(q querier) error {
		rs, err := q.query(ctx, "updateAccount", *in.Data.Attributes.Name, f.db.timeArg(time.Now()), id, floorOrg)
		if err != nil {
			return err
		}
		defer rs.Close()
		if !rs.Next() {
			return rs.Err()
		}
		found = true
		if a, err = scanAccount(rs, dest); err != nil {
			return err
		}
		rs.Close()
		if err := f.writeSearchIndex(ctx, q); err != nil {
			return err
		}
		return f.recordEvent(ctx, q, a.id, "updated")
	})
	if err != nil {
		fail(w, err)
		return
	}
	if !found {
		http.NotFound(w, r)
		return
	}
	if f.db.dialect == "sqlite" {
		contacts = contactList.Value
	}
	ids := make([]string, len(contacts))
	for i, c := range contacts {
		ids[i] = strconv.FormatInt(c, 10)
	}
	base := apiBase(r)
	writeDocument(w, http.StatusOK, document{Data: a.resource(base, ids), Links: pageLinks{Self: base + "/accounts"}})
}
