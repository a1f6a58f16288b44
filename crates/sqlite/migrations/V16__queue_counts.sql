-- Jobs per queue and state, maintained by triggers (issue 27): `GET /v1/queues` and
-- `GET /v1/queues/{q}` read them without counting `jobs`. SQLite has one writer, so a counter
-- row costs no contention. A total that falls to 0 is deleted, so queues that emptied leave
-- no rows.
CREATE TABLE queue_counts (
    tenant TEXT NOT NULL,
    queue  TEXT NOT NULL,
    state  TEXT NOT NULL,
    jobs   INTEGER NOT NULL,
    PRIMARY KEY (tenant, queue, state)
);
INSERT INTO queue_counts (tenant, queue, state, jobs)
SELECT tenant, queue, state, count(*) FROM jobs GROUP BY 1, 2, 3;

CREATE TRIGGER jobs_count_insert AFTER INSERT ON jobs BEGIN
    INSERT INTO queue_counts (tenant, queue, state, jobs) VALUES (NEW.tenant, NEW.queue, NEW.state, 1)
    ON CONFLICT (tenant, queue, state) DO UPDATE SET jobs = jobs + 1;
END;
CREATE TRIGGER jobs_count_update AFTER UPDATE OF state ON jobs WHEN OLD.state <> NEW.state BEGIN
    UPDATE queue_counts SET jobs = jobs - 1 WHERE tenant = OLD.tenant AND queue = OLD.queue AND state = OLD.state;
    DELETE FROM queue_counts WHERE tenant = OLD.tenant AND queue = OLD.queue AND state = OLD.state AND jobs = 0;
    INSERT INTO queue_counts (tenant, queue, state, jobs) VALUES (NEW.tenant, NEW.queue, NEW.state, 1)
    ON CONFLICT (tenant, queue, state) DO UPDATE SET jobs = jobs + 1;
END;
CREATE TRIGGER jobs_count_delete AFTER DELETE ON jobs BEGIN
    UPDATE queue_counts SET jobs = jobs - 1 WHERE tenant = OLD.tenant AND queue = OLD.queue AND state = OLD.state;
    DELETE FROM queue_counts WHERE tenant = OLD.tenant AND queue = OLD.queue AND state = OLD.state AND jobs = 0;
END;
