package problem

import "fmt"

// Constructors for the problems the API reports, with Oro's titles
// (oro-behaviour §6.4, docs/decisions.md §3).

// Constraint is a 400 about a value in the body.
func Constraint(title, detail, pointer string) *Problem {
	return &Problem{Kind: Invalid, Title: title, Detail: detail, Pointer: pointer}
}

// NotBlank reports a required value that is missing or empty.
func NotBlank(pointer string) *Problem {
	return Constraint("not blank constraint", "This value should not be blank.", pointer)
}

// ExtraFields reports members the resource does not have.
func ExtraFields(pointer string, names ...string) *Problem {
	return Constraint("extra fields constraint", fmt.Sprintf("This form should not contain extra fields: %s.", quoteJoin(names)), pointer)
}

// RequestData reports a malformed document structure.
func RequestData(detail, pointer string) *Problem {
	return Constraint("request data constraint", detail, pointer)
}

// MissingRelated reports a relationship to a record that does not exist.
func MissingRelated(pointer string) *Problem {
	return Constraint("form constraint", "The entity does not exist.", pointer)
}

// Unique reports a value that another record already has.
func Unique(pointer string) *Problem {
	return Constraint("unique entity constraint", "This value is already used.", pointer)
}

// Filter reports a problem with a query parameter.
func Filter(parameter, detail string) *Problem {
	return &Problem{Kind: Invalid, Title: "filter constraint", Detail: detail, Parameter: parameter}
}

// Sort reports a sort problem.
func Sort(detail string) *Problem {
	return &Problem{Kind: Invalid, Title: "sort constraint", Detail: detail, Parameter: "sort"}
}

// BadIdentifier reports a malformed identifier in the address.
func BadIdentifier(detail string) *Problem {
	return &Problem{Kind: Invalid, Title: "entity identifier constraint", Detail: detail}
}

// HeaderValue reports an invalid request header value.
func HeaderValue(header, detail string) *Problem {
	return &Problem{Kind: Invalid, Title: "invalid header value exception", Detail: detail, Header: header}
}

// MalformedJSON reports a body that is not JSON.
func MalformedJSON(detail string) *Problem {
	return &Problem{Kind: Invalid, Title: "bad request http exception", Detail: detail}
}

// BadQuery reports a query string that cannot be read where no parameter can
// be named (a malformed parameter name).
func BadQuery(detail string) *Problem {
	return &Problem{Kind: Invalid, Title: "bad request http exception", Detail: detail}
}

// NotFound reports a record that does not exist (in the caller's organization).
func NotFound() *Problem {
	return &Problem{Kind: NotFoundKind, Title: "not found http exception", Detail: "An entity with the requested identifier does not exist."}
}

// UnknownPath reports an address that names no resource.
func UnknownPath(detail string) *Problem {
	return &Problem{Kind: NotFoundKind, Title: "not found http exception", Detail: detail}
}

// Conflict reports a body that contradicts the address or existing data.
func Conflict(detail, pointer string) *Problem {
	return &Problem{Kind: ConflictKind, Title: "conflict constraint", Detail: detail, Pointer: pointer}
}

// PreconditionFailed reports an If-Match the record does not meet: the
// version it names is not the record's current one (someone changed the
// record since the client read it), the record does not exist, or the header
// is not a list of strong entity tags. Nothing was written.
func PreconditionFailed(detail string) *Problem {
	return &Problem{Kind: PreconditionKind, Title: "precondition failed http exception", Detail: detail, Header: "If-Match"}
}

// StaleVersion reports a record whose version is not the one meta.version
// names (pointer): someone changed it since the client read it, so the
// update is refused. It is a conflict of the body with the stored record
// (409, as a single request and as a batch item), not an HTTP precondition:
// If-Match's failure is PreconditionFailed.
func StaleVersion(pointer string) *Problem {
	return &Problem{Kind: ConflictKind, Title: "conflict constraint",
		Detail: "The record has changed since the version given in meta.version.", Pointer: pointer}
}

// NotAllowed reports a method the address does not support.
func NotAllowed(method string) *Problem {
	return &Problem{Kind: MethodNotAllowed, Title: "method not allowed http exception", Detail: fmt.Sprintf("The %s method is not allowed for this resource.", method)}
}

// NotAcceptable reports an Accept header the API cannot satisfy.
func NotAcceptable(detail string) *Problem {
	return &Problem{Kind: NotAcceptableKind, Title: "not acceptable http exception", Detail: detail, Header: "Accept"}
}

// UnsupportedMediaType reports a body in a media type the API does not read.
func UnsupportedMediaType(detail string) *Problem {
	return &Problem{Kind: UnsupportedMedia, Title: "unsupported media type http exception", Detail: detail, Header: "Content-Type"}
}

// BodyTooLarge reports a body over the configured limit.
func BodyTooLarge(limit int64) *Problem {
	return &Problem{Kind: TooLarge, Title: "request entity too large http exception", Detail: fmt.Sprintf("The request body is larger than %d bytes.", limit)}
}

// ValueTooLarge reports a part of a streamed body over its own limit (a batch
// item over --max-batch-item): the request is refused for its size, as a body
// over --max-body is. pointer names the item; "" for another value or a run
// of white space between the items.
func ValueTooLarge(limit int64, pointer string) *Problem {
	if pointer == "" {
		return &Problem{Kind: TooLarge, Title: "request entity too large http exception",
			Detail: fmt.Sprintf("A value or run of white space in the request body is larger than %d bytes.", limit)}
	}
	return &Problem{Kind: TooLarge, Title: "request entity too large http exception", Pointer: pointer,
		Detail: fmt.Sprintf("The item is larger than %d bytes.", limit)}
}

// InternalError is what a client sees of any unexpected failure.
func InternalError() *Problem {
	return &Problem{Kind: Internal, Title: "runtime exception", Detail: "An unexpected error occurred."}
}

// TimedOut is the answer to a request the server could not finish within its
// own deadline (--request-timeout): a 503, the server's condition, not a bug.
func TimedOut() *Problem {
	return &Problem{Kind: Unavailable, Title: "service unavailable http exception",
		Detail: "The request took longer than the server allows. Try again later, or ask for less (a smaller page, fewer includes)."}
}

// DatabaseUnavailable is the answer to a request the database could not
// serve for its own condition (down, restarting, unreachable, its disk
// full): a 503 whose Retry-After says when to try again. Nothing the
// request asked was done, or its transaction rolled back.
func DatabaseUnavailable(retryAfterSeconds int) *Problem {
	return &Problem{Kind: Unavailable, Title: "service unavailable http exception",
		Detail: fmt.Sprintf("The database is unavailable for now; nothing was changed. Retry in %d seconds.", retryAfterSeconds)}
}

func quoteJoin(names []string) string {
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%q", n)
	}
	return s
}

// RateLimited reports a client over its request rate; the response's
// Retry-After carries the same number of seconds.
func RateLimited(seconds int64) *Problem {
	unit := "seconds"
	if seconds == 1 {
		unit = "second"
	}
	return &Problem{Kind: TooManyRequests, Title: "too many requests http exception",
		Detail: fmt.Sprintf("Too many requests. Retry in %d %s.", seconds, unit)}
}

// cursorProfile is the address of the JSON:API cursor-pagination profile,
// whose error types name the problems of a cursor request.
const cursorProfile = "https://jsonapi.org/profiles/ethanresnick/cursor-pagination/"

// PageSizeTooLarge reports a page[size] over the largest page, with the
// largest in meta.page.maxSize as the cursor-pagination profile asks.
func PageSizeTooLarge(maxSize int) *Problem {
	p := Filter("page[size]", fmt.Sprintf("The value should be less than or equals to %d.", maxSize))
	p.Code, p.About, p.Type = "max-size-exceeded", cursorProfile+"max-size-exceeded", cursorProfile+"max-size-exceeded"
	p.Meta = map[string]any{"page": map[string]any{"maxSize": maxSize}}
	return p
}

// UnsupportedCursorSort reports a sort that a cursor cannot hold a place in.
func UnsupportedCursorSort(detail string) *Problem {
	p := Sort(detail)
	p.Code, p.About, p.Type = "unsupported-sort", cursorProfile+"unsupported-sort", cursorProfile+"unsupported-sort"
	return p
}

// CursorRange reports page[after] and page[before] given together: the
// profile's range paging, which the service does not offer.
func CursorRange() *Problem {
	p := Filter("page[before]", "Give page[after] or page[before], not both.")
	p.Code, p.About, p.Type = "range-pagination-not-supported", cursorProfile+"range-pagination-not-supported", cursorProfile+"range-pagination-not-supported"
	return p
}
