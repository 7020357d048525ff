package main

import (
	"encoding/json"
	"fmt"
	"time"
)

// The database floor's documents: the JSON:API shapes the service answers the
// targets with, as plain structs a careful engineer would write for
// encoding/json. Nullable columns are pointers (null when absent).

type document struct {
	Data     any       `json:"data"`
	Included *[]any    `json:"included,omitempty"`
	Links    pageLinks `json:"links"`
}

type pageLinks struct {
	Self string `json:"self"`
	Next string `json:"next,omitempty"`
}

type selfLink struct {
	Self string `json:"self"`
}

type relLinks struct {
	Self    string `json:"self"`
	Related string `json:"related"`
}

type identifier struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// toOne is a to-one relationship: Data is nil (null) or an identifier.
type toOne struct {
	Data  *identifier `json:"data"`
	Links relLinks    `json:"links"`
}

// toMany is a to-many relationship; Data is never nil ([] when empty).
type toMany struct {
	Data  []identifier `json:"data"`
	Links relLinks     `json:"links"`
}

// resource is one record; A and R are its attributes and relationships.
type resource[A, R any] struct {
	Type          string   `json:"type"`
	ID            string   `json:"id"`
	Links         selfLink `json:"links"`
	Attributes    A        `json:"attributes"`
	Relationships R        `json:"relationships"`
}

type countryAttributes struct {
	ISO3Code string `json:"iso3Code"`
	Name     string `json:"name"`
}

type countryRelationships struct {
	Regions toMany `json:"regions"`
}

type regionAttributes struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

type regionRelationships struct {
	Country toOne `json:"country"`
}

type contactAttributes struct {
	Birthday     *string         `json:"birthday"`
	Description  *string         `json:"description"`
	Emails       json.RawMessage `json:"emails"`
	ExternalID   *string         `json:"externalId"`
	FirstName    *string         `json:"firstName"`
	Gender       *string         `json:"gender"`
	JobTitle     *string         `json:"jobTitle"`
	LastName     *string         `json:"lastName"`
	MiddleName   *string         `json:"middleName"`
	NamePrefix   *string         `json:"namePrefix"`
	NameSuffix   *string         `json:"nameSuffix"`
	Phones       json.RawMessage `json:"phones"`
	PrimaryEmail *string         `json:"primaryEmail"`
	PrimaryPhone *string         `json:"primaryPhone"`
	CreatedAt    string          `json:"createdAt"`
	UpdatedAt    string          `json:"updatedAt"`
}

type contactRelationships struct {
	Accounts     toMany `json:"accounts"`
	AssignedTo   toOne  `json:"assignedTo"`
	Organization toOne  `json:"organization"`
	Owner        toOne  `json:"owner"`
	ReportsTo    toOne  `json:"reportsTo"`
}

type accountAttributes struct {
	ExternalID *string `json:"externalId"`
	Name       string  `json:"name"`
	CreatedAt  string  `json:"createdAt"`
	UpdatedAt  string  `json:"updatedAt"`
}

type accountRelationships struct {
	Contacts       toMany `json:"contacts"`
	DefaultContact toOne  `json:"defaultContact"`
	Organization   toOne  `json:"organization"`
	Owner          toOne  `json:"owner"`
	ReferredBy     toOne  `json:"referredBy"`
}

type userAttributes struct {
	Birthday   *string         `json:"birthday"`
	Email      string          `json:"email"`
	Emails     json.RawMessage `json:"emails"`
	Enabled    bool            `json:"enabled"`
	ExternalID *string         `json:"externalId"`
	FirstName  string          `json:"firstName"`
	GoogleID   *string         `json:"googleId"`
	LastLogin  *string         `json:"lastLogin"`
	LastName   string          `json:"lastName"`
	LoginCount int64           `json:"loginCount"`
	MiddleName *string         `json:"middleName"`
	NamePrefix *string         `json:"namePrefix"`
	NameSuffix *string         `json:"nameSuffix"`
	Phone      *string         `json:"phone"`
	Title      *string         `json:"title"`
	Username   string          `json:"username"`
	CreatedAt  string          `json:"createdAt"`
	UpdatedAt  string          `json:"updatedAt"`
}

type userRelationships struct {
	Organization toOne  `json:"organization"`
	Owner        toOne  `json:"owner"`
	UserRoles    toMany `json:"userRoles"`
}

// links of a relationship rel of the record at self.
func relationshipLinks(self, rel string) relLinks {
	return relLinks{Self: self + "/relationships/" + rel, Related: self + "/" + rel}
}

// one is a to-one relationship to typ id (nil: null).
func one(self, rel, typ string, id *string) toOne {
	r := toOne{Links: relationshipLinks(self, rel)}
	if id != nil {
		r.Data = &identifier{Type: typ, ID: *id}
	}
	return r
}

// many is a to-many relationship to the records of typ with these ids.
func many(self, rel, typ string, ids []string) toMany {
	data := make([]identifier, len(ids))
	for i, id := range ids {
		data[i] = identifier{Type: typ, ID: id}
	}
	return toMany{Data: data, Links: relationshipLinks(self, rel)}
}

// apiTime is how the service writes a point in time.
func apiTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// sqliteTimeLayout is the text form of times the service stores on SQLite.
const sqliteTimeLayout = "2006-01-02 15:04:05.999999999"

// timeText scans a timestamp column (time.Time from pgx, text or time.Time
// from SQLite) into the service's form; a NULL leaves Value nil.
type timeText struct{ Value *string }

func (t *timeText) Scan(v any) error {
	if v == nil {
		t.Value = nil
		return nil
	}
	tm, err := parseDBTime(v, sqliteTimeLayout)
	if err != nil {
		return err
	}
	s := apiTime(tm)
	t.Value = &s
	return nil
}

// dateText scans a date column into YYYY-MM-DD; a NULL leaves Value nil.
type dateText struct{ Value *string }

func (d *dateText) Scan(v any) error {
	if v == nil {
		d.Value = nil
		return nil
	}
	tm, err := parseDBTime(v, time.DateOnly)
	if err != nil {
		return err
	}
	s := tm.Format(time.DateOnly)
	d.Value = &s
	return nil
}

func parseDBTime(v any, layout string) (time.Time, error) {
	switch x := v.(type) {
	case time.Time:
		return x, nil
	case string:
		return parseTimeText(x, layout)
	case []byte:
		return parseTimeText(string(x), layout)
	}
	return time.Time{}, fmt.Errorf("a time column holds %T", v)
}

func parseTimeText(s, layout string) (time.Time, error) {
	for _, l := range []string{layout, sqliteTimeLayout, time.RFC3339Nano, time.DateOnly} {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("time %q: not in a known layout", s)
}

// rawJSON scans a JSON column as it is stored (NULL: null).
type rawJSON struct{ Value json.RawMessage }

func (j *rawJSON) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		j.Value = nil
	case []byte:
		j.Value = append(json.RawMessage(nil), x...)
	case string:
		j.Value = json.RawMessage(x)
	default:
		raw, err := json.Marshal(x)
		if err != nil {
			return err
		}
		j.Value = raw
	}
	return nil
}
