-- Every change that alters how an assistant reads (its row, its assignments, an assigned tool being enabled or
-- disabled) notifies channel `assistant_changed` with the assistant's id, at commit. API processes keep a read cache
-- of assistants and drop an entry when its id is notified, whichever process or tool made the change.

-- CreateFunction
CREATE FUNCTION "notify_assistant_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'assistants' THEN
        PERFORM pg_notify('assistant_changed', COALESCE(NEW."id", OLD."id")::text);
    ELSIF TG_TABLE_NAME = 'tools' THEN
        PERFORM pg_notify('assistant_changed', t."assistant_id"::text) FROM "assistant_tools" t WHERE t."tool_id" = NEW."id";
    ELSE
        PERFORM pg_notify('assistant_changed', COALESCE(NEW."assistant_id", OLD."assistant_id")::text);
    END IF;
    RETURN NULL;
END
$$;

-- CreateTrigger
CREATE TRIGGER "assistants_notify_changed" AFTER INSERT OR UPDATE OR DELETE ON "assistants"
    FOR EACH ROW EXECUTE FUNCTION "notify_assistant_changed"();

-- CreateTrigger
CREATE TRIGGER "assistant_tools_notify_changed" AFTER INSERT OR UPDATE OR DELETE ON "assistant_tools"
    FOR EACH ROW EXECUTE FUNCTION "notify_assistant_changed"();

-- CreateTrigger
CREATE TRIGGER "assistant_documents_notify_changed" AFTER INSERT OR UPDATE OR DELETE ON "assistant_documents"
    FOR EACH ROW EXECUTE FUNCTION "notify_assistant_changed"();

-- CreateTrigger
CREATE TRIGGER "assistant_playbooks_notify_changed" AFTER INSERT OR UPDATE OR DELETE ON "assistant_playbooks"
    FOR EACH ROW EXECUTE FUNCTION "notify_assistant_changed"();

-- CreateTrigger
CREATE TRIGGER "tools_notify_assistants_changed" AFTER UPDATE OF "enabled" ON "tools"
    FOR EACH ROW EXECUTE FUNCTION "notify_assistant_changed"();
