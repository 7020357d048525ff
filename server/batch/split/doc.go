// Package split reads the body of a batch request (PATCH /admin/api/{type}: a
// root "data" array of resource objects of one type and an optional root
// "included" array) as a stream, checks its structure and splits it into
// chunks that are closed under reference (docs/decisions.md §7, oro-behaviour §10.1 and
// §10.3).
//
// The body is never decoded as a whole: the root object is walked token by
// token and every item is decoded on its own into a json.RawMessage, so what is
// held in memory is decided by the splitter alone (see Split for the exact
// memory consequences).
//
// The @-members JSON:API 1.1 says to ignore are ignored: the root's are skipped,
// and an item's are taken out (jsonapi.ResourceWithoutAtMembers) before the
// splitter or anything after it reads the item, as if they had not been sent.
//
// The package knows nothing about resources, storage or HTTP: it reports the
// structure of the request only. Whether an included item's type exists, whether
// an item's attributes are valid and whether a relationship target exists are
// per-item questions answered later by the item validator.
package split
