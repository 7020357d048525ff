// Package openapi embeds the public OpenAPI documents bundled from the per-entity
// files in this folder, so the binary serves and validates against exactly the
// contract that is committed.
package openapi

import _ "embed"

// Backoffice is the public document of the back-office application.
//
//go:embed bundled/backoffice.yaml
var Backoffice []byte

// Storefront is the public document of the storefront application.
//
//go:embed bundled/storefront.yaml
var Storefront []byte
