CREATE TABLE document_chunks (
    id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    document_id UUID NOT NULL,
    sequence_number INTEGER NOT NULL,
    text TEXT NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX document_chunks_seq ON document_chunks (document_id, sequence_number);

-- a single-column primary key the program fills with a fresh id
CREATE TABLE payments (id UUID PRIMARY KEY, order_id TEXT NOT NULL, amount BIGINT NOT NULL);
