package check

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/entityapi/entityapi/server/problem"
)

var (
	missingProperty     = regexp.MustCompile(`property "([^"]+)" is missing`)
	unsupportedProperty = regexp.MustCompile(`property "([^"]+)" is unsupported`)
)

// Translate turns kin-openapi's validation errors of a request to op (as
// Operation.Check returns them) into problems with Oro's titles and JSON
// pointers (docs/decisions.md §3), worded for a body in JSON:API or in plain
// JSON. kin-openapi's own texts carry schema dumps and are never sent.
func Translate(err error, op *Operation, jsonAPI bool) error {
	var out problem.List
	for _, e := range flattenErrors(err) {
		var re *openapi3filter.RequestError
		if !errors.As(e, &re) {
			out = append(out, problem.MalformedJSON("The request is not valid."))
			continue
		}
		switch {
		case re.Parameter != nil:
			out = append(out, parameterProblem(re, op))
		case re.RequestBody != nil:
			out = append(out, clientIDProblems(bodyProblems(re, jsonAPI), op, jsonAPI)...)
		default:
			out = append(out, problem.MalformedJSON("The request is not valid."))
		}
	}
	if len(out) == 0 {
		return problem.MalformedJSON("The request is not valid.")
	}
	return out
}

func flattenErrors(err error) []error {
	if me, ok := err.(openapi3.MultiError); ok {
		var out []error
		for _, e := range me {
			out = append(out, flattenErrors(e)...)
		}
		return out
	}
	return []error{err}
}

func parameterProblem(re *openapi3filter.RequestError, op *Operation) *problem.Problem {
	name := re.Parameter.Name
	detail := reason(re.Err)
	switch re.Parameter.In {
	case "path":
		if op.intID {
			return problem.BadIdentifier("Expected integer value. Given a value that is not a positive integer.")
		}
		return problem.BadIdentifier("The identifier is not valid: " + detail + ".")
	case "header":
		return problem.HeaderValue(name, detail)
	}
	if name == "sort" {
		return problem.Sort(detail)
	}
	var se *openapi3.SchemaError
	if name == "page[size]" && errors.As(re.Err, &se) && se.SchemaField == "maximum" && se.Schema.Max != nil {
		return problem.PageSizeTooLarge(int(*se.Schema.Max))
	}
	return problem.Filter(name, queryDetail(re.Err, detail))
}

// queryDetail words a query parameter's violation as Oro does (oro-behaviour §4).
func queryDetail(err error, fallback string) string {
	var pe *openapi3filter.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("Expected integer value. Given %q.", fmt.Sprint(pe.Value))
	}
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		switch {
		case se.SchemaField == "minimum" && se.Schema.Min != nil:
			return fmt.Sprintf("The value should be greater than or equals to %v.", *se.Schema.Min)
		case se.SchemaField == "maximum" && se.Schema.Max != nil:
			return fmt.Sprintf("The value should be less than or equals to %v.", *se.Schema.Max)
		case se.SchemaField == "type":
			return fmt.Sprintf("Expected integer value. Given %q.", fmt.Sprint(se.Value))
		}
	}
	return fallback
}

// reason is the short explanation of a validation error, without schema dumps.
func reason(err error) string {
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		return se.Reason
	}
	var pe *openapi3filter.ParseError
	if errors.As(err, &pe) {
		return pe.Reason
	}
	if err == nil {
		return "The value is not valid"
	}
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i > 0 {
		msg = msg[:i]
	}
	return msg
}

// clientIDProblems turns the plain format's "extra field id" of a create
// whose ids the server makes into the 403 a JSON:API document with an id
// gets (problem.ClientIDDenied): the plain create schemas leave id out for
// those resources, so the schema reports it as an unknown field.
func clientIDProblems(ps []*problem.Problem, op *Operation, jsonAPI bool) []*problem.Problem {
	if jsonAPI || op == nil || !op.intID || op.kin.Method != http.MethodPost || strings.Contains(op.kin.Path, "{") {
		return ps
	}
	extraID := problem.ExtraFields("", "id")
	for i, p := range ps {
		if p.Title == extraID.Title && p.Pointer == "" && p.Detail == extraID.Detail {
			ps[i] = problem.ClientIDDenied("/id")
		}
	}
	return ps
}

func bodyProblems(re *openapi3filter.RequestError, jsonAPI bool) []*problem.Problem {
	var pe *openapi3filter.ParseError
	if errors.As(re.Err, &pe) || strings.Contains(re.Reason, "failed to decode") {
		return []*problem.Problem{problem.MalformedJSON("Invalid json message received. " + strings.TrimSuffix(reason(re.Err), ".") + ".")}
	}
	if errors.Is(re.Err, openapi3filter.ErrInvalidRequired) || re.Err == nil && strings.Contains(re.Reason, "required") {
		return []*problem.Problem{problem.RequestData("The request data should not be empty.", "")}
	}
	var out []*problem.Problem
	for _, e := range flattenErrors(re.Err) {
		var se *openapi3.SchemaError
		if !errors.As(e, &se) {
			out = append(out, problem.MalformedJSON("Invalid json message received. "+reason(e)))
			continue
		}
		out = append(out, schemaProblems(se, jsonAPI, "", "/data")...)
	}
	return out
}

// schemaProblems maps one schema violation; allOf/oneOf wrappers are looked
// through so the innermost, most precise violations are reported. root prefixes
// the violation's pointer (the place of a validated item in the body); object is
// where the resource object is, so its attributes can be told from structure.
func schemaProblems(se *openapi3.SchemaError, jsonAPI bool, root, object string) []*problem.Problem {
	if inner := orNullProblems(se, jsonAPI, root, object); len(inner) > 0 {
		return inner
	}
	if se.Origin != nil {
		var inner []*problem.Problem
		for _, e := range flattenErrors(se.Origin) {
			var ise *openapi3.SchemaError
			if errors.As(e, &ise) {
				inner = append(inner, schemaProblems(ise, jsonAPI, root, object)...)
			}
		}
		if len(inner) > 0 {
			return inner
		}
	}
	pointer := root + "/" + strings.Join(se.JSONPointer(), "/")
	if pointer == "/" {
		pointer = ""
	}
	pointer = strings.TrimSuffix(pointer, "/")
	if strings.Contains(pointer, "/meta/") {
		return []*problem.Problem{problem.Constraint("value constraint", "This value should be a boolean or an array of strings.", pointer)}
	}
	field := se.SchemaField
	if unsupportedProperty.MatchString(se.Reason) {
		field = "additionalProperties"
	} else if missingProperty.MatchString(se.Reason) {
		field = "required"
	}
	switch field {
	case "required":
		if m := missingProperty.FindStringSubmatch(se.Reason); m != nil {
			if !strings.HasSuffix(pointer, "/"+m[1]) {
				pointer += "/" + escapePointer(m[1])
			}
		}
		if inFields(pointer, jsonAPI, object) {
			return []*problem.Problem{problem.NotBlank(pointer)}
		}
		return []*problem.Problem{problem.RequestData(fmt.Sprintf("The '%s' property is required.", lastSegment(pointer)), pointer)}
	case "additionalProperties":
		name := ""
		if m := unsupportedProperty.FindStringSubmatch(se.Reason); m != nil {
			name = m[1]
		}
		if strings.HasSuffix(pointer, "/"+name) {
			pointer = strings.TrimSuffix(pointer, "/"+escapePointer(name))
		}
		if pointer == object+"/attributes" || pointer == object+"/relationships" || (!jsonAPI && pointer == "") {
			return []*problem.Problem{problem.ExtraFields(pointer, name)}
		}
		// The pointer names the member refused, a value the request holds
		// (JSON:API 1.1: a pointer MUST name a value that exists), as the
		// batch splitter's does.
		return []*problem.Problem{problem.RequestData(fmt.Sprintf("The '%s' property is not allowed here.", name), pointer+"/"+escapePointer(name))}
	}
	if !inFields(pointer, jsonAPI, object) {
		return []*problem.Problem{problem.RequestData(constraintDetail(se), pointer)}
	}
	return []*problem.Problem{problem.Constraint(constraintTitle(se), constraintDetail(se), pointer)}
}

// orNullProblems reports a value that breaks "X or null" (anyOf: [X, JsonNull], the
// OpenAPI 3.0.3 form of an empty-able to-one relationship) as X's own violations,
// which kin-openapi folds into "doesn't match any schema from anyOf": the value is
// not null, so X is what it was meant to be.
func orNullProblems(se *openapi3.SchemaError, jsonAPI bool, root, object string) []*problem.Problem {
	if se.SchemaField != "anyOf" || se.Value == nil || se.Schema == nil || len(se.Schema.AnyOf) != 2 {
		return nil
	}
	x, null := se.Schema.AnyOf[0].Value, se.Schema.AnyOf[1].Value
	if x == nil || null == nil || !null.Nullable || len(null.Enum) != 1 || null.Enum[0] != nil {
		return nil
	}
	err := x.VisitJSON(se.Value, openapi3.MultiErrors(), openapi3.VisitAsRequest())
	if err == nil {
		return nil
	}
	at := strings.TrimSuffix(root+"/"+strings.Join(se.JSONPointer(), "/"), "/")
	var out []*problem.Problem
	for _, e := range flattenErrors(err) {
		var ise *openapi3.SchemaError
		if errors.As(e, &ise) {
			out = append(out, schemaProblems(ise, jsonAPI, at, object)...)
		}
	}
	return out
}

// inFields tells whether a pointer addresses a field value rather than the
// document's structure.
func inFields(pointer string, jsonAPI bool, object string) bool {
	if !jsonAPI {
		return pointer != ""
	}
	return strings.HasPrefix(pointer, object+"/attributes/") || strings.HasPrefix(pointer, object+"/relationships/")
}

func constraintTitle(se *openapi3.SchemaError) string {
	switch se.SchemaField {
	case "maxLength", "minLength":
		if se.SchemaField == "minLength" && se.Value == "" {
			return "not blank constraint"
		}
		return "length constraint"
	case "enum":
		return "choice constraint"
	case "type", "nullable":
		return "type constraint"
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		return "range constraint"
	case "minItems", "maxItems", "uniqueItems":
		return "count constraint"
	case "pattern":
		return "regex constraint"
	case "format":
		switch se.Schema.Format {
		case "email":
			return "email constraint"
		case "date":
			return "date constraint"
		case "date-time":
			return "date time constraint"
		case "uri":
			return "url constraint"
		}
		return "regex constraint"
	}
	return "form constraint"
}

func constraintDetail(se *openapi3.SchemaError) string {
	s := se.Schema
	switch se.SchemaField {
	case "maxLength":
		if s.MaxLength != nil {
			return fmt.Sprintf("This value is too long. It should have %d characters or less.", *s.MaxLength)
		}
	case "minLength":
		if se.Value == "" {
			return "This value should not be blank."
		}
		return fmt.Sprintf("This value is too short. It should have %d characters or more.", s.MinLength)
	case "enum":
		return "The value you selected is not a valid choice."
	case "type", "nullable":
		if s.Type != nil && len(s.Type.Slice()) > 0 {
			return fmt.Sprintf("This value should be of type %s.", s.Type.Slice()[0])
		}
	case "pattern", "format":
		return "This value is not valid."
	}
	r := strings.TrimSpace(se.Reason)
	if r == "" {
		return "This value is not valid."
	}
	return strings.ToUpper(r[:1]) + r[1:] + "."
}

func lastSegment(pointer string) string {
	return pointer[strings.LastIndexByte(pointer, '/')+1:]
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
