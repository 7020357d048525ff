package batch_test

import (
	"testing"

	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestMain migrates one template database per dialect for the package's
// tests, each of which gets a copy (storagetest.Main).
func TestMain(m *testing.M) { storagetest.Main(m) }
