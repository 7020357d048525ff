package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/entityapi/entityapi/server/auth"
	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/secret"
)

// admin runs the administration commands: organizations, users, clients and
// signing keys, straight on the database.
func admin(ctx context.Context, store *authstore.Store, cmd string, f *adminFlags, args []string, out io.Writer) error {
	switch cmd {
	case "org create":
		if len(args) != 1 {
			return fmt.Errorf("usage: entityapi org create NAME")
		}
		o, err := store.CreateOrganization(ctx, args[0])
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "organization %d %s\n", o.ID, o.Name)
	case "user create":
		return createUser(ctx, store, f, out)
	case "client create":
		return createClient(ctx, store, f, out)
	case "client disable":
		if len(args) != 1 {
			return fmt.Errorf("usage: entityapi client disable ID")
		}
		if err := store.SetClientEnabled(ctx, args[0], false); err != nil {
			return err
		}
		fmt.Fprintf(out, "client %s disabled\n", args[0])
	case "keys rotate":
		kid, err := auth.RotateKey(ctx, store, f.kek)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "signing key %s added; running servers sign with it within a minute\n", kid)
	case "keys rewrap":
		if f.kek == nil {
			return fmt.Errorf("keys rewrap needs the key-encryption key (%s)", auth.KEKSettings)
		}
		n, err := auth.SealKeys(ctx, store, f.kek)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%d signing keys sealed with the key-encryption key; the others already were\n", n)
	default:
		return fmt.Errorf("unknown command %q", cmd)
	}
	return nil
}

// adminFlags are the flags of each administration command.
type adminFlags struct {
	org, username, email, firstName, lastName, role, password, app, user, name string
	asJSON                                                                     bool
	kek                                                                        *auth.KeyEncryption // from the settings, not a flag
}

// userFlags are the flags of `entityapi user create`.
func userFlags(fs *flag.FlagSet, f *adminFlags) {
	fs.StringVar(&f.org, "org", "Main", "the organization of the user")
	fs.StringVar(&f.username, "username", "", "user name")
	fs.StringVar(&f.email, "email", "", "email address")
	fs.StringVar(&f.firstName, "first-name", "", "first name")
	fs.StringVar(&f.lastName, "last-name", "", "last name")
	fs.StringVar(&f.role, "role", "ROLE_USER", "ROLE_ADMINISTRATOR, ROLE_MANAGER, ROLE_USER, ROLE_INTEGRATION or ROLE_AUDITOR (docs/tokens.md)")
	fs.StringVar(&f.password, "password", "", "password for the password grant (optional)")
}

// clientFlags are the flags of `entityapi client create`.
func clientFlags(fs *flag.FlagSet, f *adminFlags) {
	fs.StringVar(&f.app, "app", "backoffice", "backoffice or storefront")
	fs.StringVar(&f.user, "user", "", "back office: the user (username) the client acts as")
	fs.StringVar(&f.org, "org", "Main", "storefront: the organization of the client")
	fs.StringVar(&f.name, "name", "", "a name for the client (default: the application's name and \"client\")")
	fs.BoolVar(&f.asJSON, "json", false, "print the client as JSON")
}

func createUser(ctx context.Context, store *authstore.Store, f *adminFlags, out io.Writer) error {
	if f.username == "" || f.email == "" || f.firstName == "" || f.lastName == "" {
		return fmt.Errorf("usage: entityapi user create --org NAME --username U --email E --first-name F --last-name L --role ROLE [--password P]")
	}
	org, err := store.OrganizationByName(ctx, f.org)
	if err != nil {
		return fmt.Errorf("organization %q: %w", f.org, err)
	}
	u := &authstore.User{OrganizationID: org.ID, Username: f.username, Email: f.email, FirstName: f.firstName, LastName: f.lastName, Enabled: true}
	if f.password != "" {
		h, err := secret.Hash(f.password)
		if err != nil {
			return err
		}
		u.PasswordHash = &h
	}
	if err := store.CreateUser(ctx, u, []string{f.role}); err != nil {
		return err
	}
	fmt.Fprintf(out, "user %d %s (%s) in %s\n", u.ID, u.Username, f.role, org.Name)
	return nil
}

func createClient(ctx context.Context, store *authstore.Store, f *adminFlags, out io.Writer) error {
	c := &authstore.Client{ID: secret.NewClientID(), App: f.app, Name: f.name, Enabled: true}
	switch f.app {
	case "backoffice":
		if f.user == "" {
			return fmt.Errorf("usage: entityapi client create --app backoffice --user USERNAME [--json]")
		}
		u, err := store.UserByLogin(ctx, f.user)
		if err != nil {
			return fmt.Errorf("user %q: %w", f.user, err)
		}
		c.UserID, c.OrganizationID = &u.ID, u.OrganizationID
	case "storefront":
		org, err := store.OrganizationByName(ctx, f.org)
		if err != nil {
			return fmt.Errorf("organization %q: %w", f.org, err)
		}
		c.OrganizationID = org.ID
	default:
		return fmt.Errorf("--app %q: want backoffice or storefront", f.app)
	}
	if c.Name == "" {
		c.Name = f.app + " client"
	}
	plain := secret.NewSecret()
	h, err := secret.Hash(plain)
	if err != nil {
		return err
	}
	c.SecretHash = h
	if err := store.CreateClient(ctx, c); err != nil {
		return err
	}
	if f.asJSON {
		return json.NewEncoder(out).Encode(map[string]string{"client_id": c.ID, "client_secret": plain, "app": c.App})
	}
	fmt.Fprintf(out, "client_id:     %s\nclient_secret: %s   (shown once; keep it)\n", c.ID, plain)
	return nil
}
