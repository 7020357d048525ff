package jsonapi

import "net/http"

// Reply is a complete HTTP answer: every generated operation accepts it as its
// response object, so the one engine can serve every operation.
type Reply struct {
	Status      int
	ContentType string
	Header      http.Header
	Body        []byte
}

// Write sends the reply. Headers already set on w (request id, CORS) are kept.
func (r *Reply) Write(w http.ResponseWriter) error {
	h := w.Header()
	for k, v := range r.Header {
		h[k] = v
	}
	if r.ContentType != "" {
		h.Set("Content-Type", r.ContentType)
	}
	w.WriteHeader(r.Status)
	if len(r.Body) == 0 {
		return nil
	}
	_, err := w.Write(r.Body)
	return err
}
