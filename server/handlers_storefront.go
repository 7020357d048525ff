package server

import (
	"context"

	sf "github.com/entityapi/entityapi/gen/storefront"
)

// storefrontHandlers implements the generated storefront interface: read-only
// operations, each handed to the generic engine like the back office's.
type storefrontHandlers struct{ e *engine }

var _ sf.StrictServerInterface = (*storefrontHandlers)(nil)

// ListCountries serves listCountries.
func (h *storefrontHandlers) ListCountries(ctx context.Context, _ sf.ListCountriesRequestObject) (sf.ListCountriesResponseObject, error) {
	return sf.Reply(h.e.List(ctx))
}

// GetCountry serves getCountry.
func (h *storefrontHandlers) GetCountry(ctx context.Context, _ sf.GetCountryRequestObject) (sf.GetCountryResponseObject, error) {
	return sf.Reply(h.e.Get(ctx))
}

// ListCountryRegions serves listCountryRegions.
func (h *storefrontHandlers) ListCountryRegions(ctx context.Context, _ sf.ListCountryRegionsRequestObject) (sf.ListCountryRegionsResponseObject, error) {
	return sf.Reply(h.e.Related(ctx))
}

// GetCountryRegionsRelationship serves getCountryRegionsRelationship.
func (h *storefrontHandlers) GetCountryRegionsRelationship(ctx context.Context, _ sf.GetCountryRegionsRelationshipRequestObject) (sf.GetCountryRegionsRelationshipResponseObject, error) {
	return sf.Reply(h.e.Relationship(ctx))
}

// ListCurrencies serves listCurrencies.
func (h *storefrontHandlers) ListCurrencies(ctx context.Context, _ sf.ListCurrenciesRequestObject) (sf.ListCurrenciesResponseObject, error) {
	return sf.Reply(h.e.List(ctx))
}

// GetCurrency serves getCurrency.
func (h *storefrontHandlers) GetCurrency(ctx context.Context, _ sf.GetCurrencyRequestObject) (sf.GetCurrencyResponseObject, error) {
	return sf.Reply(h.e.Get(ctx))
}

// ListLocalizations serves listLocalizations.
func (h *storefrontHandlers) ListLocalizations(ctx context.Context, _ sf.ListLocalizationsRequestObject) (sf.ListLocalizationsResponseObject, error) {
	return sf.Reply(h.e.List(ctx))
}

// GetLocalization serves getLocalization.
func (h *storefrontHandlers) GetLocalization(ctx context.Context, _ sf.GetLocalizationRequestObject) (sf.GetLocalizationResponseObject, error) {
	return sf.Reply(h.e.Get(ctx))
}

// ListRegions serves listRegions.
func (h *storefrontHandlers) ListRegions(ctx context.Context, _ sf.ListRegionsRequestObject) (sf.ListRegionsResponseObject, error) {
	return sf.Reply(h.e.List(ctx))
}

// GetRegion serves getRegion.
func (h *storefrontHandlers) GetRegion(ctx context.Context, _ sf.GetRegionRequestObject) (sf.GetRegionResponseObject, error) {
	return sf.Reply(h.e.Get(ctx))
}

// GetRegionCountry serves getRegionCountry.
func (h *storefrontHandlers) GetRegionCountry(ctx context.Context, _ sf.GetRegionCountryRequestObject) (sf.GetRegionCountryResponseObject, error) {
	return sf.Reply(h.e.Related(ctx))
}

// GetRegionCountryRelationship serves getRegionCountryRelationship.
func (h *storefrontHandlers) GetRegionCountryRelationship(ctx context.Context, _ sf.GetRegionCountryRelationshipRequestObject) (sf.GetRegionCountryRelationshipResponseObject, error) {
	return sf.Reply(h.e.Relationship(ctx))
}

// ListWeightUnits serves listWeightUnits.
func (h *storefrontHandlers) ListWeightUnits(ctx context.Context, _ sf.ListWeightUnitsRequestObject) (sf.ListWeightUnitsResponseObject, error) {
	return sf.Reply(h.e.List(ctx))
}

// GetWeightUnit serves getWeightUnit.
func (h *storefrontHandlers) GetWeightUnit(ctx context.Context, _ sf.GetWeightUnitRequestObject) (sf.GetWeightUnitResponseObject, error) {
	return sf.Reply(h.e.Get(ctx))
}
