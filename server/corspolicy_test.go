package server

import "testing"

// TestNormalizeOrigin: configured origins are written as browsers send them,
// and anything that is not an origin is refused at start.
func TestNormalizeOrigin(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{ // want "": refused
		{"https://shop.example.com", "https://shop.example.com"},
		{"https://Shop.Example.com/", "https://shop.example.com"},
		{"https://shop.example.com:443", "https://shop.example.com"},
		{"http://localhost:3000", "http://localhost:3000"},
		{"http://[::1]:80", "http://[::1]"},
		{"*", "*"},
		{"shop.example.com", ""},
		{"ftp://shop.example.com", ""},
		{"https://shop.example.com/app", ""},
		{"https://shop.example.com?x=1", ""},
		{"https://shop.example.com?", ""},
		{"https://user@shop.example.com", ""},
		{"https://", ""},
		{"null", ""},
	}
	for _, tc := range cases {
		got, err := NormalizeOrigin(tc.in)
		if got != tc.want || (err == nil) != (tc.want != "") {
			t.Errorf("NormalizeOrigin(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestCORSCovers: CORS covers the API addresses and token endpoints of both
// applications, whatever their bases, and nothing else.
func TestCORSCovers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		bases []string
		path  string
		want  bool
	}{
		{[]string{"/admin", ""}, "/admin/api/accounts", true},
		{[]string{"/admin", ""}, "/admin/api/accounts/1/relationships/contacts", true},
		{[]string{"/admin", ""}, "/api/countries", true},
		{[]string{"/admin", ""}, "/admin/oauth2-token", true},
		{[]string{"/admin", ""}, "/oauth2-token", true},
		{[]string{"/admin", ""}, "/admin/api/openapi.json", true},
		{[]string{"/admin", ""}, "/admin/api/doc", false},
		{[]string{"/admin", ""}, "/api/doc/swagger-ui.css", false},
		{[]string{"/admin", ""}, "/healthz", false},
		{[]string{"/admin", ""}, "/.well-known/jwks.json", false},
		{[]string{"/admin", ""}, "/admin/healthz", false},
		{[]string{"/bo", "/shop"}, "/shop/api/countries", true},
		{[]string{"/bo", "/shop"}, "/shop/oauth2-token", true},
		{[]string{"/bo", "/shop"}, "/oauth2-token", true},
		{[]string{"/bo", "/shop"}, "/api/countries", false},
		{[]string{"/bo", "/shop"}, "/admin/api/accounts", false},
	}
	for _, tc := range cases {
		p, err := newCORS(CORSConfig{Origins: []string{"*"}}, tc.bases...)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.covers(tc.path); got != tc.want {
			t.Errorf("bases %q: covers(%q) = %v, want %v", tc.bases, tc.path, got, tc.want)
		}
	}
}
