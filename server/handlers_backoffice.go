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

// AddAccountContactsRelationship serves addAccountContactsRelationship.
func (h *backofficeHandlers) AddAccountContactsRelationship(ctx context.Context, r bo.AddAccountContactsRelationshipRequestObject) (bo.AddAccountContactsRelationshipResponseObject, error) {
	return bo.Reply(h.e.AddToRelationship(ctx, r.Body))
}

// AddContactAccountsRelationship serves addContactAccountsRelationship.
func (h *backofficeHandlers) AddContactAccountsRelationship(ctx context.Context, r bo.AddContactAccountsRelationshipRequestObject) (bo.AddContactAccountsRelationshipResponseObject, error) {
	return bo.Reply(h.e.AddToRelationship(ctx, r.Body))
}

// AddUserUserRolesRelationship serves addUserUserRolesRelationship.
func (h *backofficeHandlers) AddUserUserRolesRelationship(ctx context.Context, r bo.AddUserUserRolesRelationshipRequestObject) (bo.AddUserUserRolesRelationshipResponseObject, error) {
	return bo.Reply(h.e.AddToRelationship(ctx, r.Body))
}

// CreateAccount serves createAccount.
func (h *backofficeHandlers) CreateAccount(ctx context.Context, r bo.CreateAccountRequestObject) (bo.CreateAccountResponseObject, error) {
	return bo.Reply(h.e.Create(ctx, r.ApplicationVndAPIPlusJSONBody, derefObject(r.JSONBody)))
}

// CreateBusinessUnit serves createBusinessUnit.
func (h *backofficeHandlers) CreateBusinessUnit(ctx context.Context, r bo.CreateBusinessUnitRequestObject) (bo.CreateBusinessUnitResponseObject, error) {
	return bo.Reply(h.e.Create(ctx, r.ApplicationVndAPIPlusJSONBody, derefObject(r.JSONBody)))
}

// CreateContact serves createContact.
func (h *backofficeHandlers) CreateContact(ctx context.Context, r bo.CreateContactRequestObject) (bo.CreateContactResponseObject, error) {
	return bo.Reply(h.e.Create(ctx, r.ApplicationVndAPIPlusJSONBody, derefObject(r.JSONBody)))
}

// CreateTaxJurisdiction serves createTaxJurisdiction.
func (h *backofficeHandlers) CreateTaxJurisdiction(ctx context.Context, r bo.CreateTaxJurisdictionRequestObject) (bo.CreateTaxJurisdictionResponseObject, error) {
	return bo.Reply(h.e.Create(ctx, r.ApplicationVndAPIPlusJSONBody, derefObject(r.JSONBody)))
}

// CreateUser serves createUser.
func (h *backofficeHandlers) CreateUser(ctx context.Context, r bo.CreateUserRequestObject) (bo.CreateUserResponseObject, error) {
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

// DeleteAccountContactsRelationship serves deleteAccountContactsRelationship.
func (h *backofficeHandlers) DeleteAccountContactsRelationship(ctx context.Context, r bo.DeleteAccountContactsRelationshipRequestObject) (bo.DeleteAccountContactsRelationshipResponseObject, error) {
	return bo.Reply(h.e.RemoveFromRelationship(ctx, r.Body))
}

// DeleteAccounts serves deleteAccounts.
func (h *backofficeHandlers) DeleteAccounts(ctx context.Context, _ bo.DeleteAccountsRequestObject) (bo.DeleteAccountsResponseObject, error) {
	return bo.Reply(h.e.DeleteList(ctx))
}

// DeleteBusinessUnit serves deleteBusinessUnit.
func (h *backofficeHandlers) DeleteBusinessUnit(ctx context.Context, _ bo.DeleteBusinessUnitRequestObject) (bo.DeleteBusinessUnitResponseObject, error) {
	return bo.Reply(h.e.Delete(ctx))
}

// DeleteBusinessUnits serves deleteBusinessUnits.
func (h *backofficeHandlers) DeleteBusinessUnits(ctx context.Context, _ bo.DeleteBusinessUnitsRequestObject) (bo.DeleteBusinessUnitsResponseObject, error) {
	return bo.Reply(h.e.DeleteList(ctx))
}

// DeleteContact serves deleteContact.
func (h *backofficeHandlers) DeleteContact(ctx context.Context, _ bo.DeleteContactRequestObject) (bo.DeleteContactResponseObject, error) {
	return bo.Reply(h.e.Delete(ctx))
}

// DeleteContactAccountsRelationship serves deleteContactAccountsRelationship.
func (h *backofficeHandlers) DeleteContactAccountsRelationship(ctx context.Context, r bo.DeleteContactAccountsRelationshipRequestObject) (bo.DeleteContactAccountsRelationshipResponseObject, error) {
	return bo.Reply(h.e.RemoveFromRelationship(ctx, r.Body))
}

// DeleteContacts serves deleteContacts.
func (h *backofficeHandlers) DeleteContacts(ctx context.Context, _ bo.DeleteContactsRequestObject) (bo.DeleteContactsResponseObject, error) {
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

// DeleteUser serves deleteUser.
func (h *backofficeHandlers) DeleteUser(ctx context.Context, _ bo.DeleteUserRequestObject) (bo.DeleteUserResponseObject, error) {
	return bo.Reply(h.e.Delete(ctx))
}

// DeleteUserUserRolesRelationship serves deleteUserUserRolesRelationship.
func (h *backofficeHandlers) DeleteUserUserRolesRelationship(ctx context.Context, r bo.DeleteUserUserRolesRelationshipRequestObject) (bo.DeleteUserUserRolesRelationshipResponseObject, error) {
	return bo.Reply(h.e.RemoveFromRelationship(ctx, r.Body))
}

// DeleteUsers serves deleteUsers.
func (h *backofficeHandlers) DeleteUsers(ctx context.Context, _ bo.DeleteUsersRequestObject) (bo.DeleteUsersResponseObject, error) {
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

// GetAccountContactsRelationship serves getAccountContactsRelationship.
func (h *backofficeHandlers) GetAccountContactsRelationship(ctx context.Context, _ bo.GetAccountContactsRelationshipRequestObject) (bo.GetAccountContactsRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetAccountDefaultContact serves getAccountDefaultContact.
func (h *backofficeHandlers) GetAccountDefaultContact(ctx context.Context, _ bo.GetAccountDefaultContactRequestObject) (bo.GetAccountDefaultContactResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// GetAccountDefaultContactRelationship serves getAccountDefaultContactRelationship.
func (h *backofficeHandlers) GetAccountDefaultContactRelationship(ctx context.Context, _ bo.GetAccountDefaultContactRelationshipRequestObject) (bo.GetAccountDefaultContactRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetAccountOrganization serves getAccountOrganization.
func (h *backofficeHandlers) GetAccountOrganization(ctx context.Context, _ bo.GetAccountOrganizationRequestObject) (bo.GetAccountOrganizationResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// GetAccountOrganizationRelationship serves getAccountOrganizationRelationship.
func (h *backofficeHandlers) GetAccountOrganizationRelationship(ctx context.Context, _ bo.GetAccountOrganizationRelationshipRequestObject) (bo.GetAccountOrganizationRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetAccountOwner serves getAccountOwner.
func (h *backofficeHandlers) GetAccountOwner(ctx context.Context, _ bo.GetAccountOwnerRequestObject) (bo.GetAccountOwnerResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// GetAccountOwnerRelationship serves getAccountOwnerRelationship.
func (h *backofficeHandlers) GetAccountOwnerRelationship(ctx context.Context, _ bo.GetAccountOwnerRelationshipRequestObject) (bo.GetAccountOwnerRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetAccountReferredBy serves getAccountReferredBy.
func (h *backofficeHandlers) GetAccountReferredBy(ctx context.Context, _ bo.GetAccountReferredByRequestObject) (bo.GetAccountReferredByResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// GetAccountReferredByRelationship serves getAccountReferredByRelationship.
func (h *backofficeHandlers) GetAccountReferredByRelationship(ctx context.Context, _ bo.GetAccountReferredByRelationshipRequestObject) (bo.GetAccountReferredByRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetBusinessUnit serves getBusinessUnit.
func (h *backofficeHandlers) GetBusinessUnit(ctx context.Context, _ bo.GetBusinessUnitRequestObject) (bo.GetBusinessUnitResponseObject, error) {
	return bo.Reply(h.e.Get(ctx))
}

// GetBusinessUnitOrganization serves getBusinessUnitOrganization.
func (h *backofficeHandlers) GetBusinessUnitOrganization(ctx context.Context, _ bo.GetBusinessUnitOrganizationRequestObject) (bo.GetBusinessUnitOrganizationResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// GetBusinessUnitOrganizationRelationship serves getBusinessUnitOrganizationRelationship.
func (h *backofficeHandlers) GetBusinessUnitOrganizationRelationship(ctx context.Context, _ bo.GetBusinessUnitOrganizationRelationshipRequestObject) (bo.GetBusinessUnitOrganizationRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetBusinessUnitOwner serves getBusinessUnitOwner.
func (h *backofficeHandlers) GetBusinessUnitOwner(ctx context.Context, _ bo.GetBusinessUnitOwnerRequestObject) (bo.GetBusinessUnitOwnerResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// GetBusinessUnitOwnerRelationship serves getBusinessUnitOwnerRelationship.
func (h *backofficeHandlers) GetBusinessUnitOwnerRelationship(ctx context.Context, _ bo.GetBusinessUnitOwnerRelationshipRequestObject) (bo.GetBusinessUnitOwnerRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetBusinessUnitUsersRelationship serves getBusinessUnitUsersRelationship.
func (h *backofficeHandlers) GetBusinessUnitUsersRelationship(ctx context.Context, _ bo.GetBusinessUnitUsersRelationshipRequestObject) (bo.GetBusinessUnitUsersRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetContact serves getContact.
func (h *backofficeHandlers) GetContact(ctx context.Context, _ bo.GetContactRequestObject) (bo.GetContactResponseObject, error) {
	return bo.Reply(h.e.Get(ctx))
}

// GetContactAccountsRelationship serves getContactAccountsRelationship.
func (h *backofficeHandlers) GetContactAccountsRelationship(ctx context.Context, _ bo.GetContactAccountsRelationshipRequestObject) (bo.GetContactAccountsRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetContactAssignedTo serves getContactAssignedTo.
func (h *backofficeHandlers) GetContactAssignedTo(ctx context.Context, _ bo.GetContactAssignedToRequestObject) (bo.GetContactAssignedToResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// GetContactAssignedToRelationship serves getContactAssignedToRelationship.
func (h *backofficeHandlers) GetContactAssignedToRelationship(ctx context.Context, _ bo.GetContactAssignedToRelationshipRequestObject) (bo.GetContactAssignedToRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetContactOrganization serves getContactOrganization.
func (h *backofficeHandlers) GetContactOrganization(ctx context.Context, _ bo.GetContactOrganizationRequestObject) (bo.GetContactOrganizationResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// GetContactOrganizationRelationship serves getContactOrganizationRelationship.
func (h *backofficeHandlers) GetContactOrganizationRelationship(ctx context.Context, _ bo.GetContactOrganizationRelationshipRequestObject) (bo.GetContactOrganizationRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetContactOwner serves getContactOwner.
func (h *backofficeHandlers) GetContactOwner(ctx context.Context, _ bo.GetContactOwnerRequestObject) (bo.GetContactOwnerResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// GetContactOwnerRelationship serves getContactOwnerRelationship.
func (h *backofficeHandlers) GetContactOwnerRelationship(ctx context.Context, _ bo.GetContactOwnerRelationshipRequestObject) (bo.GetContactOwnerRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetContactReportsTo serves getContactReportsTo.
func (h *backofficeHandlers) GetContactReportsTo(ctx context.Context, _ bo.GetContactReportsToRequestObject) (bo.GetContactReportsToResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// GetContactReportsToRelationship serves getContactReportsToRelationship.
func (h *backofficeHandlers) GetContactReportsToRelationship(ctx context.Context, _ bo.GetContactReportsToRelationshipRequestObject) (bo.GetContactReportsToRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetCountry serves getCountry.
func (h *backofficeHandlers) GetCountry(ctx context.Context, _ bo.GetCountryRequestObject) (bo.GetCountryResponseObject, error) {
	return bo.Reply(h.e.Get(ctx))
}

// GetCountryRegionsRelationship serves getCountryRegionsRelationship.
func (h *backofficeHandlers) GetCountryRegionsRelationship(ctx context.Context, _ bo.GetCountryRegionsRelationshipRequestObject) (bo.GetCountryRegionsRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetOrganization serves getOrganization.
func (h *backofficeHandlers) GetOrganization(ctx context.Context, _ bo.GetOrganizationRequestObject) (bo.GetOrganizationResponseObject, error) {
	return bo.Reply(h.e.Get(ctx))
}

// GetOrganizationBusinessUnitsRelationship serves getOrganizationBusinessUnitsRelationship.
func (h *backofficeHandlers) GetOrganizationBusinessUnitsRelationship(ctx context.Context, _ bo.GetOrganizationBusinessUnitsRelationshipRequestObject) (bo.GetOrganizationBusinessUnitsRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetOrganizationUsersRelationship serves getOrganizationUsersRelationship.
func (h *backofficeHandlers) GetOrganizationUsersRelationship(ctx context.Context, _ bo.GetOrganizationUsersRelationshipRequestObject) (bo.GetOrganizationUsersRelationshipResponseObject, error) {
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

// GetUser serves getUser.
func (h *backofficeHandlers) GetUser(ctx context.Context, _ bo.GetUserRequestObject) (bo.GetUserResponseObject, error) {
	return bo.Reply(h.e.Get(ctx))
}

// GetUserOrganization serves getUserOrganization.
func (h *backofficeHandlers) GetUserOrganization(ctx context.Context, _ bo.GetUserOrganizationRequestObject) (bo.GetUserOrganizationResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// GetUserOrganizationRelationship serves getUserOrganizationRelationship.
func (h *backofficeHandlers) GetUserOrganizationRelationship(ctx context.Context, _ bo.GetUserOrganizationRelationshipRequestObject) (bo.GetUserOrganizationRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetUserOwner serves getUserOwner.
func (h *backofficeHandlers) GetUserOwner(ctx context.Context, _ bo.GetUserOwnerRequestObject) (bo.GetUserOwnerResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// GetUserOwnerRelationship serves getUserOwnerRelationship.
func (h *backofficeHandlers) GetUserOwnerRelationship(ctx context.Context, _ bo.GetUserOwnerRelationshipRequestObject) (bo.GetUserOwnerRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetUserRole serves getUserRole.
func (h *backofficeHandlers) GetUserRole(ctx context.Context, _ bo.GetUserRoleRequestObject) (bo.GetUserRoleResponseObject, error) {
	return bo.Reply(h.e.Get(ctx))
}

// GetUserUserRolesRelationship serves getUserUserRolesRelationship.
func (h *backofficeHandlers) GetUserUserRolesRelationship(ctx context.Context, _ bo.GetUserUserRolesRelationshipRequestObject) (bo.GetUserUserRolesRelationshipResponseObject, error) {
	return bo.Reply(h.e.Relationship(ctx))
}

// GetWeightUnit serves getWeightUnit.
func (h *backofficeHandlers) GetWeightUnit(ctx context.Context, _ bo.GetWeightUnitRequestObject) (bo.GetWeightUnitResponseObject, error) {
	return bo.Reply(h.e.Get(ctx))
}

// ListAccountContacts serves listAccountContacts.
func (h *backofficeHandlers) ListAccountContacts(ctx context.Context, _ bo.ListAccountContactsRequestObject) (bo.ListAccountContactsResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// ListAccounts serves listAccounts.
func (h *backofficeHandlers) ListAccounts(ctx context.Context, _ bo.ListAccountsRequestObject) (bo.ListAccountsResponseObject, error) {
	return bo.Reply(h.e.List(ctx))
}

// ListBusinessUnitUsers serves listBusinessUnitUsers.
func (h *backofficeHandlers) ListBusinessUnitUsers(ctx context.Context, _ bo.ListBusinessUnitUsersRequestObject) (bo.ListBusinessUnitUsersResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// ListBusinessUnits serves listBusinessUnits.
func (h *backofficeHandlers) ListBusinessUnits(ctx context.Context, _ bo.ListBusinessUnitsRequestObject) (bo.ListBusinessUnitsResponseObject, error) {
	return bo.Reply(h.e.List(ctx))
}

// ListContactAccounts serves listContactAccounts.
func (h *backofficeHandlers) ListContactAccounts(ctx context.Context, _ bo.ListContactAccountsRequestObject) (bo.ListContactAccountsResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// ListContacts serves listContacts.
func (h *backofficeHandlers) ListContacts(ctx context.Context, _ bo.ListContactsRequestObject) (bo.ListContactsResponseObject, error) {
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

// ListOrganizationBusinessUnits serves listOrganizationBusinessUnits.
func (h *backofficeHandlers) ListOrganizationBusinessUnits(ctx context.Context, _ bo.ListOrganizationBusinessUnitsRequestObject) (bo.ListOrganizationBusinessUnitsResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// ListOrganizationUsers serves listOrganizationUsers.
func (h *backofficeHandlers) ListOrganizationUsers(ctx context.Context, _ bo.ListOrganizationUsersRequestObject) (bo.ListOrganizationUsersResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// ListOrganizations serves listOrganizations.
func (h *backofficeHandlers) ListOrganizations(ctx context.Context, _ bo.ListOrganizationsRequestObject) (bo.ListOrganizationsResponseObject, error) {
	return bo.Reply(h.e.List(ctx))
}

// ListRegions serves listRegions.
func (h *backofficeHandlers) ListRegions(ctx context.Context, _ bo.ListRegionsRequestObject) (bo.ListRegionsResponseObject, error) {
	return bo.Reply(h.e.List(ctx))
}

// ListTaxJurisdictions serves listTaxJurisdictions.
func (h *backofficeHandlers) ListTaxJurisdictions(ctx context.Context, _ bo.ListTaxJurisdictionsRequestObject) (bo.ListTaxJurisdictionsResponseObject, error) {
	return bo.Reply(h.e.List(ctx))
}

// ListUserRoles serves listUserRoles.
func (h *backofficeHandlers) ListUserRoles(ctx context.Context, _ bo.ListUserRolesRequestObject) (bo.ListUserRolesResponseObject, error) {
	return bo.Reply(h.e.List(ctx))
}

// ListUserUserRoles serves listUserUserRoles.
func (h *backofficeHandlers) ListUserUserRoles(ctx context.Context, _ bo.ListUserUserRolesRequestObject) (bo.ListUserUserRolesResponseObject, error) {
	return bo.Reply(h.e.Related(ctx))
}

// ListUsers serves listUsers.
func (h *backofficeHandlers) ListUsers(ctx context.Context, _ bo.ListUsersRequestObject) (bo.ListUsersResponseObject, error) {
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

// UpdateAccountContactsRelationship serves updateAccountContactsRelationship.
func (h *backofficeHandlers) UpdateAccountContactsRelationship(ctx context.Context, r bo.UpdateAccountContactsRelationshipRequestObject) (bo.UpdateAccountContactsRelationshipResponseObject, error) {
	return bo.Reply(h.e.UpdateRelationship(ctx, r.Body))
}

// UpdateAccountDefaultContactRelationship serves updateAccountDefaultContactRelationship.
func (h *backofficeHandlers) UpdateAccountDefaultContactRelationship(ctx context.Context, r bo.UpdateAccountDefaultContactRelationshipRequestObject) (bo.UpdateAccountDefaultContactRelationshipResponseObject, error) {
	return bo.Reply(h.e.UpdateRelationship(ctx, r.Body))
}

// UpdateAccountOwnerRelationship serves updateAccountOwnerRelationship.
func (h *backofficeHandlers) UpdateAccountOwnerRelationship(ctx context.Context, r bo.UpdateAccountOwnerRelationshipRequestObject) (bo.UpdateAccountOwnerRelationshipResponseObject, error) {
	return bo.Reply(h.e.UpdateRelationship(ctx, r.Body))
}

// UpdateAccountReferredByRelationship serves updateAccountReferredByRelationship.
func (h *backofficeHandlers) UpdateAccountReferredByRelationship(ctx context.Context, r bo.UpdateAccountReferredByRelationshipRequestObject) (bo.UpdateAccountReferredByRelationshipResponseObject, error) {
	return bo.Reply(h.e.UpdateRelationship(ctx, r.Body))
}

// UpdateBusinessUnit serves updateBusinessUnit.
func (h *backofficeHandlers) UpdateBusinessUnit(ctx context.Context, r bo.UpdateBusinessUnitRequestObject) (bo.UpdateBusinessUnitResponseObject, error) {
	return bo.Reply(h.e.Update(ctx, r.ApplicationVndAPIPlusJSONBody, derefObject(r.JSONBody)))
}

// UpdateBusinessUnitOwnerRelationship serves updateBusinessUnitOwnerRelationship.
func (h *backofficeHandlers) UpdateBusinessUnitOwnerRelationship(ctx context.Context, r bo.UpdateBusinessUnitOwnerRelationshipRequestObject) (bo.UpdateBusinessUnitOwnerRelationshipResponseObject, error) {
	return bo.Reply(h.e.UpdateRelationship(ctx, r.Body))
}

// UpdateContact serves updateContact.
func (h *backofficeHandlers) UpdateContact(ctx context.Context, r bo.UpdateContactRequestObject) (bo.UpdateContactResponseObject, error) {
	return bo.Reply(h.e.Update(ctx, r.ApplicationVndAPIPlusJSONBody, derefObject(r.JSONBody)))
}

// UpdateContactAccountsRelationship serves updateContactAccountsRelationship.
func (h *backofficeHandlers) UpdateContactAccountsRelationship(ctx context.Context, r bo.UpdateContactAccountsRelationshipRequestObject) (bo.UpdateContactAccountsRelationshipResponseObject, error) {
	return bo.Reply(h.e.UpdateRelationship(ctx, r.Body))
}

// UpdateContactAssignedToRelationship serves updateContactAssignedToRelationship.
func (h *backofficeHandlers) UpdateContactAssignedToRelationship(ctx context.Context, r bo.UpdateContactAssignedToRelationshipRequestObject) (bo.UpdateContactAssignedToRelationshipResponseObject, error) {
	return bo.Reply(h.e.UpdateRelationship(ctx, r.Body))
}

// UpdateContactOwnerRelationship serves updateContactOwnerRelationship.
func (h *backofficeHandlers) UpdateContactOwnerRelationship(ctx context.Context, r bo.UpdateContactOwnerRelationshipRequestObject) (bo.UpdateContactOwnerRelationshipResponseObject, error) {
	return bo.Reply(h.e.UpdateRelationship(ctx, r.Body))
}

// UpdateContactReportsToRelationship serves updateContactReportsToRelationship.
func (h *backofficeHandlers) UpdateContactReportsToRelationship(ctx context.Context, r bo.UpdateContactReportsToRelationshipRequestObject) (bo.UpdateContactReportsToRelationshipResponseObject, error) {
	return bo.Reply(h.e.UpdateRelationship(ctx, r.Body))
}

// UpdateOrganization serves updateOrganization.
func (h *backofficeHandlers) UpdateOrganization(ctx context.Context, r bo.UpdateOrganizationRequestObject) (bo.UpdateOrganizationResponseObject, error) {
	return bo.Reply(h.e.Update(ctx, r.ApplicationVndAPIPlusJSONBody, derefObject(r.JSONBody)))
}

// UpdateTaxJurisdiction serves updateTaxJurisdiction.
func (h *backofficeHandlers) UpdateTaxJurisdiction(ctx context.Context, r bo.UpdateTaxJurisdictionRequestObject) (bo.UpdateTaxJurisdictionResponseObject, error) {
	return bo.Reply(h.e.Update(ctx, r.ApplicationVndAPIPlusJSONBody, derefObject(r.JSONBody)))
}

// UpdateTaxJurisdictionCountryRelationship serves updateTaxJurisdictionCountryRelationship.
func (h *backofficeHandlers) UpdateTaxJurisdictionCountryRelationship(ctx context.Context, r bo.UpdateTaxJurisdictionCountryRelationshipRequestObject) (bo.UpdateTaxJurisdictionCountryRelationshipResponseObject, error) {
	return bo.Reply(h.e.UpdateRelationship(ctx, r.Body))
}

// UpdateTaxJurisdictionRegionRelationship serves updateTaxJurisdictionRegionRelationship.
func (h *backofficeHandlers) UpdateTaxJurisdictionRegionRelationship(ctx context.Context, r bo.UpdateTaxJurisdictionRegionRelationshipRequestObject) (bo.UpdateTaxJurisdictionRegionRelationshipResponseObject, error) {
	return bo.Reply(h.e.UpdateRelationship(ctx, r.Body))
}

// UpdateUser serves updateUser.
func (h *backofficeHandlers) UpdateUser(ctx context.Context, r bo.UpdateUserRequestObject) (bo.UpdateUserResponseObject, error) {
	return bo.Reply(h.e.Update(ctx, r.ApplicationVndAPIPlusJSONBody, derefObject(r.JSONBody)))
}

// UpdateUserOwnerRelationship serves updateUserOwnerRelationship.
func (h *backofficeHandlers) UpdateUserOwnerRelationship(ctx context.Context, r bo.UpdateUserOwnerRelationshipRequestObject) (bo.UpdateUserOwnerRelationshipResponseObject, error) {
	return bo.Reply(h.e.UpdateRelationship(ctx, r.Body))
}

// UpdateUserUserRolesRelationship serves updateUserUserRolesRelationship.
func (h *backofficeHandlers) UpdateUserUserRolesRelationship(ctx context.Context, r bo.UpdateUserUserRolesRelationshipRequestObject) (bo.UpdateUserUserRolesRelationshipResponseObject, error) {
	return bo.Reply(h.e.UpdateRelationship(ctx, r.Body))
}

// UpdateWeightUnit serves updateWeightUnit.
func (h *backofficeHandlers) UpdateWeightUnit(ctx context.Context, r bo.UpdateWeightUnitRequestObject) (bo.UpdateWeightUnitResponseObject, error) {
	return bo.Reply(h.e.Update(ctx, r.ApplicationVndAPIPlusJSONBody, derefObject(r.JSONBody)))
}
