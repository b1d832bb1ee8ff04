package server

import (
	"io"
	"net/http"
)

// studyPage handles GET /study: the researcher's page.
func (s *Server) studyPage(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, err := io.WriteString(w, studyHTML)
	return err
}

// studyScript handles GET /study.js: the page's script, a file so that
// the Content-Security-Policy needs no inline script.
func (s *Server) studyScript(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, err := io.WriteString(w, studyJS)
	return err
}

const studyHTML = ``
const studyJS = ``
