package auth

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
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
)

// oauthError is one error answer of the token endpoint (RFC 6749 §5.2).
type oauthError struct {
	status      int
	code        string
	description string
	hint        string
	basic       bool          // answer WWW-Authenticate: Basic (invalid_client after Basic credentials)
	retryAfter  time.Duration // > 0: answer Retry-After (429)
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

// write answers e as league does: error, error_description, the same text as
// message, and hint when there is one.
func (e *oauthError) write(c *gin.Context) {
	if e.basic {
		c.Header("WWW-Authenticate", `Basic realm="OAuth"`)
	}
	if e.retryAfter > 0 {
		c.Header("Retry-After", strconv.FormatInt(int64((e.retryAfter+time.Second-1)/time.Second), 10))
	}
	body := map[string]string{"error": e.code, "error_description": e.description, "message": e.description}
	if e.hint != "" {
		body["hint"] = e.hint
	}
	writeJSON(c, e.status, body)
}

// writeJSON answers a token endpoint body; tokens and errors must not be
// cached (RFC 6749 §5.1).
func writeJSON(c *gin.Context, status int, body any) {
	raw, _ := json.Marshal(body)
	c.Header("Cache-Control", "no-store")
	c.Header("Pragma", "no-cache")
	c.Data(status, "application/json; charset=UTF-8", raw)
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
func readTokenRequest(c *gin.Context) (*tokenRequest, *oauthError) {
	params, oerr := bodyParams(c)
	if oerr != nil {
		return nil, oerr
	}
	req := &tokenRequest{
		grantType: params["grant_type"], clientID: params["client_id"], clientSecret: params["client_secret"],
		username: params["username"], password: params["password"],
	}
	if h := c.GetHeader("Authorization"); len(h) >= 6 && strings.EqualFold(h[:6], "basic ") {
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
	return req, nil
}

// bodyParams decodes the body by its Content-Type: a JSON object of strings,
// or a form. Anything else, a parameter twice or a non-string is
// invalid_request.
func bodyParams(c *gin.Context) (map[string]string, *oauthError) {
	mediaType, _, _ := mime.ParseMediaType(c.GetHeader("Content-Type"))
	var body []byte
	var err error
	if c.Request.Body != nil {
		body, err = io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, maxTokenBody))
	}
	if err != nil {
		return nil, invalidRequest("The request body could not be read.")
	}
	params := map[string]string{}
	switch mediaType {
	case "application/json":
		var doc map[string]any
		if err := json.Unmarshal(body, &doc); err != nil || doc == nil {
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
