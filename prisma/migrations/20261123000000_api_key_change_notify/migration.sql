-- Every change to an API key (created, revoked, deleted, also by the cascade of its user's or organisation's deletion)
-- notifies channel `api_key_changed` at commit. API processes cache key lookups for a few seconds and drop that cache
-- when notified, so a revocation or a deleted organisation takes effect at once on every process; the cache's TTL
-- remains the bound should a notification be lost.

-- CreateFunction
CREATE FUNCTION "notify_api_key_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('api_key_changed', 'keys');
    RETURN NULL;
END
$$;

-- CreateTrigger
-- Per statement: deleting an organisation with a thousand keys sends one notification, not a thousand. Not on writes
-- of `last_used_at` alone, which every API process makes every 15 s and which change no lookup.
CREATE TRIGGER "api_keys_notify_changed"
    AFTER INSERT OR DELETE OR UPDATE OF "organization_id", "user_id", "key_hash", "revoked_at" ON "api_keys"
    FOR EACH STATEMENT EXECUTE FUNCTION "notify_api_key_changed"();
