package auth

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/entityapi/entityapi/server/jsonguard"
)

// maxTokenBody bounds a token request body: a handful of short parameters.
const maxTokenBody = 64 << 10

// The descriptions of the token endpoint's errors, as league/oauth2-server
// (which Oro uses) words them (oro-behaviour §11.1).
const (
	textInvalidClient   = "Client authentication failed"
	textInvalidRequest  = "The request is missing a required parameter, includes an invalid parameter value, includes a parameter more than once, or is otherwise malformed."
	textBadUser         = "The user credentials were incorrect."
	textInvalidGrant    = "The provided authorization grant (e.g., authorization code, resource owner credentials) or refresh token is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client."
	textUnsupported     = "The authorization grant type is not supported by the authorization server."
	textTooManyRequests = "Too many failed authentication attempts. Try again later."
	textServerError     = "The authorization server encountered an unexpected condition which prevented it from fulfilling the request."
	textUnavailable     = "The authorization server is currently unable to handle the request due to a temporary overloading or maintenance of the server."
)

// oauthError is one error answer of the token endpoint (RFC 6749 §5.2).
type oauthError struct {
	status      int
	code        string
	description string
	hint        string
	basic       bool          // answer WWW-Authenticate: Basic (invalid_client after Basic credentials)
	retryAfter  time.Duration // > 0: answer Retry-After (429, 503)
}

func invalidRequest(hint string) *oauthError {
	return &oauthError{status: http.StatusBadRequest, code: "invalid_request", description: textInvalidRequest, hint: hint}
}

func missing(param string) *oauthError { return invalidRequest("Check the `" + param + "` parameter") }

func invalidClient(basic bool) *oauthError {
	return &oauthError{status: http.StatusUnauthorized, code: "invalid_client", description: textInvalidClient, basic: basic}
}

// badUser is the answer to wrong, unknown (or refused demo) user credentials:
// it never says which of them was wrong.
func badUser() *oauthError {
	return &oauthError{status: http.StatusBadRequest, code: "invalid_grant", description: textBadUser}
}

func invalidGrant(hint string) *oauthError {
	return &oauthError{status: http.StatusBadRequest, code: "invalid_grant", description: textInvalidGrant, hint: hint}
}

func unsupportedGrant() *oauthError {
	return &oauthError{status: http.StatusBadRequest, code: "unsupported_grant_type", description: textUnsupported,
		hint: "Check that all required parameters have been provided"}
}

func tooManyRequests(wait time.Duration) *oauthError {
	return &oauthError{status: http.StatusTooManyRequests, code: "too_many_requests", description: textTooManyRequests, retryAfter: wait}
}

func serverError() *oauthError {
	return &oauthError{status: http.StatusInternalServerError, code: "server_error", description: textServerError}
}

// outageRetryAfter is the Retry-After of a token request the database could
// not serve, as the APIs answer theirs (server's outageRetryAfter).
const outageRetryAfter = 5 * time.Second

// temporarilyUnavailable is the answer to a token request the database
// could not serve for its own condition: RFC 6749's temporarily_unavailable
// (§4.1.2.1), with 503 and Retry-After, so that a client retries rather
// than doubting its credentials.
func temporarilyUnavailable() *oauthError {
	return &oauthError{status: http.StatusServiceUnavailable, code: "temporarily_unavailable", description: textUnavailable,
		retryAfter: outageRetryAfter}
}

// failure is the answer to a token request that failed on err, a failure
// of the server's: temporarily_unavailable when the database is down, else
// server_error.
func (s *Service) failure(err error) *oauthError {
	if s.store.Unavailable(err) {
		return temporarilyUnavailable()
	}
	return serverError()
}

// write answers e as league does: error, error_description, the same text as
// message, and hint when there is one.
func (e *oauthError) write(w http.ResponseWriter) {
	if e.basic {
		w.Header().Set("WWW-Authenticate", `Basic realm="OAuth"`)
	}
	if e.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(int64((e.retryAfter+time.Second-1)/time.Second), 10))
	}
	body := map[string]string{"error": e.code, "error_description": e.description, "message": e.description}
	if e.hint != "" {
		body["hint"] = e.hint
	}
	writeJSON(w, e.status, body)
}

// writeJSON answers a token endpoint body; tokens and errors must not be
// cached (RFC 6749 §5.1).
func writeJSON(w http.ResponseWriter, status int, body any) {
	raw, _ := json.Marshal(body)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	writeData(w, status, "application/json; charset=UTF-8", raw)
}

// writeData answers status with raw as the body, framed as the server's
// router frames its own answers (so mounting these handlers on it changes
// nothing on the wire): Content-Type unless one is set, and an explicit
// Content-Length, so that a body larger than net/http's 2 KiB buffer (a key
// set with several keys) is not sent chunked.
func writeData(w http.ResponseWriter, status int, contentType string, raw []byte) {
	h := w.Header()
	if len(h["Content-Type"]) == 0 {
		h["Content-Type"] = []string{contentType}
	}
	if len(raw) > 0 {
		h.Set("Content-Length", strconv.Itoa(len(raw)))
	}
	w.WriteHeader(status)
	_, _ = w.Write(raw)
}

// clientAddr is the address the failure throttle counts a request under:
// the host of the connection's remote address, normalized as net.IP prints
// it ("::ffff:192.0.2.1" is 192.0.2.1), and "" when it is not an IP address.
// Forwarding headers (X-Forwarded-For, X-Real-IP) are never read: a client
// must not choose the address its failures count under. This is what the
// router's ClientIP gave with no trusted proxies, as the server configures it.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(strings.TrimSpace(r.RemoteAddr))
	if err != nil {
		return ""
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return ""
	}
	return ip.String()
}

// tokenRequest holds the parameters of a token request.
type tokenRequest struct {
	grantType    string
	clientID     string
	clientSecret string
	username     string
	password     string
	basic        bool // the request carried an Authorization: Basic header
}

// tokenParams lists the parameters read; others (scope) are ignored.
var tokenParams = []string{"grant_type", "client_id", "client_secret", "username", "password"}

// readTokenRequest reads the parameters from a JSON or form body (never the
// query string, which ends up in logs) and the client credentials from the
// body or, failing that, HTTP Basic, as league/oauth2-server does.
func readTokenRequest(w http.ResponseWriter, r *http.Request) (*tokenRequest, *oauthError) {
	params, oerr := bodyParams(w, r)
	if oerr != nil {
		return nil, oerr
	}
	req := &tokenRequest{
		grantType: params["grant_type"], clientID: params["client_id"], clientSecret: params["client_secret"],
		username: params["username"], password: params["password"],
	}
	if h := r.Header.Get("Authorization"); len(h) >= 6 && strings.EqualFold(h[:6], "basic ") {
		req.basic = true
		if raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(h[6:])); err == nil {
			if id, secret, ok := strings.Cut(string(raw), ":"); ok {
				if req.clientID == "" {
					req.clientID = id
				}
				if req.clientSecret == "" {
					req.clientSecret = secret
				}
			}
		}
	}
	// No stored client or user has a NUL in its name, and Bun refuses to
	// write one into SQL (a 500 before): name the parameter instead.
	for _, f := range [][2]string{{"grant_type", req.grantType}, {"client_id", req.clientID}, {"client_secret", req.clientSecret},
		{"username", req.username}, {"password", req.password}} {
		if strings.IndexByte(f[1], 0) >= 0 {
			return nil, missing(f[0])
		}
	}
	return req, nil
}

// bodyParams decodes the body by its Content-Type: a JSON object of strings,
// or a form. Anything else, a parameter twice or a non-string is
// invalid_request.
func bodyParams(w http.ResponseWriter, r *http.Request) (map[string]string, *oauthError) {
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var body []byte
	var err error
	if r.Body != nil {
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, maxTokenBody))
	}
	if err != nil {
		return nil, invalidRequest("The request body could not be read.")
	}
	params := map[string]string{}
	switch mediaType {
	case "application/json":
		// The guard first: encoding/json would walk 10,000 levels (and take
		// invalid UTF-8) before saying no.
		var g jsonguard.Guard
		_, gerr := g.Check(body)
		var doc map[string]any
		if gerr != nil || g.End() != nil || json.Unmarshal(body, &doc) != nil || doc == nil {
			return nil, invalidRequest("The request body is not a JSON object.")
		}
		for _, p := range tokenParams {
			v, ok := doc[p]
			if !ok || v == nil {
				continue
			}
			str, ok := v.(string)
			if !ok {
				return nil, missing(p)
			}
			params[p] = str
		}
	case "application/x-www-form-urlencoded":
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, invalidRequest("The request body is not a valid form.")
		}
		for _, p := range tokenParams {
			switch vs := form[p]; len(vs) {
			case 0:
			case 1:
				params[p] = vs[0]
			default:
				return nil, missing(p)
			}
		}
	default:
		return nil, invalidRequest("Send the parameters as application/json or application/x-www-form-urlencoded.")
	}
	return params, nil
}
