package engine

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/secret"
)

// rule checks and normalizes the values of one resource beyond what its schema can
// say; it runs after the schema check, on the column values about to be written.
type rule func(row, current storage.Row, in *input) []*problem.Problem

// rules are the business rules of each resource type (oro-behaviour §14).
var rules = map[string]rule{
	"taxjurisdictions": zipCodesRule,
	"contacts":         contactInformationRule,
	"users":            passwordRule,
}

// contactInformationRule (oro-behaviour §14.5): a contact keeps at least one of
// first name, last name, emails or phones, whatever an update leaves of it.
func contactInformationRule(row, current storage.Row, in *input) []*problem.Problem {
	for _, col := range []string{"first_name", "last_name", "emails", "phones"} {
		v, changed := row[col]
		if !changed {
			v = current[col]
		}
		if !blank(v) {
			return nil
		}
	}
	return []*problem.Problem{problem.Constraint("has contact information constraint",
		"At least one of the fields First name, Last name, Emails or Phones must be defined.", in.pointer("", ""))}
}

// blank tells whether a stored value says nothing: null, an empty or blank
// string, an empty JSON list or object.
func blank(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(x) == ""
	case json.RawMessage:
		t := strings.TrimSpace(string(x))
		return t == "" || t == "null" || t == "[]" || t == "{}"
	}
	return false
}

// passwordRule stores a user's password only as a bcrypt hash. A batch
// item's password was hashed before the item was staged
// (server/batch/stage): it is stored as it comes, never hashed twice.
func passwordRule(row, _ storage.Row, in *input) []*problem.Problem {
	plain, ok := row["password_hash"].(string)
	if !ok || in.hashed {
		return nil
	}
	hash, p := hashPassword(plain, in.pointer(attributesMember, "password"))
	if p != nil {
		return []*problem.Problem{p}
	}
	row["password_hash"] = hash
	return nil
}

// hashPassword is the one way a password is stored: its bcrypt hash at the
// service's cost (secret.Cost). bcrypt takes at most 72 bytes, which a password of 72
// characters or less can exceed: that is a length constraint at pointer.
func hashPassword(plain, pointer string) (string, *problem.Problem) {
	hash, err := bcrypt.GenerateFromPassword([]byte(plain), secret.Cost())
	if err != nil {
		return "", problem.Constraint("length constraint", "This value is too long. It should have 72 bytes or less.", pointer)
	}
	return string(hash), nil
}

// zipCode is one element of a tax jurisdiction's zipCodes.
type zipCode struct {
	From *string `json:"from"`
	To   *string `json:"to"`
}

// zipCodesRule (oro-behaviour §14.9): a range needs numeric codes whose start is
// not after its end; {"to": "90280"} alone means the single code 90280; every
// element names at least one code. Elements are stored as {"from", "to"}.
func zipCodesRule(row, _ storage.Row, in *input) []*problem.Problem {
	raw, ok := row["zip_codes"].(json.RawMessage)
	if !ok {
		return nil
	}
	var codes []zipCode
	if err := json.Unmarshal(raw, &codes); err != nil {
		return []*problem.Problem{problem.Constraint("type constraint", "This value should be a list of postal codes.", in.pointer(attributesMember, "zipCodes"))}
	}
	var errs []*problem.Problem
	at := func(i int, field string) string {
		return in.pointer(attributesMember, "zipCodes") + fmt.Sprintf("/%d/%s", i, field)
	}
	for i := range codes {
		c := &codes[i]
		switch {
		case c.From == nil && c.To == nil:
			errs = append(errs, problem.NotBlank(at(i, "from")))
		case c.From == nil:
			c.From, c.To = c.To, nil
		case c.To != nil && *c.To == *c.From:
			c.To = nil
		case c.To != nil:
			from, errFrom := strconv.ParseUint(*c.From, 10, 64)
			to, errTo := strconv.ParseUint(*c.To, 10, 64)
			if errFrom != nil || errTo != nil {
				errs = append(errs, problem.Constraint("zip code fields constraint", "Ranges are supported only for numeric postal codes.", at(i, "from")))
			} else if from > to {
				errs = append(errs, problem.Constraint("zip code fields constraint", "The start of a range should not be after its end.", at(i, "from")))
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	normalized, _ := json.Marshal(codes)
	row["zip_codes"] = json.RawMessage(normalized)
	return nil
}
