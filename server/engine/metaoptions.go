package engine

import (
	"encoding/json"

	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
)

// metaOptions are the options a resource object of a request body may carry
// in its meta (oro-behaviour §5.4), at most one of them.
type metaOptions struct {
	// update marks an included or batch record as an existing one to change.
	update bool
	// upsert creates the record or updates the one it matches (upsert.go).
	upsert *upsert
	// validate asks for every check and the answer the write would give,
	// with nothing stored (validate.go). Only the request's primary data and
	// the items of a synchronous batch may carry it; readMeta's callers
	// refuse it elsewhere (validateNotSupported).
	validate bool
}

// readMeta reads the meta options of a resource object, the upsert criteria
// checked against the resource's. primary tells whether this is the
// request's primary data (where meta.update means nothing); method is the
// request's.
func readMeta(res *resource.Resource, in *input, primary bool, method string) (metaOptions, error) {
	var opts metaOptions
	rawUpsert, hasUpsert := in.meta["upsert"]
	rawUpdate, hasUpdate := in.meta["update"]
	rawValidate, hasValidate := in.meta["validate"]
	if countTrue(hasUpsert, hasUpdate, hasValidate) > 1 {
		return opts, problem.RequestData("Only one meta option can be used.", in.base+"/meta")
	}
	var err error
	switch {
	case hasUpdate && primary:
		return opts, valueProblem(in, "update", "The option is not supported.")
	case hasUpdate:
		if json.Unmarshal(rawUpdate, &opts.update) != nil {
			return opts, valueProblem(in, "update", "This value should be a boolean.")
		}
	case hasValidate:
		if json.Unmarshal(rawValidate, &opts.validate) != nil {
			return opts, valueProblem(in, "validate", "This value should be a boolean.")
		}
	case hasUpsert:
		opts.upsert, err = readUpsert(res, in, rawUpsert, method)
	}
	return opts, err
}

// validateNotSupported is the problem of meta.validate where it means
// nothing: on an included record (the request as a whole is validated or
// not) and on the items of an asynchronous batch (nobody waits for the
// answer it would give).
func validateNotSupported(in *input, detail string) *problem.Problem {
	return valueProblem(in, "validate", detail)
}

func countTrue(flags ...bool) int {
	n := 0
	for _, f := range flags {
		if f {
			n++
		}
	}
	return n
}
