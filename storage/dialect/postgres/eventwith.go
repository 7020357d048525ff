package postgres

import "github.com/entityapi/entityapi/storage/dialect"

// eventWith is PostgreSQL's statement of a single write and its change
// event: the write ... RETURNING becomes a data-modifying WITH whose second
// part inserts the event from the row the write returns, and whose answer is
// that row. A single create or update then costs one round trip, atomic by
// itself, instead of BEGIN, the write, the event and COMMIT. The casts give
// the parameters the types of the event columns, which a SELECT's list does
// not infer.
var eventWith = dialect.EventWith{
	Write:  [3]string{"WITH w AS (", "), e AS (", ") SELECT * FROM w"},
	Delete: [2]string{"WITH w AS (", ") "},
	Insert: [3]string{
		"INSERT INTO ? (",
		") SELECT CAST(? AS BIGINT), CAST(? AS TEXT), CAST(w.? AS TEXT), CAST(? AS TEXT), CAST(? AS JSONB), CAST(? AS JSONB), ",
		", CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS TIMESTAMPTZ) FROM w",
	},
}
