-- A mail being sent is claimed until `claimed_until` (a short lease its sender renews), apart from `next_attempt_at`
-- (when it is due): a replica's claims lapse within seconds of its death instead of holding mail for minutes.
ALTER TABLE outbox ADD COLUMN claimed_until timestamptz;
