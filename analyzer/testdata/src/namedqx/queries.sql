-- name: grant-points
-- Add points to a user.
-- $1: points
UPDATE users SET points = points + $1 WHERE id = $2;

-- name: rename-user
UPDATE users
SET name = $1
WHERE id = $2;

--name: add-visit
INSERT INTO visits (user_id) VALUES ($1);

-- name: get-user
SELECT name FROM users WHERE id = $1;
