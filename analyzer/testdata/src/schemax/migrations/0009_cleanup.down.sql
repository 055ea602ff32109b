-- a down migration sorting after the up ones: never read
DROP TABLE document_chunks;
