-- When a disabled webhook was turned on again: it resumes with the events
-- that occur from then on. The feed's order alone cannot tell them: on
-- PostgreSQL an event of a transaction that committed while the webhook was
-- off may be numbered after it is on again.
ALTER TABLE webhooks ADD COLUMN resumed_at {{.Timestamp}};
