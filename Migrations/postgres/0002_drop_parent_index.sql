-- A refresh rotation's retry revokes the children of one parent through the family index (the parent's children
-- are in its family); the parent_id index was one more random page written per refresh, and per purged row.
DROP INDEX IF EXISTS sessions_parent;
