package idemstore_test

import (
	"testing"

	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestMain lets storagetest migrate one template database per dialect for
// the package's tests and remove it at the end.
func TestMain(m *testing.M) { storagetest.Main(m) }
