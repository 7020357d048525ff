package resource

import (
	"fmt"
	"slices"
)

// The functions of filter[aggregations] (Oro's storefront search
// aggregations): count groups the records by the attribute's value, the
// others reduce the attribute over the filtered records.
const (
	AggregateCount = "count"
	AggregateSum   = "sum"
	AggregateMin   = "min"
	AggregateMax   = "max"
	AggregateAvg   = "avg"
)

// aggregateTypes are the attribute types each function applies to: sum and
// avg need numbers, min and max an order (numbers, times, strings), count any
// scalar (the JSON attributes are lists and objects, never grouped).
var aggregateTypes = map[string][]FieldType{
	AggregateCount: {String, Integer, Number, Boolean, DateTime, Date},
	AggregateSum:   {Integer, Number},
	AggregateAvg:   {Integer, Number},
	AggregateMin:   {String, Integer, Number, DateTime, Date},
	AggregateMax:   {String, Integer, Number, DateTime, Date},
}

// checkAggregate refuses an x-aggregate the attribute cannot honour, so that
// a wrong declaration fails at start with the attribute's name rather than
// as a database error on the first request. Localized attributes are not
// aggregated: a count or a minimum of names would change with the caller's
// language, and the value in one language is not the record's value.
func checkAggregate(a *Attribute) error {
	if len(a.Aggregate) == 0 {
		return nil
	}
	if a.WriteOnly {
		return fmt.Errorf("x-aggregate on a write-only attribute")
	}
	if len(a.Localized) > 0 {
		return fmt.Errorf("x-aggregate on a localized attribute")
	}
	for i, fn := range a.Aggregate {
		types, ok := aggregateTypes[fn]
		if !ok {
			return fmt.Errorf("x-aggregate: unknown function %q (count, sum, min, max, avg)", fn)
		}
		if slices.Contains(a.Aggregate[:i], fn) {
			return fmt.Errorf("x-aggregate: %q named twice", fn)
		}
		if !slices.Contains(types, a.Type) {
			return fmt.Errorf("x-aggregate: %q does not apply to this attribute's type", fn)
		}
	}
	return nil
}

// Aggregatable tells whether any attribute of the resource declares
// x-aggregate: only those resources take filter[aggregations].
func (r *Resource) Aggregatable() bool {
	for _, a := range r.Attributes {
		if len(a.Aggregate) > 0 {
			return true
		}
	}
	return false
}
