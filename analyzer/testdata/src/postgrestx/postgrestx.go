package postgrestx // want package:"idemfacts"

// Package postgrestx: statements a PostgREST client (supabase-go's From)
// builds and runs are read by their chain as SQL builders' are: From names
// the table, Insert a plain insert (an upsert when its second argument is
// true), Upsert an upsert, Update an assignment, Select a read; Execute
// runs it.

import (
	"context"
	"encoding/json"
	"log"

	"github.com/hibiken/asynq"
	"github.com/supabase-community/supabase-go"
)

// Store keeps conditions and grants in Supabase.
type Store struct{ client *supabase.Client }

// UpsertConditions writes the resort's conditions by its key: a repeat
// leaves the same row.
func (s *Store) UpsertConditions(data map[string]interface{}) error {
	_, _, err := s.client.From("resort_conditions").Upsert(data, "mountain_id", "*", "estimated").Execute()
	return err
}

// InsertScrapingStatus appends the scrape's status row: bookkeeping.
func (s *Store) InsertScrapingStatus(resort string, ok bool) error {
	_, _, err := s.client.From("scraping_status").Insert(map[string]interface{}{"resort": resort, "success": ok}, false, "id", "*", "").Execute()
	return err
}

// SetLift sets a lift's state, through Insert's upsert flag and Update.
func (s *Store) SetLift(id, state string) error {
	if _, _, err := s.client.From("lifts").Insert(map[string]string{"id": id, "state": state}, true, "id", "", "").Execute(); err != nil {
		return err
	}
	_, err := s.client.From("lifts").Update(map[string]string{"state": state}, "", "").Eq("id", id).ExecuteTo(nil)
	return err
}

// GrantPoints adds a row of points: a plain insert.
func (s *Store) GrantPoints(user string, points int) error { // want GrantPoints:`effects\(postgrest.FilterBuilder.Execute "INSERT INTO points .*"\)`
	_, _, err := s.client.From("points").Insert(map[string]interface{}{"user": user, "points": points}, false, "", "", "").Execute()
	return err
}

// Resort reads a resort.
func (s *Store) Resort(id string) ([]byte, error) {
	data, _, err := s.client.From("resorts").Select("*", "", false).Eq("id", id).Single().Execute()
	return data, err
}

// HandleScrape upserts what it scraped and logs a failed status row: no
// diagnostic.
func (s *Store) HandleScrape(ctx context.Context, t *asynq.Task) error {
	var data map[string]interface{}
	if err := json.Unmarshal(t.Payload(), &data); err != nil {
		return err
	}
	if _, err := s.Resort("r1"); err != nil {
		return err
	}
	if err := s.UpsertConditions(data); err != nil {
		return err
	}
	if err := s.SetLift("l1", "open"); err != nil {
		return err
	}
	if err := s.InsertScrapingStatus("r1", true); err != nil {
		log.Printf("status: %v", err)
	}
	return nil
}

// HandleGrant inserts points with no dedup check.
func (s *Store) HandleGrant(ctx context.Context, t *asynq.Task) error {
	return s.GrantPoints(string(t.Payload()), 10) // want `effect postgrestx.Store.GrantPoints → postgrest.FilterBuilder.Execute "INSERT INTO points .*" in handler Store.HandleGrant is not guarded`
}

// Register hands both handlers to asynq.
func Register(mux *asynq.ServeMux, s *Store) {
	mux.HandleFunc("scrape", s.HandleScrape)
	mux.HandleFunc("grant", s.HandleGrant)
}
