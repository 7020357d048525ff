package server

import (
	"context"

	bo "github.com/entityapi/entityapi/gen/backoffice"
	"github.com/entityapi/entityapi/server/jsonapi"
)

// backofficeHandlers implements the generated back-office interface; each method
// hands the typed request to the generic engine, which answers from the route and
// the resource metadata of the document.
type backofficeHandlers struct{ e *engine }

var _ bo.StrictServerInterface = (*backofficeHandlers)(nil)

// derefObject passes a plain body on, or nil when the request was JSON:API.
func derefObject(o *jsonapi.Object) jsonapi.Object {
	if o == nil {
		return nil
	}
	return *o
}

// CreateAccount serves createAccount.
func (h *backofficeHandlers) CreateAccount(ctx context.Context, r bo.CreateAccountRequestObject) (bo.CreateAccountResponseObject, error) {
	return bo.Reply(h.e.Create(ctx, r.ApplicationVndAPIPlusJSONBody, derefObject(r.JSONBody)))
}

// CreateTaxJurisdiction serves createTaxJurisdiction.
func (h *backofficeHandlers) CreateTaxJurisdiction(ctx context.Context, r bo.CreateTaxJurisdictionRequestObject) (bo.CreateTaxJurisdictionResponseObject, error) {
	return bo.Reply(h.e.Create(ctx, r.ApplicationVndAPIPlusJSONBody, derefObject(r.JSONBody)))
}

// CreateWeightUnit serves createWeightUnit.
func (h *backofficeHandlers) CreateWeightUnit(ctx context.Context, r bo.CreateWeightUnitRequestObject) (bo.CreateWeightUnitResponseObject, error) {
	return bo.Reply(h.e.Create(ctx, r.ApplicationVndAPIPlusJSONBody, derefObject(r.JSONBody)))
}

// DeleteAccount serves deleteAccount.
func (h *backofficeHandlers) DeleteAccount(ctx context.Context, _ bo.DeleteAccountRequestObject) (bo.DeleteAccountResponseObject, error) {
	return bo.Reply(h.e.Delete(ctx))
}

// DeleteAccounts serves deleteAccounts.
func (h *backofficeHandlers) DeleteAccounts(ctx context.Context, _ bo.DeleteAccountsRequestObject) (bo.DeleteAccountsResponseObject, error) {
	return bo.Reply(h.e.DeleteList(ctx))
}

// DeleteTaxJurisdiction serves deleteTaxJurisdiction.
func (h *backofficeHandlers) DeleteTaxJurisdiction(ctx context.Context, _ bo.DeleteTaxJurisdictionRequestObject) (bo.DeleteTaxJurisdictionResponseObject, error) {
	return bo.Reply(h.e.Delete(ctx))
}

// DeleteTaxJurisdictions serves deleteTaxJurisdictions.
func (h *backofficeHandlers) DeleteTaxJurisdictions(ctx context.Context, _ bo.DeleteTaxJurisdictionsRequestObject) (bo.DeleteTaxJurisdictionsResponseObject, error) {
	return bo.Reply(h.e.DeleteList(ctx))
}

// DeleteWeightUnit serves deleteWeightUnit.
func (h *backofficeHandlers) DeleteWeightUnit(ctx context.Context, _ bo.DeleteWeightUnitRequestObject) (bo.DeleteWeightUnitResponseObject, error) {
	return bo.Reply(h.e.Delete(ctx))
}

// DeleteWeightUnits serves deleteWeightUnits.
func (h *backofficeHandlers) DeleteWeightUnits(ctx context.Context, _ bo.DeleteWeightUnitsRequestObject) (bo.DeleteWeightUnitsResponseObject, error) {
	return bo.Reply(h.e.DeleteList(ctx))
}

// GetAccount serves getAccount.
func (h *backofficeHandlers) GetAccount(ctx context.Context, _ bo.GetAccountRequestObject) (bo.GetAccountResponseObject, error) {
	return bo.Reply(h.e.Get(ctx))
}

// GetCountry serves getCountry.
func (h *backofficeHandlers) GetCountry(ctx context.Context, _ bo.GetCountryRequestObject) (bo.GetCountryResponseObject, error) {
	return bo.Reply(h.e.Get(ctx))
}

// GetCountryRegionsRelationship serves getCountryRegionsRelationship.
func (h *backofficeHandlers) GetCountryRegionsRelationship(ctx context.Context, _ bo.GetCountryRegionsRelationshipRequestObject) (bo.GetCountryRegionsRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetRegion serves getRegion.
func (h *backofficeHandlers) GetRegion(ctx context.Context, _ bo.GetRegionRequestObject) (bo.GetRegionResponseObject, error) {
	return bo.Reply(h.e.Get(ctx))
}

// GetRegionCountry serves getRegionCountry.
func (h *backofficeHandlers) GetRegionCountry(ctx context.Context, _ bo.GetRegionCountryRequestObject) (bo.GetRegionCountryResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// GetRegionCountryRelationship serves getRegionCountryRelationship.
func (h *backofficeHandlers) GetRegionCountryRelationship(ctx context.Context, _ bo.GetRegionCountryRelationshipRequestObject) (bo.GetRegionCountryRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetTaxJurisdiction serves getTaxJurisdiction.
func (h *backofficeHandlers) GetTaxJurisdiction(ctx context.Context, _ bo.GetTaxJurisdictionRequestObject) (bo.GetTaxJurisdictionResponseObject, error) {
	return bo.Reply(h.e.Get(ctx))
}

// GetTaxJurisdictionCountry serves getTaxJurisdictionCountry.
func (h *backofficeHandlers) GetTaxJurisdictionCountry(ctx context.Context, _ bo.GetTaxJurisdictionCountryRequestObject) (bo.GetTaxJurisdictionCountryResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// GetTaxJurisdictionCountryRelationship serves getTaxJurisdictionCountryRelationship.
func (h *backofficeHandlers) GetTaxJurisdictionCountryRelationship(ctx context.Context, _ bo.GetTaxJurisdictionCountryRelationshipRequestObject) (bo.GetTaxJurisdictionCountryRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetTaxJurisdictionRegion serves getTaxJurisdictionRegion.
func (h *backofficeHandlers) GetTaxJurisdictionRegion(ctx context.Context, _ bo.GetTaxJurisdictionRegionRequestObject) (bo.GetTaxJurisdictionRegionResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// GetTaxJurisdictionRegionRelationship serves getTaxJurisdictionRegionRelationship.
func (h *backofficeHandlers) GetTaxJurisdictionRegionRelationship(ctx context.Context, _ bo.GetTaxJurisdictionRegionRelationshipRequestObject) (bo.GetTaxJurisdictionRegionRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetWeightUnit serves getWeightUnit.
func (h *backofficeHandlers) GetWeightUnit(ctx context.Context, _ bo.GetWeightUnitRequestObject) (bo.GetWeightUnitResponseObject, error) {
	return bo.Reply(h.e.Get(ctx))
}

// ListAccounts serves listAccounts.
func (h *backofficeHandlers) ListAccounts(ctx context.Context, _ bo.ListAccountsRequestObject) (bo.ListAccountsResponseObject, error) {
	return bo.Reply(h.e.List(ctx))
}

// ListCountries serves listCountries.
func (h *backofficeHandlers) ListCountries(ctx context.Context, _ bo.ListCountriesRequestObject) (bo.ListCountriesResponseObject, error) {
	return bo.Reply(h.e.List(ctx))
}

// ListCountryRegions serves listCountryRegions.
func (h *backofficeHandlers) ListCountryRegions(ctx context.Context, _ bo.ListCountryRegionsRequestObject) (bo.ListCountryRegionsResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// ListRegions serves listRegions.
func (h *backofficeHandlers) ListRegions(ctx context.Context, _ bo.ListRegionsRequestObject) (bo.ListRegionsResponseObject, error) {
	return bo.Reply(h.e.List(ctx))
}

// ListTaxJurisdictions serves listTaxJurisdictions.
func (h *backofficeHandlers) ListTaxJurisdictions(ctx context.Context, _ bo.ListTaxJurisdictionsRequestObject) (bo.ListTaxJurisdictionsResponseObject, error) {
	return bo.Reply(h.e.List(ctx))
}

// ListWeightUnits serves listWeightUnits.
func (h *backofficeHandlers) ListWeightUnits(ctx context.Context, _ bo.ListWeightUnitsRequestObject) (bo.ListWeightUnitsResponseObject, error) {
	return bo.Reply(h.e.List(ctx))
}

// UpdateAccount serves updateAccount.
func (h *backofficeHandlers) UpdateAccount(ctx context.Context, r bo.UpdateAccountRequestObject) (bo.UpdateAccountResponseObject, error) {
	return bo.Reply(h.e.Update(ctx, r.ApplicationVndAPIPlusJSONBody, derefObject(r.JSONBody)))
}

// UpdateTaxJurisdiction serves updateTaxJurisdiction.
func (h *backofficeHandlers) UpdateTaxJurisdiction(ctx context.Context, r bo.UpdateTaxJurisdictionRequestObject) (bo.UpdateTaxJurisdictionResponseObject, error) {
	return bo.Reply(h.e.Update(ctx, r.ApplicationVndAPIPlusJSONBody, derefObject(r.JSONBody)))
}

// UpdateWeightUnit serves updateWeightUnit.
func (h *backofficeHandlers) UpdateWeightUnit(ctx context.Context, r bo.UpdateWeightUnitRequestObject) (bo.UpdateWeightUnitResponseObject, error) {
	return bo.Reply(h.e.Update(ctx, r.ApplicationVndAPIPlusJSONBody, derefObject(r.JSONBody)))
}
