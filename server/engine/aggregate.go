package engine

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// filter[aggregations] (Oro's storefront search aggregations): a list asks
// for figures over every record its filters match, not only the page, as
// comma-separated terms `field function [alias]`, such as
// `filter[aggregations]=loginCount sum,enabled count`. The answer is
// meta.aggregatedData, one member per term named by its alias or by the
// field and the function (`loginCountSum`, `enabledCount`).
const aggregationsKey = "filter[aggregations]"

// Bounds of filter[aggregations]: each term costs the database a pass over
// the filtered records (a count one statement of its own), so a request
// names at most maxAggregationTerms; a count answers at most the
// configured number of values (DefaultAggregationValues unless
// --max-aggregation-values says otherwise).
const maxAggregationTerms = 10

// DefaultAggregationValues is the most values a count answers when
// Config.MaxAggregationValues is zero; the --max-aggregation-values setting
// (server/cli) shows and applies the same, read from here.
const DefaultAggregationValues = 100

// aggregationAlias is what an alias may be: a member name a client can
// read as an identifier in any language.
var aggregationAlias = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,99}$`)

// aggFuncs maps the functions of the parameter to storage's.
var aggFuncs = map[string]storage.AggFunc{
	resource.AggregateCount: storage.AggCount,
	resource.AggregateSum:   storage.AggSum,
	resource.AggregateAvg:   storage.AggAvg,
	resource.AggregateMin:   storage.AggMin,
	resource.AggregateMax:   storage.AggMax,
}

// aggregation is one parsed term of filter[aggregations].
type aggregation struct {
	name string // the member of meta.aggregatedData
	attr *resource.Attribute
	fn   string
}

// parseAggregations reads filter[aggregations] (absent: nil). It is JSON:API
// only (the plain format has no meta to answer it in), and only on the
// resources whose document declares x-aggregate on some attribute.
func parseAggregations(q url.Values, res *resource.Resource, f Format) ([]aggregation, *problem.Problem) {
	values, ok := q[aggregationsKey]
	if !ok {
		return nil, nil
	}
	fail := func(detail string, args ...any) *problem.Problem {
		return problem.Filter(aggregationsKey, fmt.Sprintf(detail, args...))
	}
	switch {
	case f == Plain:
		return nil, fail("Aggregations are not supported by the plain format; use JSON:API.")
	case !res.Aggregatable():
		return nil, fail("The resource has no fields to aggregate.")
	case len(values) > 1:
		return nil, fail("The parameter is given more than once.")
	}
	raw := values[0]
	if p := checkLength(aggregationsKey, raw); p != nil {
		return nil, p
	}
	terms := strings.Split(raw, ",")
	if len(terms) > maxAggregationTerms {
		return nil, fail("At most %d aggregations may be asked at once. Given %d.", maxAggregationTerms, len(terms))
	}
	out := make([]aggregation, 0, len(terms))
	for _, term := range terms {
		words := strings.Fields(term)
		if len(words) < 2 || len(words) > 3 {
			return nil, fail("Each aggregation is \"field function\" or \"field function alias\", separated by commas. Given %q.", strings.TrimSpace(term))
		}
		field, fn := words[0], words[1]
		a, ok := res.Attribute(field)
		if !ok || len(a.Aggregate) == 0 {
			return nil, fail("The field %q cannot be aggregated. Fields: %s.", field, aggregatableFields(res))
		}
		if !slices.Contains(a.Aggregate, fn) {
			return nil, fail("The function %q is not supported for the field %q. Functions: %s.", fn, field, strings.Join(a.Aggregate, ", "))
		}
		name := field + strings.ToUpper(fn[:1]) + fn[1:]
		if len(words) == 3 {
			if !aggregationAlias.MatchString(words[2]) {
				return nil, fail("The alias %q should start with a letter and hold only letters, digits and underscores (at most 100).", words[2])
			}
			name = words[2]
		}
		if slices.ContainsFunc(out, func(o aggregation) bool { return o.name == name }) {
			return nil, fail("The aggregation %q is asked twice; give one of them another alias.", name)
		}
		out = append(out, aggregation{name: name, attr: a, fn: fn})
	}
	return out, nil
}

// aggregatableFields lists the fields of res that take aggregations, with
// their functions, for an error's detail.
func aggregatableFields(res *resource.Resource) string {
	var parts []string
	for _, a := range res.Attributes {
		if len(a.Aggregate) > 0 {
			parts = append(parts, fmt.Sprintf("%s (%s)", a.Name, strings.Join(a.Aggregate, ", ")))
		}
	}
	return strings.Join(parts, ", ")
}

// aggregatedData computes the aggregations over every record q matches (the
// page's limit and offset do not apply) and renders meta.aggregatedData: a
// count as a list of {value, count}, the most frequent values first; sum,
// avg, min and max as one value, null when no record has one.
func (e *Engine) aggregatedData(ctx context.Context, q storage.Query, aggs []aggregation) ([]jsonapi.Member, error) {
	terms := make([]storage.AggTerm, len(aggs))
	for i, a := range aggs {
		terms[i] = storage.AggTerm{Column: a.attr.Column, Func: aggFuncs[a.fn]}
	}
	limit := e.cfg.MaxAggregationValues
	if limit <= 0 {
		limit = DefaultAggregationValues
	}
	q.Limit, q.Offset, q.OrderBy, q.Columns = 0, 0, nil, nil
	results, err := e.store.Aggregate(ctx, q, terms, limit)
	if err != nil {
		return nil, err
	}
	out := make([]jsonapi.Member, len(aggs))
	for i, a := range aggs {
		out[i] = jsonapi.Member{Name: a.name, Value: aggregateValue(a, results[i])}
	}
	return out, nil
}

// aggregateValue is one result on the wire: values as the attribute's
// own (a date as a date), an average as a number whatever the attribute.
func aggregateValue(a aggregation, v any) any {
	counts, ok := v.([]storage.ValueCount)
	if !ok {
		if a.fn == resource.AggregateAvg {
			return v
		}
		return wireValue(a.attr.Type, v)
	}
	list := make([]any, len(counts))
	for i, c := range counts {
		list[i] = []jsonapi.Member{{Name: "value", Value: wireValue(a.attr.Type, c.Value)}, {Name: "count", Value: c.Count}}
	}
	return list
}
