// Package api is an HTTP API: its endpoints are not message handlers.
package api

import (
	"database/sql"
	"net/http"
)

type Server struct{ DB *sql.DB }

// truth: ok
func (s *Server) CreateOrder(w http.ResponseWriter, r *http.Request) {
	if _, err := s.DB.ExecContext(r.Context(), `INSERT INTO orders (id, state) VALUES ($1, 'pending')`, r.FormValue("id")); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusCreated)
}
