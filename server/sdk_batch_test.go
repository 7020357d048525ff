package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	bo "github.com/entityapi/entityapi/gen/sdk/go/backoffice"
)

// TestSDKBatch sends a batch with the generated Go client and follows its asynchronous
// operation to the end, the part of the API a partner is most likely to get wrong by
// hand: a 202 with the operation, its address in Content-Location, a status to poll,
// and per-item errors with pointers into the original request.
func TestSDKBatch(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		ctx := context.Background()
		c := sdkBackoffice(t, a, "admin")
		var upsert bo.RequestMeta_Upsert
		if err := upsert.FromRequestMetaUpsert1([]string{"externalId"}); err != nil {
			t.Fatal(err)
		}
		item := func(name, externalID string, meta *bo.RequestMeta) bo.AccountBatchItem {
			attrs := &bo.AccountWritableAttributes{Name: ptr(name)}
			if externalID != "" {
				attrs.ExternalId = ptr(externalID)
			}
			return bo.AccountBatchItem{Type: bo.AccountBatchItemTypeAccounts, Attributes: attrs, Meta: meta}
		}
		res, err := c.BatchAccountsWithApplicationVndAPIPlusJSONBodyWithResponse(ctx, nil, bo.AccountBatchDocument{Data: []bo.AccountBatchItem{
			item("Initech", "", nil),
			item("", "", nil), // a blank name: an item error, the others still go in
			item("Stark Industries", "STARK-1", &bo.RequestMeta{Upsert: &upsert}),
		}})
		sdkOK(t, err)
		if res.ApplicationvndApiJSON202 == nil {
			t.Fatalf("batchAccounts: status %d, want 202\n%s", res.StatusCode(), res.Body)
		}
		op := res.ApplicationvndApiJSON202.Data
		if op.Type != bo.AsyncOperationTypeAsyncoperations || *op.Attributes.Status != bo.AsyncOperationStatusNew {
			t.Errorf("batch answer: %s", res.Body)
		}
		if loc := res.Headers202.ContentLocation; loc == nil || *loc != a.base+"/admin/api/asyncoperations/"+op.Id {
			t.Errorf("Content-Location %v, want %s", loc, a.base+"/admin/api/asyncoperations/"+op.Id)
		}

		done := sdkAwaitOperation(t, c, op.Id)
		if *done.Attributes.Status != bo.AsyncOperationStatusSuccess || *done.Attributes.Progress != 100 {
			t.Fatalf("operation ended %s at %v%%, want success at 100%%", *done.Attributes.Status, *done.Attributes.Progress)
		}
		sum := done.Attributes.Summary
		if sum == nil {
			t.Fatal("a successful operation has no summary")
		}
		for _, tc := range []struct {
			name string
			got  *int
			want int
		}{{"readCount", sum.ReadCount, 3}, {"writeCount", sum.WriteCount, 2}, {"createCount", sum.CreateCount, 2}, {"errorCount", sum.ErrorCount, 1}} {
			if tc.got == nil || *tc.got != tc.want {
				t.Errorf("summary.%s = %v, want %d", tc.name, tc.got, tc.want)
			}
		}

		errs, err := c.ListAsyncOperationErrorsWithResponse(ctx, op.Id, nil)
		sdkOK(t, err)
		if errs.ApplicationvndApiJSON200 == nil || len(errs.ApplicationvndApiJSON200.Data) != 1 {
			t.Fatalf("listAsyncOperationErrors: status %d\n%s", errs.StatusCode(), errs.Body)
		}
		e := errs.ApplicationvndApiJSON200.Data[0]
		if e.Id != op.Id+"-1-1" || *e.Attributes.Title != "not blank constraint" || *e.Attributes.Status != 400 ||
			*e.Attributes.Source.Pointer != "/data/1/attributes/name" {
			t.Errorf("item error: %s", errs.Body)
		}

		list, err := c.ListAccountsWithResponse(ctx, &bo.ListAccountsParams{FilterName: ptr("Initech,Stark Industries"), Sort: ptr("name")})
		sdkOK(t, err)
		if list.ApplicationvndApiJSON200 == nil {
			t.Fatalf("listAccounts: status %d\n%s", list.StatusCode(), list.Body)
		}
		var names []string
		for _, acc := range list.ApplicationvndApiJSON200.Data {
			names = append(names, *acc.Attributes.Name)
		}
		if got := strings.Join(names, "|"); got != "Initech|Stark Industries" {
			t.Errorf("accounts after the batch: %s", got)
		}
	})
}

// sdkAwaitOperation polls an asynchronous operation with the SDK until it has ended.
func sdkAwaitOperation(t *testing.T, c *bo.ClientWithResponses, id string) bo.AsyncOperation {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := c.GetAsyncOperationWithResponse(context.Background(), id, nil)
		sdkOK(t, err)
		if res.ApplicationvndApiJSON200 == nil {
			t.Fatalf("getAsyncOperation: status %d\n%s", res.StatusCode(), res.Body)
		}
		op := res.ApplicationvndApiJSON200.Data
		switch *op.Attributes.Status {
		case bo.AsyncOperationStatusSuccess, bo.AsyncOperationStatusFailed, bo.AsyncOperationStatusCancelled:
			return op
		}
		if time.Now().After(deadline) {
			t.Fatalf("operation %s did not end: %s", id, res.Body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
