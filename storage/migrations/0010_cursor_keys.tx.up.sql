-- The secret that signs the cursors of cursor paging (page[after],
-- page[before]): one row, written by the first process that needs it
-- (storage.CursorKey) and read by every other, so that a cursor one
-- instance hands out is good on all of them and after a restart. Rotating
-- it (deleting the row) makes every cursor given out so far a 400.

CREATE TABLE cursor_keys (
    id INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
    secret TEXT NOT NULL,
    created_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}}
);
