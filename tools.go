//go:build tools

// Package tools records the build-time tools; the pin itself is the tool
// directive in go.mod (go tool oapi-codegen).
package tools

import _ "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen"
