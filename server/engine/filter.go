package engine

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// maxFilterValue bounds one value of a filter (each comma-separated part where
// commas separate values), in characters, the same on both databases: no field
// holds more than 255, and SQLite refuses a LIKE pattern beyond 50,000 bytes
// ("LIKE or GLOB pattern too complex") where PostgreSQL would answer. The
// documents and docs/queries.md state it.
const maxFilterValue = 1000

// checkLength refuses a filter value longer than maxFilterValue.
func checkLength(key, value string) *problem.Problem {
	if utf8.RuneCountInString(value) > maxFilterValue {
		return problem.Filter(key, fmt.Sprintf("This value is too long. It should have %d characters or less.", maxFilterValue))
	}
	return nil
}

var filterKey = regexp.MustCompile(`^filter\[([A-Za-z0-9_.\-]+)\](?:\[([a-z_]+)\])?$`)

// filterField is what a filter name resolves to.
type filterField struct {
	column string
	via    *storage.Via  // to-many relationships: the related records are tested
	path   []storage.Hop // a field of related records (filter[owner.username]): column is theirs
	typ    resource.FieldType
	ops    []string
	list   bool
}

func (e *Engine) resolveFilter(cl *call, res *resource.Resource, name, lang string) (filterField, bool) {
	if path, ok := res.Path(name); ok {
		hops, ok := e.pathHops(cl, path)
		if !ok {
			return filterField{}, false
		}
		a := path.Field
		return filterField{column: a.ColumnIn(lang), path: hops, typ: a.Type, ops: a.Filter, list: true}, true
	}
	if name == "id" {
		return filterField{column: res.IDColumn, typ: idType(res), ops: res.IDOps, list: true}, true
	}
	if a, ok := res.Attribute(name); ok && len(a.Filter) > 0 {
		return filterField{column: a.ColumnIn(lang), typ: a.Type, ops: a.Filter, list: true}, true
	}
	rel, ok := res.Relationship(name)
	if !ok || len(rel.Filter) == 0 {
		return filterField{}, false
	}
	target, _ := e.reg.Get(rel.Target)
	f := filterField{column: rel.Column, typ: idType(target), ops: rel.Filter, list: true}
	switch {
	case rel.Through != nil:
		f.via = &storage.Via{Table: rel.Through.Table, Column: rel.Through.Column, Target: rel.Through.Target}
	case rel.ToMany:
		back, _ := target.Relationship(rel.Inverse)
		f.via = &storage.Via{Table: e.table(target).Name, Column: back.Column, Target: target.IDColumn}
	}
	return f, true
}

// pathHops is how storage follows a declared path for the caller of cl: each
// relationship's link, the related table, and what limits the related
// records to those the caller may see besides the organization (the
// organization itself when the path reaches it, the records a type is
// limited to). False when a resource on the way, or the field it ends at,
// is one the caller may not read: the path is then unknown to the caller,
// answered as any unknown filter or sort is, so that nothing tells whether
// a hidden record or value matched.
func (e *Engine) pathHops(cl *call, path *resource.Path) ([]storage.Hop, bool) {
	if !path.Field.ReadableBy(cl.roles) {
		return nil, false
	}
	hops := make([]storage.Hop, len(path.Hops))
	for i, rel := range path.Hops {
		target := path.Targets[i]
		if len(target.Readers) > 0 && !allowed(cl.roles, target, viewAction) {
			return nil, false
		}
		h := storage.Hop{To: e.table(target)}
		switch {
		case rel.Through != nil:
			h.Through = &storage.Via{Table: rel.Through.Table, Column: rel.Through.Column, Target: rel.Through.Target}
		case rel.ToMany:
			back, _ := target.Relationship(rel.Inverse)
			h.Back = back.Column
		default:
			h.Column = rel.Column
		}
		if target.Self {
			h.Where = append(h.Where, storage.Cond{Column: target.IDColumn, Op: storage.Eq, Values: []any{cl.org}})
		}
		if only, ok := e.only[target.Type]; ok {
			h.Where = append(h.Where, storage.Cond{Column: target.IDColumn, Op: storage.Eq, Values: only})
		}
		hops[i] = h
	}
	return hops, true
}

// viaOps are the operators on to-many relationships (oro-behaviour §2.2): eq has
// any of the values, neq none of them, contains all of them.
var viaOps = map[string]storage.Op{
	"eq": storage.Eq, "neq": storage.Neq, "neq_or_null": storage.NeqOrNull,
	"contains": storage.Contains, "not_contains": storage.NotContains,
}

func idType(res *resource.Resource) resource.FieldType {
	if res.IntID {
		return resource.Integer
	}
	return resource.String
}

// parseFilter turns filter[field] or filter[field][op] into one condition
// (oro-behaviour §2): commas separate values, a..b is a range.
func (e *Engine) parseFilter(cl *call, res *resource.Resource, key, raw, lang string) (storage.Cond, error) {
	m := filterKey.FindStringSubmatch(key)
	if m == nil {
		return storage.Cond{}, problem.Filter(key, "The filter is not supported.")
	}
	if m[1] == "searchText" && len(res.Search) > 0 {
		if m[2] != "" && m[2] != "eq" {
			return storage.Cond{}, problem.Filter(key, fmt.Sprintf("The operator %q is not supported.", m[2]))
		}
		q, p := parseSearchText(key, raw)
		if p != nil {
			return storage.Cond{}, p
		}
		q.Lang = lang
		if res.SearchOpen { // the caller may not read every searched field
			q.Open = []string{e.table(res).Name}
		}
		return storage.Cond{Op: storage.Match, Values: []any{q}}, nil
	}
	field, ok := e.resolveFilter(cl, res, m[1], lang)
	if !ok {
		return storage.Cond{}, problem.Filter(key, "The filter is not supported.")
	}
	op := m[2]
	if op == "" {
		op = "eq"
	}
	if !slices.Contains(field.ops, op) {
		return storage.Cond{}, problem.Filter(key, fmt.Sprintf("The operator %q is not supported.", op))
	}
	cond := storage.Cond{Column: field.column, Via: field.via, Path: field.path}
	if field.via != nil {
		cond.Column = ""
	}
	if op == "exists" || op == "empty" {
		b, ok := parseBool(raw)
		if !ok {
			return cond, problem.Filter(key, fmt.Sprintf("Expected boolean value. Given %q.", raw))
		}
		cond.Op = map[[2]bool]storage.Op{
			{true, true}: storage.Exists, {true, false}: storage.NotExists,
			{false, true}: storage.Empty, {false, false}: storage.NotEmpty,
		}[[2]bool{op == "exists", b}]
		return cond, nil
	}
	if field.via != nil {
		var values []any
		for _, part := range strings.Split(raw, ",") {
			if p := checkLength(key, part); p != nil {
				return cond, p
			}
			v, err := parseFilterValue(field.typ, part)
			if err != nil {
				if !strings.Contains(raw, ",") {
					return cond, problem.Filter(key, fmt.Sprintf("Expected %s value. Given %q.", typeWord(field.typ), raw))
				}
				return cond, problem.Filter(key, fmt.Sprintf("Expected an array of %ss. Given %q.", typeWord(field.typ), raw))
			}
			values = append(values, v.start)
		}
		cond.Op, cond.Values = viaOps[op], values
		return cond, nil
	}
	if raw == "" {
		return cond, problem.Filter(key, `Expected not empty string value. Given "".`)
	}
	rangeable := field.typ != resource.String && field.typ != resource.Boolean
	if lo, hi, isRange := strings.Cut(raw, ".."); isRange && rangeable && (op == "eq" || op == "neq") {
		a, errA := parseFilterValue(field.typ, lo)
		b, errB := parseFilterValue(field.typ, hi)
		if errA != nil || errB != nil {
			return cond, problem.Filter(key, fmt.Sprintf("Expected %s range. Given %q.", typeWord(field.typ), raw))
		}
		cond.Op, cond.Values = storage.Range, []any{a.start, b.last()}
		if op == "neq" {
			cond.Op = storage.NotRange
		}
		return cond, nil
	}
	parts := []string{raw}
	if field.list && (op == "eq" || op == "neq" || op == "neq_or_null") {
		parts = strings.Split(raw, ",")
	}
	var values []filterValue
	for _, part := range parts {
		if p := checkLength(key, part); p != nil {
			return cond, p
		}
		v, err := parseFilterValue(field.typ, part)
		if err != nil {
			word := typeWord(field.typ)
			if len(parts) > 1 {
				return cond, problem.Filter(key, fmt.Sprintf("Expected an array of %ss. Given %q.", word, raw))
			}
			return cond, problem.Filter(key, fmt.Sprintf("Expected %s value. Given %q.", word, raw))
		}
		values = append(values, v)
	}
	return buildCond(cond, op, values), nil
}

// buildCond applies an operator; a partial date-time such as 2026-11 stands for
// the whole period it names.
func buildCond(cond storage.Cond, op string, values []filterValue) storage.Cond {
	one := values[0]
	if one.period && (op == "eq" || op == "neq" || op == "neq_or_null") {
		cond.Op = map[string]storage.Op{"eq": storage.Range, "neq": storage.NotRange, "neq_or_null": storage.NotRangeOrNull}[op]
		for _, v := range values {
			cond.Values = append(cond.Values, v.start, v.last())
		}
		return cond
	}
	switch op {
	case "lt":
		cond.Op, cond.Values = storage.Lt, []any{one.start}
	case "lte":
		cond.Op, cond.Values = storage.Lte, []any{one.last()}
	case "gt":
		cond.Op, cond.Values = storage.Gt, []any{one.last()}
	case "gte":
		cond.Op, cond.Values = storage.Gte, []any{one.start}
	case "contains", "not_contains", "starts_with", "not_starts_with", "ends_with", "not_ends_with":
		cond.Op = map[string]storage.Op{
			"contains": storage.Contains, "not_contains": storage.NotContains,
			"starts_with": storage.StartsWith, "not_starts_with": storage.NotStartsWith,
			"ends_with": storage.EndsWith, "not_ends_with": storage.NotEndsWith,
		}[op]
		cond.Values = []any{one.start}
	default:
		cond.Op = map[string]storage.Op{"eq": storage.Eq, "neq": storage.Neq, "neq_or_null": storage.NeqOrNull}[op]
		for _, v := range values {
			cond.Values = append(cond.Values, v.start)
		}
	}
	return cond
}

// filterValue is one parsed value; a period (a date or a partial date-time) also
// knows where it ends.
type filterValue struct {
	start  any
	end    time.Time // exclusive end of a period
	period bool
}

func (v filterValue) last() any {
	if v.period {
		return v.end.Add(-time.Second)
	}
	return v.start
}

var datePattern = regexp.MustCompile(`^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2})(?::(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?)?)?$`)

func parseFilterValue(t resource.FieldType, s string) (filterValue, error) {
	switch t {
	case resource.Integer:
		n, err := strconv.ParseInt(s, 10, 64)
		return filterValue{start: n}, err
	case resource.Number:
		f, err := strconv.ParseFloat(s, 64)
		return filterValue{start: f}, err
	case resource.Boolean:
		b, ok := parseBool(s)
		if !ok {
			return filterValue{}, fmt.Errorf("not a boolean")
		}
		return filterValue{start: b}, nil
	case resource.DateTime, resource.Date:
		return parsePeriod(strings.ReplaceAll(s, " ", "+"))
	}
	return filterValue{start: s}, nil
}

// parsePeriod reads YYYY[-MM[-DD[Thh[:mm[:ss]]][zone]]] as the period it names.
func parsePeriod(s string) (filterValue, error) {
	m := datePattern.FindStringSubmatch(s)
	if m == nil {
		return filterValue{}, fmt.Errorf("not a date")
	}
	n := func(i, def int) int {
		if m[i] == "" {
			return def
		}
		v, _ := strconv.Atoi(m[i])
		return v
	}
	loc := time.UTC
	if z := m[7]; z != "" && z != "Z" {
		if len(z) == 3 {
			z += ":00"
		} else if len(z) == 5 {
			z = z[:3] + ":" + z[3:]
		}
		t, err := time.Parse("-07:00", z)
		if err != nil {
			return filterValue{}, err
		}
		loc = t.Location()
	}
	start := time.Date(n(1, 0), time.Month(n(2, 1)), n(3, 1), n(4, 0), n(5, 0), n(6, 0), 0, loc)
	if start.Month() != time.Month(n(2, 1)) || start.Day() != n(3, 1) || n(4, 0) > 23 || n(5, 0) > 59 || n(6, 0) > 59 {
		return filterValue{}, fmt.Errorf("not a date")
	}
	var end time.Time
	switch {
	case m[2] == "":
		end = start.AddDate(1, 0, 0)
	case m[3] == "":
		end = start.AddDate(0, 1, 0)
	case m[4] == "":
		end = start.AddDate(0, 0, 1)
	case m[5] == "":
		end = start.Add(time.Hour)
	case m[6] == "":
		end = start.Add(time.Minute)
	default:
		end = start.Add(time.Second)
	}
	return filterValue{start: start.UTC(), end: end.UTC(), period: true}, nil
}

func parseBool(s string) (bool, bool) {
	switch s {
	case "1", "true", "True", "yes", "Yes":
		return true, true
	case "0", "false", "False", "no", "No":
		return false, true
	}
	return false, false
}

func typeWord(t resource.FieldType) string {
	switch t {
	case resource.Integer:
		return "integer"
	case resource.Number:
		return "number"
	case resource.Boolean:
		return "boolean"
	case resource.DateTime:
		return "datetime"
	case resource.Date:
		return "date"
	}
	return "string"
}
