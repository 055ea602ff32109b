-- ClickHouse: one row per sorting key once parts merge.
CREATE TABLE job_logs_v2 (
    event_id String NOT NULL,
    job_id String NOT NULL,
    message String NOT NULL
)
ENGINE = ReplacingMergeTree()
ORDER BY (job_id, event_id);
RENAME TABLE job_logs TO job_logs_legacy, job_logs_v2 TO job_logs;

CREATE TABLE raw_logs (event_id String, message String) ENGINE = MergeTree ORDER BY (event_id);
